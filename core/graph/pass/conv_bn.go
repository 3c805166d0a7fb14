package pass

import (
	"math"

	"paddle/core/graph"
	"paddle/core/tensor"
)

// ConvBN folds an inference batch_norm into the conv2d that feeds it (when
// the conv's output has no other reader and the weights and statistics are
// constants): with a = scale/sqrt(var+eps) per output channel,
// w' = w·a and b' = (b - mean)·a + bias. The folded weight and bias are
// parameters if the conv weight was.
func ConvBN(g *graph.Graph) error {
	uses := g.Uses()
	prod := g.Producers()
	drop := map[*graph.Node]bool{}
	for _, bn := range g.Nodes {
		if bn.Op.Name != "batch_norm" {
			continue
		}
		conv := prod[bn.In[0]]
		if conv == nil || conv.Op.Name != "conv2d" || uses[bn.In[0]] != 1 || drop[conv] {
			continue
		}
		w := conv.In[1]
		if w.Const == nil || !w.Const.DType().IsFloat() {
			continue
		}
		ok := true
		for _, v := range bn.In[1:] {
			ok = ok && v.Const != nil && v.Const.DType() == w.Const.DType()
		}
		var b *graph.Value
		if len(conv.In) == 3 {
			b = conv.In[2]
			ok = ok && b.Const != nil
		}
		if !ok {
			continue
		}
		oc := w.Const.Dim(0)
		scale, bias := bn.In[1].Const.Float64s(), bn.In[2].Const.Float64s()
		mean, vr := bn.In[3].Const.Float64s(), bn.In[4].Const.Float64s()
		eps := bn.Attrs.Float("epsilon", 1e-5)
		wv := w.Const.Contiguous().Float64s()
		per := len(wv) / oc
		nb := make([]float64, oc)
		var bv []float64
		if b != nil {
			bv = b.Const.Float64s()
		}
		for c := range oc {
			k := scale[c] / math.Sqrt(vr[c]+eps)
			for i := range per {
				wv[c*per+i] *= k
			}
			b0 := 0.0
			if bv != nil {
				b0 = bv[c]
			}
			nb[c] = (b0-mean[c])*k + bias[c]
		}
		d := w.Const.DType()
		nw := &graph.Value{Name: w.Name + "/bn", Const: tensor.FromSlice(wv, w.Const.Shape()...).Cast(d), Param: w.Param}
		nw.Meta = graph.ConstMeta(nw.Const)
		nbv := &graph.Value{Name: conv.Out[0].Name + "/bn_bias", Const: tensor.FromSlice(nb, oc).Cast(d), Param: w.Param}
		nbv.Meta = graph.ConstMeta(nbv.Const)
		conv.In = []*graph.Value{conv.In[0], nw, nbv}
		out := bn.Out[0]
		replaceUses(g, out, conv.Out[0])
		drop[bn] = true
	}
	removeNodes(g, drop)
	return nil
}
