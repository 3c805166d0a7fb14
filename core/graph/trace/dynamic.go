package trace

import (
	"fmt"
	"strings"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// toEnd is the slice end that means "to the end of the axis" whatever its length.
const toEnd = 1 << 62

// dimGroup is one dynamic dimension (all input dims of one name): its size
// in the example (a) and in the probe (b).
type dimGroup struct {
	name string
	a, b int
}

// makeDynamic marks the declared dynamic input dimensions in g: it
// propagates shapes with every dynamic size changed, rewriting reshapes and
// slices that would otherwise hold the example's sizes, and sets each
// value's Meta to -1 where its size follows a dynamic input dimension.
func makeDynamic(g *graph.Graph, specs []InputSpec) error {
	var groups []*dimGroup
	byName := map[string]*dimGroup{}
	metaB := map[*graph.Value]op.Meta{}
	for i, s := range specs {
		v := g.Inputs[i]
		shapeB := append(tensor.Shape(nil), v.Meta.Shape...)
		v.DimNames = make([]string, len(s.Shape))
		for j, d := range s.Shape {
			if d >= 0 {
				continue
			}
			name := ""
			if j < len(s.DimNames) {
				name = s.DimNames[j]
			}
			grp := byName[name]
			if grp == nil || name == "" {
				grp = &dimGroup{name: name, a: v.Meta.Shape[j], b: v.Meta.Shape[j] + len(groups) + 1}
				groups = append(groups, grp)
				if name != "" {
					byName[name] = grp
				}
			}
			if grp.a != v.Meta.Shape[j] {
				return fmt.Errorf("trace: dimension %q is %d in input %q and %d elsewhere", name, v.Meta.Shape[j], s.Name, grp.a)
			}
			shapeB[j] = grp.b
			v.DimNames[j] = name
		}
		metaB[v] = op.Meta{DType: v.Meta.DType, Shape: shapeB}
	}
	if len(groups) == 0 {
		for _, v := range g.Inputs {
			v.DimNames = nil
		}
		return nil
	}
	metaOf := func(v *graph.Value, m map[*graph.Value]op.Meta) op.Meta {
		if v.Const != nil {
			return graph.ConstMeta(v.Const)
		}
		if mm, ok := m[v]; ok {
			return mm
		}
		return v.Meta
	}
	for _, n := range g.Nodes {
		inA := make([]op.Meta, len(n.In))
		inB := make([]op.Meta, len(n.In))
		for i, v := range n.In {
			inA[i], inB[i] = v.Meta, metaOf(v, metaB)
			if v.Const != nil {
				inA[i] = inB[i]
			}
		}
		outB, err := probe(n, inA, inB)
		if err != nil {
			return fmt.Errorf("trace: the dynamic dimensions (%s) do not carry through node %s: %w (declare them static or change the layer)",
				groupNames(groups), n.Label(), err)
		}
		for i, o := range n.Out {
			metaB[o] = outB[i]
		}
	}
	outputs := map[*graph.Value]bool{}
	for _, o := range g.Outputs {
		outputs[o] = true
	}
	// every value's Meta: -1 where the probe changed the size; graph
	// outputs name the dims that follow a named input dim
	for _, n := range g.Nodes {
		for _, o := range n.Out {
			b := metaB[o].Shape
			s := append(tensor.Shape(nil), o.Meta.Shape...)
			var names []string
			for i := range s {
				name := ""
				if s[i] != b[i] {
					for _, grp := range groups {
						if grp.name != "" && grp.a == s[i] && grp.b == b[i] {
							name = grp.name
						}
					}
					s[i] = -1
				}
				names = append(names, name)
			}
			o.Meta.Shape = s
			if outputs[o] {
				o.DimNames = names
			}
		}
	}
	for i, v := range g.Inputs {
		for j, d := range specs[i].Shape {
			if d < 0 {
				v.Meta.Shape[j] = -1
			}
		}
	}
	return nil
}

func groupNames(gs []*dimGroup) string {
	var s []string
	for _, g := range gs {
		n := g.name
		if n == "" {
			n = "unnamed"
		}
		s = append(s, n)
	}
	return strings.Join(s, ", ")
}

// probe rewrites n's size attributes where they hold a dynamic size of the
// example (reshape, slice) and returns its output metas at the probe sizes.
func probe(n *graph.Node, inA, inB []op.Meta) ([]op.Meta, error) {
	switch n.Op.Name {
	case "reshape":
		if err := dynReshape(n, inA[0].Shape, inB[0].Shape, n.Out[0].Meta.Shape); err != nil {
			return nil, err
		}
	case "slice":
		dynSlice(n, inA[0].Shape, inB[0].Shape)
	}
	attrs := n.Attrs
	if n.Dynamic() {
		vals := make([]*tensor.Tensor, len(n.AttrIn))
		for i, ai := range n.AttrIn {
			vals[i] = ai.V.Const
		}
		var err error
		if attrs, err = graph.ResolveAttrs(n, vals, inB); err != nil {
			return nil, err
		}
	}
	out, err := n.Op.Infer(inB, attrs)
	if err != nil {
		return nil, err
	}
	if len(out) != len(n.Out) {
		return nil, fmt.Errorf("%d outputs, traced %d", len(out), len(n.Out))
	}
	for i, o := range out {
		if len(o.Shape) != len(n.Out[i].Meta.Shape) {
			return nil, fmt.Errorf("output %d has shape %v, traced %v", i, o.Shape, n.Out[i].Meta.Shape)
		}
	}
	return out, nil
}

// dynReshape makes a reshape follow dynamic input dimensions: an output
// dimension equal to a dynamic input dimension at the same position copies
// it (ONNX's 0), and when the rest no longer fits, the one remaining free
// dimension becomes -1.
func dynReshape(n *graph.Node, inA, inB, outA tensor.Shape) error {
	if inA.Equal(inB) {
		return nil
	}
	s := append([]int(nil), n.Attrs.Ints("shape", nil)...)
	if len(s) != len(outA) {
		return fmt.Errorf("reshape to %v gave %v", s, outA)
	}
	copies := false
	for i := range s {
		if i < len(inA) && inA[i] != inB[i] && outA[i] == inA[i] {
			s[i], copies = 0, true
		}
	}
	if !fits(s, inB) {
		free, minus := -1, false
		for i, d := range s {
			minus = minus || d == -1
			if d > 0 {
				if free >= 0 {
					free = -2 // several
				} else if free == -1 {
					free = i
				}
			}
		}
		if minus || free < 0 {
			return fmt.Errorf("reshape of %v to %v: no single dimension can take the dynamic size", inA, outA)
		}
		s[free] = -1
	}
	if !copies {
		n.Attrs["shape"] = s
		return nil
	}
	delete(n.Attrs, "shape")
	t := make([]int64, len(s))
	for i, d := range s {
		t[i] = int64(d)
	}
	c := tensor.FromSlice(t, len(t))
	n.AttrIn = append(n.AttrIn, graph.AttrIn{Attr: "shape", Kind: graph.AttrReshape,
		V: &graph.Value{Name: n.Name + "_shape", Meta: graph.ConstMeta(c), Const: c}})
	return nil
}

// fits reports whether reshape spec s (0 copies, one -1) works for input in.
func fits(s []int, in tensor.Shape) bool {
	total, known, minus := in.NumElements(), 1, 0
	for i, d := range s {
		switch {
		case d == 0:
			if i >= len(in) {
				return false
			}
			known *= in[i]
		case d == -1:
			minus++
		default:
			known *= d
		}
	}
	if minus > 1 {
		return false
	}
	if minus == 1 {
		return known > 0 && total%known == 0
	}
	return known == total
}

// dynSlice makes a slice that reaches the end of a dynamic axis reach it
// whatever the axis' length.
func dynSlice(n *graph.Node, inA, inB tensor.Shape) {
	ends := n.Attrs.Ints("ends", nil)
	axes := n.Attrs.Ints("axes", nil)
	steps := n.Attrs.Ints("steps", nil)
	for k := range ends {
		ax := k
		if k < len(axes) {
			ax = axes[k]
		}
		if ax < 0 {
			ax += len(inA)
		}
		step := 1
		if k < len(steps) {
			step = steps[k]
		}
		if ax >= 0 && ax < len(inA) && inA[ax] != inB[ax] && step > 0 && ends[k] >= inA[ax] {
			ends[k] = toEnd
		}
	}
}
