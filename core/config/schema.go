package config

import (
	"errors"
	"fmt"
	"maps"
	"paddle/core/editdist"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"
)

// A Schema says which sections and components a kit's configs may contain.
//
//	config.Register("ocr", &config.Schema{
//		Sections: map[string]any{
//			"Global":       (*GlobalOpts)(nil),
//			"Architecture": (*ArchOpts)(nil), // has `Backbone config.Component`
//		},
//		Components: map[string]map[string]any{
//			"Architecture.Backbone": {"MobileNetV3": (*MobileNetV3Opts)(nil)},
//			"Train.dataset.transforms.*": {"DecodeImage": (*DecodeImageOpts)(nil)},
//		},
//		Selector: "name",
//	})
//
// Section and option types are Go structs with yaml tags (a pointer to a zero
// value names the type); a section may also be a scalar (PaddleSeg's `iters`:
// (*int)(nil)) or itself a component (PaddleDetection's `architecture`:
// (*config.Component)(nil)). Component patterns are dotted paths of slots (fields
// of type Component); "*" matches any one key or list index, and the pattern
// with the fewest "*" wins. For PaddleDetection's class-keyed configs, a
// pattern like "*.backbone" catches `YOLOv3: {backbone: DarkNet}`, and the
// top-level section `DarkNet: {...}` is then checked as DarkNet's options.
type Schema struct {
	Sections   map[string]any            // top-level key -> options type
	Components map[string]map[string]any // slot pattern -> component name -> options type
	Selector   string                    // key naming a component in a map: "name" (default) or "type"
	Kinds      map[string]string         // slot pattern -> kind of its components ("Arch", "transform"), set by Attach
}

var (
	schemaMu sync.RWMutex
	schemas  = map[string]*Schema{}
)

// Register records kit's schema, replacing any earlier one. It is called from
// a kit's constructor, not from init. It panics on a nil schema or a section
// or options entry without a type (programmer errors).
func Register(kit string, s *Schema) {
	if kit == "" || s == nil {
		panic("config: Register needs a kit name and a schema")
	}
	for name, t := range s.Sections {
		if reflect.TypeOf(t) == nil {
			panic(fmt.Sprintf("config: kit %s: section %s has no type (use (*T)(nil))", kit, name))
		}
	}
	for pat, names := range s.Components {
		for name, t := range names {
			if reflect.TypeOf(t) == nil {
				panic(fmt.Sprintf("config: kit %s: component %s at %s has no type (use (*T)(nil))", kit, name, pat))
			}
		}
	}
	schemaMu.Lock()
	defer schemaMu.Unlock()
	schemas[kit] = s
}

// SchemaFor returns the schema registered for kit.
func SchemaFor(kit string) (*Schema, bool) {
	schemaMu.RLock()
	defer schemaMu.RUnlock()
	s, ok := schemas[kit]
	return s, ok
}

// typeOf returns the options type a schema entry names: T for a *T.
func typeOf(v any) reflect.Type {
	t := reflect.TypeOf(v)
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

// slot returns the component names allowed at path.
func (s *Schema) slot(path string) (map[string]any, bool) {
	segs := strings.Split(path, ".")
	best, bestStars := "", -1
	for pat := range s.Components {
		ps := strings.Split(pat, ".")
		if len(ps) != len(segs) {
			continue
		}
		stars, ok := 0, true
		for i, p := range ps {
			if p == "*" {
				stars++
			} else if p != segs[i] {
				ok = false
				break
			}
		}
		if ok && (bestStars < 0 || stars < bestStars || stars == bestStars && pat < best) {
			best, bestStars = pat, stars
		}
	}
	if bestStars < 0 {
		return nil, false
	}
	return s.Components[best], true
}

// componentType returns the one options type registered under name (in any
// slot), for class-keyed top-level sections.
func (s *Schema) componentType(name string) (reflect.Type, bool) {
	var found reflect.Type
	for _, pat := range slices.Sorted(maps.Keys(s.Components)) {
		if t, ok := s.Components[pat][name]; ok {
			if found != nil && found != typeOf(t) {
				return nil, false // registered with different options in different slots
			}
			found = typeOf(t)
		}
	}
	return found, found != nil
}

// Validate checks the whole config against s and reports every problem, each
// an *Error with file and line (joined with errors.Join): unknown sections
// and keys (with the closest known one), values of the wrong type, unknown
// component names (with the known ones), and each component's options
// decoded strictly into its registered type. Top-level sections named after a
// registered component (PaddleDetection's `DarkNet: {depth: 53}`) are checked
// as that component's options; Ignored keys only warn.
func (c *Config) Validate(s *Schema) error {
	if s == nil {
		return errors.New("config: Validate needs a schema")
	}
	d := &decoder{c: c, s: s, seen: map[string]bool{}}
	root := c.Root
	known := slices.Sorted(maps.Keys(s.Sections))
	names := s.componentNames()
	likely := append(slices.Clone(known), names...)
	var classKeyed []int
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch t, ok := s.Sections[k.Value]; {
		case ok:
			d.value(k.Value, v, reflect.New(typeOf(t)).Elem())
		case slices.Contains(names, k.Value):
			classKeyed = append(classKeyed, i) // after the sections that may name it
		default:
			d.unknownKey(k, "", likely, known)
		}
	}
	for _, i := range classKeyed {
		k, v := root.Content[i], root.Content[i+1]
		if d.seen[k.Value] {
			continue // checked as the options of the component that names it
		}
		d.seen[k.Value] = true
		if t, ok := s.componentType(k.Value); ok { // else registered twice with different options: unused, unchecked
			d.value(k.Value, v, reflect.New(t).Elem())
		}
	}
	return d.err()
}

