package config

import (
	"maps"
	"reflect"
	"slices"
	"strings"
)

// MergeSchemas returns one schema accepting what any of ss accepts, for a kit
// with several tasks whose configs are each checked by one of them (ocr's
// detection and recognition, speech's spotter, recogniser and classifier), so
// `-o` overrides of keys a file lacks and `paddle config show` know every
// task's keys. Sections of different struct types are merged field by field
// (by yaml key; the earlier schema's field wins a clash); component slots list
// the names of all (the earlier schema's options win for a name in several)
// and the kinds of all ("tagger / model").
// The selector is the first schema's. A task's Build still validates its
// configs strictly with its own schema.
func MergeSchemas(ss ...*Schema) *Schema {
	out := &Schema{Sections: map[string]any{}, Components: map[string]map[string]any{}}
	for i, s := range ss {
		if i == 0 {
			out.Selector = s.Selector
		}
		for k, v := range s.Sections {
			if av, ok := out.Sections[k]; ok {
				out.Sections[k] = mergeTypes(av, v)
			} else {
				out.Sections[k] = v
			}
		}
		for pat, names := range s.Components {
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
		for pat, kind := range s.Kinds {
			if out.Kinds == nil {
				out.Kinds = map[string]string{}
			}
			switch k, ok := out.Kinds[pat]; {
			case !ok:
				out.Kinds[pat] = kind
			case !slices.Contains(strings.Split(k, " / "), kind):
				out.Kinds[pat] = k + " / " + kind // the slot takes each task's kind: "tagger / model"
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
