package pass

import (
	"paddle/core/graph"
	"paddle/core/tensor"
)

// ConvAffine folds a scalar scale or shift applied to a conv2d's output
// into the conv's weight and bias (when the conv's output has no other
// reader and its weight, bias and the scalar are constants):
//
//	mul(conv2d(x, w, b), s) → conv2d(x, w·s, b·s)
//	add(conv2d(x, w, b), c) → conv2d(x, w, b+c)
//
// PP-LCNetV3 (PP-OCRv4's backbone) ends each conv with such a "learnable
// affine block"; folding it drops two elementwise passes per conv. The
// folded weight and bias are parameters if the conv weight was. Results
// differ from the unfused graph by float32 rounding only.
func ConvAffine(g *graph.Graph) error {
	if err := g.Sort(); err != nil {
		return err
	}
	drop := map[*graph.Node]bool{}
	uses, prod := g.Uses(), g.Producers()
	for _, n := range g.Nodes {
		if n.Op.Name != "mul" && n.Op.Name != "add" || len(n.In) != 2 || len(n.AttrIn) > 0 {
			continue
		}
		for i := range 2 {
			s := n.In[1-i].Const
			conv := single(n, i, uses, prod, "conv2d")
			if conv == nil || drop[conv] || s == nil || s.Len() != 1 || len(conv.In) < 2 {
				continue
			}
			w := conv.In[1].Const
			if w == nil || w.DType() != s.DType() || !w.DType().IsFloat() || len(conv.In) == 3 && conv.In[2].Const == nil {
				continue
			}
			if s.Rank() > 1 {
				continue // conv outputs have rank ≥ 3: a rank ≤ 1 scalar keeps their shape
			}
			foldAffine(conv, n.Op.Name == "mul", s.Contiguous().Float64s()[0])
			replaceUses(g, n.Out[0], conv.Out[0])
			uses[conv.Out[0]] = uses[n.Out[0]]
			drop[n] = true
			break
		}
	}
	removeNodes(g, drop)
	return nil
}

// foldAffine rewrites conv's weight and bias for y·k (mul) or y+k.
func foldAffine(conv *graph.Node, mul bool, k float64) {
	w := conv.In[1]
	d, oc := w.Const.DType(), w.Const.Dim(0)
	b := make([]float64, oc)
	if len(conv.In) == 3 {
		b = conv.In[2].Const.Contiguous().Float64s()
	}
	nw := w
	if mul {
		var nc *tensor.Tensor
		if d == tensor.Float32 { // the same rounding as below, without float64 copies
			src := w.Const.Contiguous().F32()
			wv := make([]float32, len(src))
			for i, v := range src {
				wv[i] = float32(float64(v) * k)
			}
			nc = tensor.FromSlice(wv, w.Const.Shape()...)
		} else {
			wv := w.Const.Contiguous().Float64s()
			for i := range wv {
				wv[i] *= k
			}
			nc = tensor.FromSlice(wv, w.Const.Shape()...).Cast(d)
		}
		for i := range b {
			b[i] *= k
		}
		nw = &graph.Value{Name: w.Name + "/scaled", Const: nc, Param: w.Param}
		nw.Meta = graph.ConstMeta(nw.Const)
	} else {
		for i := range b {
			b[i] += k
		}
	}
	nb := &graph.Value{Name: conv.Out[0].Name + "/affine_bias", Const: tensor.FromSlice(b, oc).Cast(d), Param: w.Param}
	nb.Meta = graph.ConstMeta(nb.Const)
	conv.In = []*graph.Value{conv.In[0], nw, nb}
}