// componentNames returns every registered component name, sorted.
func (s *Schema) componentNames() []string {
	var names []string
	for _, m := range s.Components {
		names = append(names, slices.Collect(maps.Keys(m))...)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// knows reports whether the schema accepts the key path segs, as used by an
// override of a key the file lacks; if not, it returns an error naming the
// closest known key. Where the path runs into something the schema cannot
// see through (a component not chosen yet, an `any` field) it accepts, and
// Validate has the last word.
func (c *Config) knows(s *Schema, segs []string) error {
	var t reflect.Type
	if st, ok := s.Sections[segs[0]]; ok {
		t = typeOf(st)
	} else if ct, ok := s.componentType(segs[0]); ok {
		t = ct
	} else if Ignored[segs[0]] {
		return nil
	} else {
		known := slices.Sorted(maps.Keys(s.Sections))
		return unknownPath(segs, 0, append(known, keysOf(c.Root)...))
	}
	for i := 1; i < len(segs); i++ {
		path := strings.Join(segs[:i], ".")
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case t == componentType:
			ot, skip, err := c.slotOptions(s, segs, i)
			if err != nil || ot == nil {
				return err
			}
			t = ot
			i += skip - 1 // the loop's i++ then lands on the first options key
		case t == nodeType || t.Kind() == reflect.Interface:
			return nil
		case t.Kind() == reflect.Struct:
			info := fieldsOf(t)
			if idx, ok := info.byName[segs[i]]; ok {
				t = t.FieldByIndex(idx).Type
			} else if info.inline != nil {
				t = t.FieldByIndex(info.inline).Type.Elem()
			} else if Ignored[segs[i]] {
				return nil
			} else {
				var inFile []string
				if n, ok := c.Node(path); ok {
					inFile = keysOf(n)
				}
				return unknownPath(segs, i, append(slices.Clone(info.names), inFile...))
			}
		case t.Kind() == reflect.Map:
			t = t.Elem()
		case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
			if _, err := strconv.Atoi(segs[i]); err != nil {
				return fmt.Errorf("%s is a list: want an index, got %q", path, segs[i])
			}
			t = t.Elem()
		default:
			return fmt.Errorf("%s is %s, not a map", path, kindName(t))
		}
	}
	return nil
}

// slotOptions returns the options type of the component chosen at the slot
// segs[:i], and how many segments name it (1 for a one-key map, else 0). A
// nil type with a nil error means "cannot check further".
func (c *Config) slotOptions(s *Schema, segs []string, i int) (reflect.Type, int, error) {
	path := strings.Join(segs[:i], ".")
	n, ok := c.Node(path)
	if !ok {
		return nil, 0, nil
	}
	comp, err := c.component(s, path, n)
	if err != nil || comp.Name == "" {
		return nil, 0, nil
	}
	names, _ := s.slot(path)
	opts, ok := names[comp.Name]
	switch {
	case !ok || typeOf(opts) == componentType:
		return nil, 0, nil // Validate reports the unknown name
	case n.Kind == yaml.ScalarNode:
		return nil, 0, fmt.Errorf("%s names the component %s: set its options under %s", path, comp.Name, comp.Name)
	case comp.Path == path: // chosen by the selector key
		if segs[i] == c.selector(s, n) {
			return nil, 0, nil
		}
		return typeOf(opts), 0, nil
	case segs[i] != comp.Name: // one-key map
		return nil, 0, fmt.Errorf("%s is %s, not %s", path, comp.Name, segs[i])
	}
	return typeOf(opts), 1, nil
}

func keysOf(n *yaml.Node) []string {
	var keys []string
	if n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			keys = append(keys, n.Content[i].Value)
		}
	}
	return keys
}

// unknownPath reports segs[i] unknown, suggesting the closest of known.
func unknownPath(segs []string, i int, known []string) error {
	full := strings.Join(segs, ".")
	best := closest(segs[i], known)
	if best == "" {
		return fmt.Errorf("unknown key %q%s", full, knownList(known))
	}
	fixed := slices.Clone(segs)
	fixed[i] = best
	return fmt.Errorf("unknown key %q (did you mean %q?)", full, strings.Join(fixed, "."))
}

// suggest returns " (did you mean "parent.best"?)" with the closest of
// candidates, or else " (known: ...)" listing known.
func suggest(key, parent string, candidates, known []string) string {
	if best := closest(key, candidates); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", join(parent, best))
	}
	return knownList(known)
}

func knownList(known []string) string {
	if len(known) == 0 {
		return ""
	}
	known = slices.Compact(slices.Sorted(slices.Values(known)))
	return " (known: " + strings.Join(known, ", ") + ")"
}

func listNames(names map[string]any) string {
	return strings.Join(slices.Sorted(maps.Keys(names)), ", ")
}

// closest returns the known key nearest to key by edit distance, or "" when
// none is near enough to be a likely typo.
func closest(key string, known []string) string {
	best, bestD := "", -1
	for _, k := range known {
		if k == key {
			continue
		}
		d := editdist.Levenshtein(strings.ToLower(key), strings.ToLower(k))
		if bestD < 0 || d < bestD || d == bestD && k < best {
			best, bestD = k, d
		}
	}
	if bestD < 0 || bestD > max(2, len(key)/2) {
		return ""
	}
	return best
}
