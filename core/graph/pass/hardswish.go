package pass

import (
	"math"

	"paddle/core/graph"
	"paddle/core/op"
)

// Hardswish replaces the spelled-out hardswish that Paddle-to-ONNX exports
//
//	div(mul(x, clip(add(x, 3), 0, 6)), 6)   (mul and add in either order)
//
// by one hardswish node on x, when the intermediates have no other reader.
// The hardswish kernel computes x·min(max(x+3, 0), 6)/6 in the same order,
// so results are bitwise those of the four nodes.
func Hardswish(g *graph.Graph) error {
	if err := g.Sort(); err != nil {
		return err
	}
	uses, prod := g.Uses(), g.Producers()
	hs := op.Lookup("hardswish")
	drop := map[*graph.Node]bool{}
	for _, div := range g.Nodes {
		if div.Op.Name != "div" || len(div.AttrIn) > 0 || !isScalarConst(div.In[1], 6) {
			continue
		}
		mul := single(div, 0, uses, prod, "mul")
		if mul == nil {
			continue
		}
		for i := range 2 {
			clip := single(mul, i, uses, prod, "clip")
			if clip == nil || len(clip.In) != 1 || clip.Attrs.Float("min", math.NaN()) != 0 || clip.Attrs.Float("max", math.NaN()) != 6 {
				continue
			}
			add := single(clip, 0, uses, prod, "add")
			x := mul.In[1-i]
			if add == nil || len(add.AttrIn) > 0 || !(add.In[0] == x && isScalarConst(add.In[1], 3) || add.In[1] == x && isScalarConst(add.In[0], 3)) {
				continue
			}
			if x.Meta.DType != div.Out[0].Meta.DType {
				continue // rank-0 scalars: no broadcasting, but no dtype promotion either
			}
			div.Op, div.Attrs, div.In = hs, nil, []*graph.Value{x}
			drop[mul], drop[clip], drop[add] = true, true, true
			break
		}
	}
	removeNodes(g, drop)
	return nil
}

// isScalarConst reports whether v is a one-element constant of a float dtype
// holding want.
func isScalarConst(v *graph.Value, want float64) bool {
	return v.Const != nil && v.Const.Len() == 1 && v.Const.DType().IsFloat() && v.Const.Rank() == 0 && v.Const.Contiguous().Float64s()[0] == want
}
