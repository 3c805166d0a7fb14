package graph

import (
	"fmt"
	"sort"
	"strings"

	"paddle/core/op"
)

// MetaString formats a meta as "float32[?,3,48,?]" ("float32[*]" for an unknown rank).
func MetaString(m op.Meta) string {
	if m.Shape == nil {
		return m.DType.String() + "[*]"
	}
	parts := make([]string, len(m.Shape))
	for i, d := range m.Shape {
		if d < 0 {
			parts[i] = "?"
		} else {
			parts[i] = fmt.Sprint(d)
		}
	}
	return m.DType.String() + "[" + strings.Join(parts, ",") + "]"
}

// String returns the readable text form of g: one line per input, constant
// (shape only) and node, e.g.
//
//	%y float32[?,8,?,?] = conv2d(%x, $w, $b) {pads=[1 1 1 1] strides=[1 1]}  # Conv_0
//
// Graph inputs and node outputs are %name, constants $name (params marked "param").
func (g *Graph) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "graph %q {\n", g.Name)
	for _, v := range g.Inputs {
		fmt.Fprintf(&b, "  input %%%s %s\n", v.Name, MetaString(v.Meta))
	}
	for _, v := range g.Consts() {
		kind := "const"
		if v.Param {
			kind = "param"
		}
		fmt.Fprintf(&b, "  %s $%s %s\n", kind, v.Name, MetaString(v.Meta))
	}
	for _, n := range g.Nodes {
		b.WriteString("  ")
		for i, v := range n.Out {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %s", ref(v), MetaString(v.Meta))
		}
		fmt.Fprintf(&b, " = %s(", n.Op.Name)
		for i, v := range n.In {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(ref(v))
		}
		b.WriteString(")")
		if s := attrString(n); s != "" {
			b.WriteString(" {" + s + "}")
		}
		if n.Name != "" {
			b.WriteString("  # " + n.Name)
		}
		b.WriteString("\n")
	}
	b.WriteString("  return ")
	for i, v := range g.Outputs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(ref(v))
	}
	b.WriteString("\n}\n")
	return b.String()
}

func ref(v *Value) string {
	if v.Const != nil {
		return "$" + v.Name
	}
	return "%" + v.Name
}

func attrString(n *Node) string {
	keys := make([]string, 0, len(n.Attrs))
	for k := range n.Attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, n.Attrs[k]))
	}
	for _, a := range n.AttrIn {
		parts = append(parts, fmt.Sprintf("%s<-%s(%s)", a.Attr, a.Kind, ref(a.V)))
	}
	for i, b := range n.Branches {
		parts = append(parts, fmt.Sprintf("%s: %d nodes", []string{"then", "else"}[min(i, 1)], len(b.Nodes)))
	}
	if n.ShapeAttrs != nil {
		parts = append(parts, "+shape-dependent")
	}
	return strings.Join(parts, " ")
}
