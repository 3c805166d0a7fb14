package onnx

import (
	"fmt"

	"paddle/core/graph"
	"paddle/core/onnx/onnxpb"
	"paddle/core/op"
	"paddle/core/tensor"
)

// If and Size. An If becomes a graph.IfOp node holding both branches as
// graphs; the pass inline_if splices in the branch a constant condition
// selects, and the runtime runs the other cases branch by branch.

func init() {
	builders["If"] = buildIf
	builders["Size"] = func(c *ctx) error {
		s := c.emit1("shape", nil, tensor.Int64, c.in(0))
		f := c.emit1("cast", op.Attrs{"dtype": "float64"}, tensor.Float64, s)
		p := c.emit1("prod", op.Attrs{"keepdims": false}, tensor.Float64, f)
		c.emit("cast", op.Attrs{"dtype": "int64"}, []*graph.Value{p}, c.out(0, tensor.Int64))
		return nil
	}
}

func buildIf(c *ctx) error {
	a := map[string]*onnxpb.Graph{}
	for _, at := range c.n.Attribute {
		if at.Type == onnxpb.AttrGraph {
			a[at.Name] = at.G
		}
	}
	if a["then_branch"] == nil || a["else_branch"] == nil {
		return fmt.Errorf("want then_branch and else_branch graphs")
	}
	var subs []*importer
	for _, k := range []string{"then_branch", "else_branch"} {
		sub := &importer{opset: c.im.opset, g: &graph.Graph{Name: c.n.Name + "/" + k}, vals: map[string]*graph.Value{},
			params: c.im.params, parent: c.im, tmp: c.im.tmp}
		if err := sub.graph(a[k]); err != nil {
			return err
		}
		if err := sub.g.Sort(); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		c.im.tmp = sub.tmp
		subs = append(subs, sub)
	}
	then, els := subs[0].g, subs[1].g
	if len(then.Outputs) != len(els.Outputs) || len(then.Outputs) < c.nout() {
		return fmt.Errorf("branches have %d and %d outputs, the node %d", len(then.Outputs), len(els.Outputs), c.nout())
	}
	// the node reads the union of both branches' captures; each branch gets
	// an input per union entry (unused where it did not capture it)
	var outer []*graph.Value
	index := map[*graph.Value]int{}
	for _, s := range subs {
		for _, pv := range s.captured {
			if _, ok := index[pv]; !ok {
				index[pv] = len(outer)
				outer = append(outer, pv)
			}
		}
	}
	for _, s := range subs {
		ins := make([]*graph.Value, len(outer))
		for i, pv := range s.captured {
			ins[index[pv]] = s.g.Inputs[i]
		}
		for i, v := range ins {
			if v == nil {
				ins[i] = &graph.Value{Name: outer[i].Name, Meta: outer[i].Meta}
			}
		}
		s.g.Inputs = ins
	}
	out := make([]*graph.Value, len(then.Outputs))
	for i := range out {
		out[i] = c.out(i, then.Outputs[i].Meta.DType)
	}
	c.im.g.Nodes = append(c.im.g.Nodes, &graph.Node{Op: graph.IfOp, Attrs: op.Attrs{}, Name: c.n.Name,
		In: append([]*graph.Value{c.in(0)}, outer...), Out: out, Branches: []*graph.Graph{then, els}})
	return nil
}
