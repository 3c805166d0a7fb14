package pass

import (
	"math"

	"paddle/core/graph"
)

// Identity removes nodes that return their input unchanged: a cast to the
// input's dtype, an identity transpose, adding or subtracting a scalar 0,
// multiplying or dividing by a scalar 1, an all-zero pad, an unsqueeze of
// no axes and a clip to (-inf, inf). Only rank-0 constants count as
// scalars, since anything else could broadcast the input to a larger shape.
func Identity(g *graph.Graph) error {
	drop := map[*graph.Node]bool{}
	for _, n := range g.Nodes {
		if len(n.Out) != 1 || len(n.In) == 0 || len(n.AttrIn) > 0 || n.ShapeAttrs != nil || n.Branches != nil {
			continue
		}
		if src := noopSource(n); src != nil {
			replaceUses(g, n.Out[0], src)
			drop[n] = true
		}
	}
	removeNodes(g, drop)
	return nil
}

// isScalar reports whether v is a rank-0 constant equal to x.
func isScalar(v *graph.Value, x float64) bool {
	return v.Const != nil && v.Const.Rank() == 0 && v.Const.Item() == x
}

// noopSource returns the value n passes through, or nil.
func noopSource(n *graph.Node) *graph.Value {
	a := n.Attrs
	x := n.In[0]
	switch n.Op.Name {
	case "cast":
		if a.Str("dtype", "") == x.Meta.DType.String() {
			return x
		}
	case "transpose":
		perm := a.Ints("perm", nil)
		if perm == nil {
			return nil
		}
		for i, p := range perm {
			if i != p {
				return nil
			}
		}
		return x
	case "add":
		if isScalar(n.In[1], 0) && n.In[1].Meta.DType == x.Meta.DType {
			return x
		}
		if isScalar(x, 0) && x.Meta.DType == n.In[1].Meta.DType {
			return n.In[1]
		}
	case "sub":
		if isScalar(n.In[1], 0) {
			return x
		}
	case "mul":
		if isScalar(n.In[1], 1) {
			return x
		}
		if isScalar(x, 1) {
			return n.In[1]
		}
	case "div":
		if isScalar(n.In[1], 1) {
			return x
		}
	case "pad":
		p := a.Ints("pads", nil)
		if p == nil {
			return nil
		}
		for _, v := range p {
			if v != 0 {
				return nil
			}
		}
		return x
	case "unsqueeze":
		if ax, ok := a["axes"].([]int); ok && len(ax) == 0 {
			return x
		}
	case "clip":
		if math.IsInf(a.Float("min", math.Inf(-1)), -1) && math.IsInf(a.Float("max", math.Inf(1)), 1) {
			return x
		}
	}
	return nil
}
