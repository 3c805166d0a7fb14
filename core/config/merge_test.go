package config

import (
	"testing"

	"gopkg.in/yaml.v3"
)

func TestMerge(t *testing.T) {
	tests := []struct {
		name, base, over, want string
	}{
		{"maps merge deeply", "a: {b: 1, c: {d: 2, e: 3}}", "a: {c: {e: 4, f: 5}}", "a: {b: 1, c: {d: 2, e: 4, f: 5}}"},
		{"lists replace", "a: [1, 2, 3]", "a: [9]", "a: [9]"},
		{"scalar replaces map", "a: {b: 1}", "a: 2", "a: 2"},
		{"map replaces scalar", "a: 2", "a: {b: 1}", "a: {b: 1}"},
		{"null replaces map", "a: {b: 1}\nc: 1", "a: null", "a: null\nc: 1"},
		{"new keys append in the overlay's order", "x: 1\ny: 2", "z: 3\nw: 4\nx: 5", "x: 5\ny: 2\nz: 3\nw: 4"},
		{"_inherited_ false replaces", "a: {b: 1, c: 2}", "a: {_inherited_: false, c: 3}", "a: {c: 3}"},
		{"_inherited_ true merges", "a: {b: 1, c: 2}", "a: {_inherited_: true, c: 3}", "a: {b: 1, c: 3}"},
		{"list items are not merged", "a: [{b: 1}]", "a: [{c: 2}]", "a: [{c: 2}]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := merge(parseMap(t, tt.base), parseMap(t, tt.over))
			stripInherited(got)
			if g, w := flow(t, got), flow(t, parseMap(t, tt.want)); g != w {
				t.Errorf("merge(%s, %s) = %s, want %s", tt.base, tt.over, g, w)
			}
		})
	}
}

func parseMap(t *testing.T, s string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Content[0]
}

func flow(t *testing.T, n *yaml.Node) string {
	t.Helper()
	var set func(*yaml.Node)
	set = func(n *yaml.Node) {
		n.Style = yaml.FlowStyle
		for _, c := range n.Content {
			set(c)
		}
	}
	set(n)
	out, err := yaml.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
