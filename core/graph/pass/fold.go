package pass

import (
	"fmt"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// Fold evaluates every node whose inputs (and shape-valued inputs) are all
// constants that are not parameters, turning its outputs into constants.
// Parameters are left alone so an imported graph stays trainable. Nodes
// whose outputs are graph outputs are folded too.
func Fold(g *graph.Graph) error {
	if err := g.Sort(); err != nil {
		return err
	}
	drop := map[*graph.Node]bool{}
	for _, n := range g.Nodes {
		ok := len(n.Out) > 0 && n.Op != graph.IfOp
		for _, v := range n.Inputs() {
			ok = ok && v.Const != nil && !v.Param
		}
		if !ok {
			continue
		}
		outs, err := evalNode(n)
		if err != nil {
			return err
		}
		for i, v := range n.Out {
			v.Const, v.Meta = outs[i], graph.ConstMeta(outs[i])
		}
		drop[n] = true
	}
	removeNodes(g, drop)
	return nil
}

// evalNode runs n on its constant inputs.
func evalNode(n *graph.Node) (out []*tensor.Tensor, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("node %s: %v", n.Label(), r)
		}
	}()
	in := make([]*tensor.Tensor, len(n.In))
	metas := make([]op.Meta, len(n.In))
	for i, v := range n.In {
		in[i] = v.Const.Contiguous()
		metas[i] = graph.ConstMeta(v.Const)
	}
	vals := make([]*tensor.Tensor, len(n.AttrIn))
	for i, a := range n.AttrIn {
		vals[i] = a.V.Const
	}
	attrs, err := graph.ResolveAttrs(n, vals, metas)
	if err != nil {
		return nil, err
	}
	om, err := n.Op.InferMeta(metas, attrs)
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", n.Label(), err)
	}
	out = make([]*tensor.Tensor, len(om))
	for i, m := range om {
		out[i] = tensor.New(m.DType, m.Shape...)
	}
	op.Run(n.Op, out, in, attrs)
	return out, nil
}
