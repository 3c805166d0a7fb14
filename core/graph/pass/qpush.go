package pass

import (
	"fmt"

	"paddle/core/graph"
	"paddle/core/op"
)

// QPush moves a per-tensor quantize_linear above the ops that only move
// values, where the quantized value is their output's only reader:
//
//	quantize_linear(concat(a, b, ...))  → concat(quantize_linear(a), quantize_linear(b), ...)
//	quantize_linear(resize(y))          → resize(quantize_linear(y))   (mode nearest)
//
// Quantization with one scale and zero point is elementwise, and these ops
// copy elements, so the result is bitwise the same; the concat and resize
// then move bytes instead of floats, and a quantize_linear after an
// upsampling quantizes the small input. PP-OCRv4 det's neck concatenates
// four maps (three upsampled ×8, ×4, ×2) of 24×240×240 floats at 960 only
// to quantize them for the head's conv. It repeats until nothing moves
// (a quantize_linear pushed above a concat can go on above a resize).
func QPush(g *graph.Graph) error {
	for {
		if err := g.Sort(); err != nil {
			return err
		}
		uses, prod := g.Uses(), g.Producers()
		moved := false
		for _, q := range g.Nodes {
			if pushQuantize(g, q, uses, prod) {
				moved = true
				break
			}
		}
		if !moved {
			return nil
		}
	}
}

// pushQuantize moves q above its input's producer when QPush allows it.
func pushQuantize(g *graph.Graph, q *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	if q.Op.Name != "quantize_linear" || len(q.In) != 1 || len(q.AttrIn) > 0 || q.ShapeAttrs != nil ||
		len(q.Attrs.Floats("scale", nil)) != 1 || len(q.Attrs.Ints("zero", []int{0})) != 1 {
		return false
	}
	p := prod[q.In[0]]
	if p == nil || uses[q.In[0]] != 1 || len(p.Out) != 1 || len(p.AttrIn) > 0 || p.ShapeAttrs != nil {
		return false
	}
	data := len(p.In) // the inputs that carry values: all of concat's, resize's first
	switch {
	case p.Op.Name == "concat":
	case p.Op.Name == "resize" && p.Attrs.Str("mode", "nearest") == "nearest":
		data = 1
	default:
		return false
	}
	names := map[string]bool{}
	for _, n := range g.Nodes {
		for _, v := range n.Out {
			names[v.Name] = true
		}
	}
	for i, v := range p.In[:data] {
		name := v.Name + "/q"
		for k := 2; names[name]; k++ {
			name = fmt.Sprintf("%s/q%d", v.Name, k)
		}
		names[name] = true
		qv := &graph.Value{Name: name, Meta: op.Meta{DType: q.Out[0].Meta.DType, Shape: v.Meta.Shape}}
		attrs := op.Attrs{}
		for k, a := range q.Attrs {
			attrs[k] = a
		}
		g.Nodes = append(g.Nodes, &graph.Node{Op: q.Op, Attrs: attrs, In: []*graph.Value{v}, Out: []*graph.Value{qv}, Name: q.Name + "/" + p.Name})
		p.In[i] = qv
	}
	p.Out[0].Meta = q.Out[0].Meta
	replaceUses(g, q.Out[0], p.Out[0])
	removeNodes(g, map[*graph.Node]bool{q: true})
	return true
}
