package dettrain

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	"paddle/core/config"
)

// MergeSchema returns one schema accepting what a or b accepts, for a kit
// whose configs are checked by a (e.g. recognition) or b (detection)
// depending on Architecture.model_type, so `-o` overrides of keys a file
// lacks are known to the kit either way. Sections of different struct types
// are merged field by field (by yaml key; a's field wins a clash); component
// slots list the names of both (a's options win for a name in both). Build
// still validates each config strictly with its own schema.
func MergeSchema(a, b *config.Schema) *config.Schema {
	out := &config.Schema{Sections: map[string]any{}, Components: map[string]map[string]any{}, Selector: a.Selector}
	for k, v := range a.Sections {
		out.Sections[k] = v
	}
	for k, v := range b.Sections {
		if av, ok := out.Sections[k]; ok {
			out.Sections[k] = mergeTypes(av, v)
		} else {
			out.Sections[k] = v
		}
	}
	for _, src := range []*config.Schema{a, b} {
		for pat, names := range src.Components {
			m := out.Components[pat]
			if m == nil {
				m = map[string]any{}
				out.Components[pat] = m
			}
			for _, n := range slices.Sorted(maps.Keys(names)) {
				if _, ok := m[n]; !ok {
					m[n] = names[n]
				}
			}
		}
	}
	return out
}

// mergeTypes returns a pointer-to-zero value naming a struct with the fields
// of both (as (*T)(nil) does), or a when the types are equal or not both structs.
func mergeTypes(a, b any) any {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	if ta == tb || ta.Kind() != reflect.Pointer || tb.Kind() != reflect.Pointer ||
		ta.Elem().Kind() != reflect.Struct || tb.Elem().Kind() != reflect.Struct {
		return a
	}
	var fields []reflect.StructField
	seenKey, seenName := map[string]bool{}, map[string]bool{}
	for _, t := range []reflect.Type{ta.Elem(), tb.Elem()} {
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || f.Anonymous {
				continue
			}
			key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if key == "" || key == "-" || seenKey[key] {
				continue
			}
			for seenName[f.Name] {
				f.Name += "X"
			}
			seenKey[key], seenName[f.Name] = true, true
			f.Index, f.Offset = nil, 0
			fields = append(fields, f)
		}
	}
	return reflect.Zero(reflect.PointerTo(reflect.StructOf(fields))).Interface()
}
