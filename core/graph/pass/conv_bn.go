package pass

import (
	"math"

	"paddle/core/graph"
	"paddle/core/tensor"
)

// ConvBN folds an inference batch_norm into the conv2d or conv_transpose2d
// that feeds it, directly or through an add of a per-channel constant c
// (shape (1, OC, 1, 1) or (OC, 1, 1); a DB head's transposed conv, its bias
// add and batch norm), when each intermediate has no other reader and the
// weights and statistics are constants: with a = scale/sqrt(var+eps) per
// output channel, w' = w·a and b' = (b + c - mean)·a + bias. The folded
// weight and bias are parameters if the conv weight was.
func ConvBN(g *graph.Graph) error {
	uses := g.Uses()
	prod := g.Producers()
	drop := map[*graph.Node]bool{}
	for _, bn := range g.Nodes {
		if bn.Op.Name != "batch_norm" || uses[bn.In[0]] != 1 {
			continue
		}
		conv := prod[bn.In[0]]
		var add *graph.Node
		var cv []float64
		if conv != nil && conv.Op.Name == "add" {
			add = conv
			conv, cv = nil, nil
			for i, v := range add.In {
				if p := prod[v]; p != nil && (p.Op.Name == "conv2d" || p.Op.Name == "conv_transpose2d") && uses[v] == 1 {
					conv, cv = p, channelConst(add.In[1-i], convOutChannels(p))
				}
			}
			if cv == nil || drop[add] {
				continue
			}
		}
		if conv == nil || (conv.Op.Name != "conv2d" && conv.Op.Name != "conv_transpose2d") || drop[conv] {
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
		oc := convOutChannels(conv)
		scale, bias := bn.In[1].Const.Float64s(), bn.In[2].Const.Float64s()
		mean, vr := bn.In[3].Const.Float64s(), bn.In[4].Const.Float64s()
		if len(scale) != oc {
			continue
		}
		eps := bn.Attrs.Float("epsilon", 1e-5)
		wv := w.Const.Contiguous().Float64s()
		chanOf := weightChannel(conv)
		k := make([]float64, oc)
		nb := make([]float64, oc)
		var bv []float64
		if b != nil {
			bv = b.Const.Float64s()
		}
		for c := range oc {
			k[c] = scale[c] / math.Sqrt(vr[c]+eps)
			b0 := 0.0
			if bv != nil {
				b0 = bv[c]
			}
			if cv != nil {
				b0 += cv[c]
			}
			nb[c] = (b0-mean[c])*k[c] + bias[c]
		}
		for i := range wv {
			wv[i] *= k[chanOf(i)]
		}
		d := w.Const.DType()
		nw := &graph.Value{Name: w.Name + "/bn", Const: tensor.FromSlice(wv, w.Const.Shape()...).Cast(d), Param: w.Param}
		nw.Meta = graph.ConstMeta(nw.Const)
		nbv := &graph.Value{Name: conv.Out[0].Name + "/bn_bias", Const: tensor.FromSlice(nb, oc).Cast(d), Param: w.Param}
		nbv.Meta = graph.ConstMeta(nbv.Const)
		conv.In = []*graph.Value{conv.In[0], nw, nbv}
		replaceUses(g, bn.Out[0], conv.Out[0])
		drop[bn] = true
		if add != nil {
			drop[add] = true
		}
	}
	removeNodes(g, drop)
	return nil
}

// convOutChannels is the output channel count of a conv2d (w: OC, C/g, KH,
// KW) or conv_transpose2d (w: C, OC/g, KH, KW) node.
func convOutChannels(conv *graph.Node) int {
	w := conv.In[1].Const
	if w == nil || w.Rank() != 4 {
		return -1
	}
	if conv.Op.Name == "conv_transpose2d" {
		return w.Dim(1) * conv.Attrs.Int("groups", 1)
	}
	return w.Dim(0)
}

// weightChannel maps an element index of conv's contiguous weight to the
// output channel it feeds.
func weightChannel(conv *graph.Node) func(i int) int {
	w := conv.In[1].Const
	if conv.Op.Name != "conv_transpose2d" {
		per := w.Len() / w.Dim(0)
		return func(i int) int { return i / per }
	}
	cin, ocg, kk := w.Dim(0), w.Dim(1), w.Dim(2)*w.Dim(3)
	cg := cin / conv.Attrs.Int("groups", 1)
	return func(i int) int { return i/(ocg*kk)/cg*ocg + i/kk%ocg }
}

// channelConst returns v's values when v is a float constant of shape
// (1, oc, 1, 1) or (oc, 1, 1), else nil.
func channelConst(v *graph.Value, oc int) []float64 {
	if v.Const == nil || !v.Const.DType().IsFloat() || oc < 1 || v.Const.Len() != oc {
		return nil
	}
	s := v.Const.Shape()
	if !s.Equal(tensor.Shape{1, oc, 1, 1}) && !s.Equal(tensor.Shape{oc, 1, 1}) {
		return nil
	}
	return v.Const.Contiguous().Float64s()
}
