package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A Registry is one kind of component a kit's configs choose by name (its
// models, its transforms, its losses): each name is registered once, with its
// options type and its builder, and from that one registration the registry
// gives the schema's entry (Options), the dispatch from a chosen name to its
// builder (Build) and the list of known names (Names) that errors and
// `paddle config show --components` print.
//
// E is what the builders need besides their options (a kit's global
// settings, a random source, nothing: struct{}); T is what they build.
//
//	var archs = config.NewRegistry[archEnv, nn.Layer]("Arch")
//	config.Add(archs, "LeNet", LeNetOptions{}, func(c config.Component, o LeNetOptions, e archEnv) (nn.Layer, error) {...})
//	layer, err := archs.Build(cfg.Arch, env)
type Registry[E, T any] struct {
	kind    string
	names   []string // registration order
	entries map[string]registryEntry[E, T]
}

type registryEntry[E, T any] struct {
	opts  any // (*O)(nil)
	build func(Component, E) (T, error)
}

// NewRegistry returns an empty registry of components of kind (a word for
// messages: "Arch", "transform", "loss").
func NewRegistry[E, T any](kind string) *Registry[E, T] {
	return &Registry[E, T]{kind: kind, entries: map[string]registryEntry[E, T]{}}
}

// Add registers name with options of type O: Build decodes the component's
// options strictly onto a copy of defaults and calls build with them. It
// panics when name is registered twice (a programmer error).
func Add[O, E, T any](r *Registry[E, T], name string, defaults O, build func(c Component, o O, env E) (T, error)) {
	if _, dup := r.entries[name]; dup || name == "" {
		panic(fmt.Sprintf("config: %s %q registered twice or without a name", r.kind, name))
	}
	r.names = append(r.names, name)
	r.entries[name] = registryEntry[E, T]{
		opts: (*O)(nil),
		build: func(c Component, env E) (T, error) {
			o := defaults
			if err := c.Decode(&o); err != nil {
				var zero T
				return zero, err
			}
			return build(c, o, env)
		},
	}
}

// Kind returns the word the registry's messages use for its components.
func (r *Registry[E, T]) Kind() string { return r.kind }

// Names returns the registered names in registration order.
func (r *Registry[E, T]) Names() []string { return slices.Clone(r.names) }

// Has reports whether name is registered.
func (r *Registry[E, T]) Has(name string) bool {
	_, ok := r.entries[name]
	return ok
}

// Options returns name → options type, the entry of a Schema's Components.
func (r *Registry[E, T]) Options() map[string]any {
	m := make(map[string]any, len(r.entries))
	for n, e := range r.entries {
		m[n] = e.opts
	}
	return m
}

// Build builds the component c names. An unknown name is an error at c
// listing the known ones: `unknown Arch "X" (known: LeNet, ResNet)`.
func (r *Registry[E, T]) Build(c Component, env E) (T, error) {
	e, ok := r.entries[c.Name]
	if !ok {
		var zero T
		return zero, c.Errorf("unknown %s %q (known: %s)", r.kind, c.Name, strings.Join(r.names, ", "))
	}
	return e.build(c, env)
}

// Slot is what a Schema records about a registry attached to a slot: the
// kind of its components and their names.
type Slot struct {
	Kind  string   // "" when the slot's names were not attached from a registry
	Names []string // sorted
}

// Attach makes the schema's slot pattern accept r's components, and records
// r's kind for `paddle config show --components`.
func Attach[E, T any](s *Schema, pattern string, r *Registry[E, T]) {
	if s.Components == nil {
		s.Components = map[string]map[string]any{}
	}
	if s.Kinds == nil {
		s.Kinds = map[string]string{}
	}
	s.Components[pattern] = r.Options()
	s.Kinds[pattern] = r.kind
}

// ComponentSlots returns, for each slot pattern of the schema, the kind of
// its components and their names.
func (s *Schema) ComponentSlots() map[string]Slot {
	out := make(map[string]Slot, len(s.Components))
	for pat, names := range s.Components {
		out[pat] = Slot{Kind: s.Kinds[pat], Names: slices.Sorted(maps.Keys(names))}
	}
	return out
}

// Choices is the ordered set of names a plain string option can take (a
// scheduler's kind, an optimizer's type, an NMS), each registered once with
// its value (what the kit does for it); Known lists the names for messages.
// Components with options of their own belong in a Registry instead.
type Choices[V any] struct {
	names []string
	vals  map[string]V
}

// Add registers name with its value and returns c, for chaining. It panics
// when name is registered twice (a programmer error).
func (c *Choices[V]) Add(name string, v V) *Choices[V] {
	if c.vals == nil {
		c.vals = map[string]V{}
	}
	if _, dup := c.vals[name]; dup {
		panic(fmt.Sprintf("config: choice %q registered twice", name))
	}
	c.names = append(c.names, name)
	c.vals[name] = v
	return c
}

// Get returns name's value.
func (c *Choices[V]) Get(name string) (V, bool) {
	v, ok := c.vals[name]
	return v, ok
}

// Names returns the registered names in registration order.
func (c *Choices[V]) Names() []string { return slices.Clone(c.names) }

// Known returns the names in registration order, comma-separated: the list
// an "(known: …)" message prints.
func (c *Choices[V]) Known() string { return strings.Join(c.names, ", ") }

// NameSet returns Choices of names that carry no value: the accepted
// values of an option whose meaning is coded where it is read.
func NameSet(names ...string) *Choices[struct{}] {
	c := &Choices[struct{}]{}
	for _, n := range names {
		c.Add(n, struct{}{})
	}
	return c
}
