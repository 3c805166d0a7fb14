package config

import (
	"fmt"
	"reflect"

	"gopkg.in/yaml.v3"
)

// A Component is a name chosen in the config plus options that stay raw until
// the registry that owns the name decodes them into its typed options
// (strictly, with Component.Decode). A struct field of type Component (or a
// list or map of them) is a component slot; which names it accepts comes from
// the Schema's Components table. The name is found by the slot's shape:
//
//	Backbone: {name: MobileNetV3, scale: 0.5}   selector key (Schema.Selector: "name" or "type")
//	transforms: [{DecodeImage: {img_mode: BGR}}] one-key map: the key is the name
//	backbone: DarkNet                            a string: the options are the
//	                                             top-level section "DarkNet", if any
//
// A null slot gives the zero Component (Name == ""): the component is absent.
type Component struct {
	Name string     // the registered name, e.g. "MobileNetV3"
	Path string     // where the options are, e.g. "Architecture.Backbone" or "DarkNet"
	Node *yaml.Node // the options as a mapping (the selector key removed); nil when none

	at       string     // where the name was written, e.g. "Architecture.Backbone.name"
	nameNode *yaml.Node // the node holding the name, for messages
	cfg      *Config
}

// At returns the key path where the component's name was written, e.g.
// "Architecture.Backbone.name", "Train.dataset.transforms.3" or "YOLOv3.backbone".
func (c Component) At() string { return c.at }

// Errorf returns an *Error located where the component's name was written.
func (c Component) Errorf(format string, args ...any) error {
	if c.cfg == nil {
		return &Error{Path: c.at, Err: fmt.Errorf(format, args...)}
	}
	return c.cfg.errorAt(c.nameNode, c.at, fmt.Errorf(format, args...))
}

// Decode strictly decodes the component's options into v (a non-nil
// pointer), with the same rules and errors as Config.Decode. It leaves v as
// it is when the component has no options.
func (c Component) Decode(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("config: Component.Decode(%s) needs a non-nil pointer, got %T", c.Name, v)
	}
	if c.Node == nil {
		return nil
	}
	cfg := c.cfg
	if cfg == nil {
		cfg = &Config{}
	}
	d := &decoder{c: cfg}
	d.value(c.Path, c.Node, rv.Elem())
	return d.err()
}

// selector returns the key that names components: the schema's ("name" when
// it sets none), or for a config without a schema "type" when the map has a
// `type:` and no `name:`.
func (c *Config) selector(s *Schema, n *yaml.Node) string {
	if s == nil {
		s = c.Schema
	}
	_, name := mapGet(n, "name")
	_, typ := mapGet(n, "type")
	switch {
	case s != nil && s.Selector != "":
		return s.Selector
	case s == nil && typ != nil && name == nil:
		return "type"
	}
	return "name"
}

// component resolves the slot at path (node n) into a Component.
func (c *Config) component(s *Schema, path string, n *yaml.Node) (Component, error) {
	comp := Component{Path: path, at: path, nameNode: n, cfg: c}
	switch {
	case isNull(n):
		return Component{Path: path, at: path, cfg: c}, nil
	case n.Kind == yaml.ScalarNode: // class-keyed: options live in a top-level section
		comp.Name = n.Value
		comp.Path = n.Value
		if _, opts := mapGet(c.Root, n.Value); opts != nil {
			if opts.Kind != yaml.MappingNode && !isNull(opts) {
				return comp, c.errorAt(opts, n.Value, fmt.Errorf("expected a map of options for %s, got %s", n.Value, describe(opts)))
			}
			if opts.Kind == yaml.MappingNode {
				comp.Node = opts
			}
		}
		return comp, nil
	case n.Kind != yaml.MappingNode:
		return comp, c.errorAt(n, path, fmt.Errorf("expected a component, got %s", describe(n)))
	}
	sel := c.selector(s, n)
	if k, v := mapGet(n, sel); v != nil {
		if v.Kind != yaml.ScalarNode || isNull(v) {
			return comp, c.errorAt(v, join(path, sel), fmt.Errorf("expected a component name, got %s", describe(v)))
		}
		comp.Name, comp.at, comp.nameNode = v.Value, join(path, sel), v
		opts := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i] != k {
				opts.Content = append(opts.Content, n.Content[i], n.Content[i+1])
			}
		}
		c.remember(opts, c.fileOf(n))
		comp.Node = opts
		return comp, nil
	}
	if len(n.Content) == 2 && (n.Content[1].Kind == yaml.MappingNode || isNull(n.Content[1])) {
		k, v := n.Content[0], n.Content[1]
		comp.Name, comp.Path, comp.nameNode = k.Value, join(path, k.Value), k
		if v.Kind == yaml.MappingNode {
			comp.Node = v
		}
		return comp, nil
	}
	return comp, c.errorAt(n, path, fmt.Errorf("missing %q: cannot tell which component this is", sel))
}

// component decodes a Component slot; under Validate it also checks the
// name against the schema and decodes the options strictly.
func (d *decoder) component(path string, n *yaml.Node, v reflect.Value) {
	comp, err := d.c.component(d.s, path, n)
	if err != nil {
		d.errs = append(d.errs, err)
		return
	}
	v.Set(reflect.ValueOf(comp))
	if d.s == nil || comp.Name == "" {
		return
	}
	names, ok := d.s.slot(path)
	if !ok {
		d.fail(n, path, "schema has no components for this slot (add a Components pattern matching %q)", path)
		return
	}
	opts, ok := names[comp.Name]
	if !ok {
		d.fail(comp.nameNode, comp.at, "unknown %q (known: %s)", comp.Name, listNames(names))
		return
	}
	if n.Kind == yaml.ScalarNode { // class-keyed: check the section once
		if d.seen[comp.Name] {
			return
		}
		d.seen[comp.Name] = true
	}
	if comp.Node != nil {
		d.value(comp.Path, comp.Node, reflect.New(typeOf(opts)).Elem())
	}
}

// mapGet returns the key and value nodes for key in mapping n, or nils.
func mapGet(n *yaml.Node, key string) (k, v *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}
