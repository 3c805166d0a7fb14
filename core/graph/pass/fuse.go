package pass

import (
	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// Fuse merges, where the intermediate has no other reader:
//
//	conv2d(x, w) + b (a constant (1, C, 1, 1) or (C, 1, 1))  → conv2d(x, w, b)
//	  (conv_transpose2d likewise)
//	conv2d → relu | relu6 | clip | hardswish | hardsigmoid | sigmoid  → conv2d_act
//	conv_transpose2d → the same activations  → conv_transpose2d_act
//	matmul(a, B) + c (B a constant matrix, c a constant of length N)  → gemm
//	conv2d_act · s, then + c (scalar constants)  → conv2d_act {scale=s shift=c}
//	x + x·s (an SE block's scaling and residual)  → scale_residual(x, s)
//	conv_transpose2d[_act](conv_transpose2d[_act](x, w1, b1), w2, b2), both
//	  with kernel = stride and no pads  → conv_transpose2d_pair(x, w1, b1, w2, b2)
//	a + resize(b) (nearest)  → add_resize(a, b)
//	quantize_linear(a + b) (one scale and zero point)  → add_quantize(a, b)
//	  (of add_resize likewise: add_quantize with add_resize's attributes)
//	add_resize | add_quantize(scale_residual(x, s), b) (b resized)
//	  → add_resize | add_quantize(x, b, s) {scaled}
//
// conv2d_act and gemm run the same kernels one after the other on one
// output buffer (the activation and the bias add in place), so results are
// bitwise those of the unfused graph, with one intermediate less. They have
// no backward: fuse only graphs meant for inference.
func Fuse(g *graph.Graph) error {
	if err := g.Sort(); err != nil {
		return err
	}
	drop := map[*graph.Node]bool{}
	for _, f := range []func(*graph.Graph, *graph.Node, map[*graph.Value]int, map[*graph.Value]*graph.Node) bool{fuseConvBias, fuseConvAct, fuseActScale, fuseActShift, fuseGemm, fuseScaleResidual, fuseAddResize, fuseAddQuantize, fuseScaledAdd, fuseConvTransposePair} {
		uses, prod := g.Uses(), g.Producers()
		for _, n := range g.Nodes {
			if !drop[n] && f(g, n, uses, prod) {
				drop[n] = true
			}
		}
		removeNodes(g, drop)
		drop = map[*graph.Node]bool{}
	}
	return g.Sort() // add_resize took its resize's place, maybe before the other addend's producer
}

// single returns the producer of n's input i when n is its only reader.
func single(n *graph.Node, i int, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node, opName string) *graph.Node {
	if i >= len(n.In) {
		return nil
	}
	p := prod[n.In[i]]
	if p == nil || p.Op.Name != opName || uses[n.In[i]] != 1 || len(p.AttrIn) > 0 || p.ShapeAttrs != nil {
		return nil
	}
	return p
}

// fuseConvBias: n = add(conv, b) → the conv takes b as its bias.
func fuseConvBias(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	if n.Op.Name != "add" {
		return false
	}
	conv := single(n, 0, uses, prod, "conv2d")
	if conv == nil {
		conv = single(n, 0, uses, prod, "conv_transpose2d")
	}
	b := n.In[1]
	if conv == nil || len(conv.In) != 2 || b.Const == nil || conv.In[1].Const == nil || b.Const.DType() != conv.In[1].Const.DType() {
		return false
	}
	oc := convOutChannels(conv)
	if channelConst(b, oc) == nil {
		return false
	}
	bias := &graph.Value{Name: b.Name + "/bias", Const: b.Const.Contiguous().Reshape(oc), Param: b.Param}
	bias.Meta = graph.ConstMeta(bias.Const)
	conv.In = append(conv.In, bias)
	replaceUses(g, n.Out[0], conv.Out[0])
	return true
}

func fuseConvAct(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	if n.Op.Epilogue == nil || len(n.AttrIn) > 0 {
		return false
	}
	conv, fused := single(n, 0, uses, prod, "conv2d"), conv2dActDef
	if conv == nil {
		conv, fused = single(n, 0, uses, prod, "conv_transpose2d"), convTranspose2dActDef
	}
	if conv == nil {
		return false
	}
	a := op.Attrs{}
	for k, v := range conv.Attrs {
		a[k] = v
	}
	a["act"], a["act_attrs"] = n.Op.Name, n.Attrs
	conv.Op, conv.Attrs = fused, a
	conv.Out[0].Meta = n.Out[0].Meta
	replaceUses(g, n.Out[0], conv.Out[0])
	return true
}

// fuseActScale: n = mul(conv2d_act, s) with a scalar constant s → the
// conv2d_act scales its output (once: a second scale would round differently).
func fuseActScale(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	return fuseActAffine(g, n, uses, prod, "mul", "scale", 1)
}

// fuseActShift: n = add(conv2d_act, c) with a scalar constant c → the
// conv2d_act adds c after its scale.
func fuseActShift(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	return fuseActAffine(g, n, uses, prod, "add", "shift", 0)
}

func fuseActAffine(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node, opName, attr string, unit float64) bool {
	if n.Op.Name != opName || len(n.In) != 2 || len(n.AttrIn) > 0 {
		return false
	}
	for i := range 2 {
		conv, k := single(n, i, uses, prod, "conv2d_act"), n.In[1-i].Const
		if conv == nil || k == nil || k.Len() != 1 || k.Rank() > 1 || k.DType() != n.Out[0].Meta.DType || !k.DType().IsFloat() {
			continue
		}
		if conv.Attrs.Float(attr, unit) != unit || attr == "scale" && conv.Attrs.Float("shift", 0) != 0 {
			continue // keep the unfused order of operations
		}
		a := op.Attrs{}
		for key, v := range conv.Attrs {
			a[key] = v
		}
		a[attr] = k.Contiguous().Float64s()[0]
		conv.Attrs = a
		replaceUses(g, n.Out[0], conv.Out[0])
		return true
	}
	return false
}

func fuseGemm(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	if n.Op.Name != "add" {
		return false
	}
	mm := single(n, 0, uses, prod, "matmul")
	c := n.In[1]
	if mm == nil || c.Const == nil || c.Const.Rank() != 1 {
		return false
	}
	B := mm.In[1].Const
	if B == nil || B.Rank() != 2 || B.DType() != c.Const.DType() {
		return false
	}
	N := B.Dim(1)
	if mm.Attrs.Bool("trans_b", false) {
		N = B.Dim(0)
	}
	if c.Const.Len() != N {
		return false
	}
	mm.Op = gemmDef
	mm.In = append(mm.In, c)
	replaceUses(g, n.Out[0], mm.Out[0])
	return true
}

var conv2dActDef, convTranspose2dActDef, gemmDef = op.Lookup("conv2d_act"), op.Lookup("conv_transpose2d_act"), op.Lookup("gemm")

var convTransposePairDef = op.Lookup("conv_transpose2d_pair")

var scaleResidualDef, addQuantizeDef, addResizeDef = op.Lookup("scale_residual"), op.Lookup("add_quantize"), op.Lookup("add_resize")

// fuseAddResize: n = add(a, resize(b)) (either order) with a nearest
// resize read only by n → the resize becomes add_resize(a, b) (its
// attributes and resized: the index of b in n's inputs).
func fuseAddResize(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	if n.Op.Name != "add" || len(n.In) != 2 || len(n.AttrIn) > 0 || n.Out[0].Meta.DType != tensor.Float32 {
		return false
	}
	for i := range 2 {
		rs := single(n, i, uses, prod, "resize")
		if rs == nil || rs.Attrs.Str("mode", "nearest") != "nearest" || len(rs.In) != 1 {
			continue
		}
		a := op.Attrs{}
		for k, v := range rs.Attrs {
			a[k] = v
		}
		a["resized"] = i
		in := []*graph.Value{n.In[0], n.In[1]}
		in[i] = rs.In[0]
		rs.Op, rs.Attrs, rs.In = addResizeDef, a, in
		rs.Out[0].Meta, rs.Out[0].Name = n.Out[0].Meta, n.Out[0].Name // the sum's name: n goes
		replaceUses(g, n.Out[0], rs.Out[0])
		return true
	}
	return false
}

// fuseAddQuantize: n = quantize_linear(add(a, b)) with one scale and zero
// point, the sum read only by n → the add becomes add_quantize(a, b).
func fuseAddQuantize(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	if n.Op.Name != "quantize_linear" || len(n.AttrIn) > 0 || n.ShapeAttrs != nil ||
		len(n.Attrs.Floats("scale", nil)) != 1 || len(n.Attrs.Ints("zero", []int{0})) != 1 {
		return false
	}
	add := single(n, 0, uses, prod, "add")
	if add == nil {
		add = single(n, 0, uses, prod, "add_resize")
	}
	if add == nil || len(add.In) != 2 {
		return false
	}
	a := op.Attrs{}
	for k, v := range n.Attrs {
		a[k] = v
	}
	if add.Op == addResizeDef {
		for k, v := range add.Attrs {
			a[k] = v
		}
	}
	add.Op, add.Attrs = addQuantizeDef, a
	add.Out[0].Meta, add.Out[0].Name = n.Out[0].Meta, n.Out[0].Name
	replaceUses(g, n.Out[0], add.Out[0])
	return true
}

// fuseScaleResidual: n = add(x, mul(x, s)) (either order of either) with
// the product read only by n → the mul becomes scale_residual(x, s).
func fuseScaleResidual(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	if n.Op.Name != "add" || len(n.In) != 2 || len(n.AttrIn) > 0 || !n.Out[0].Meta.DType.IsFloat() {
		return false
	}
	for i := range 2 {
		m, x := single(n, i, uses, prod, "mul"), n.In[1-i]
		if m == nil || len(m.In) != 2 {
			continue
		}
		for j := range 2 {
			if m.In[j] != x {
				continue
			}
			m.Op, m.Attrs, m.In = scaleResidualDef, nil, []*graph.Value{x, m.In[1-j]}
			m.Out[0].Meta, m.Out[0].Name = n.Out[0].Meta, n.Out[0].Name // the sum's name: n goes
			replaceUses(g, n.Out[0], m.Out[0])
			return true
		}
	}
	return false
}

// fuseScaledAdd: n = add_resize or add_quantize (one addend resized) whose
// other addend is scale_residual(x, s) read only by n → n becomes the
// scale_residual node's op with attribute scaled and inputs (x, b, s) in
// n's addend order (the SE block's scaled map is never written: PP-OCRv4
// det's neck, 96×240×240 floats at 960).
func fuseScaledAdd(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	if n.Op != addResizeDef && n.Op != addQuantizeDef || len(n.In) != 2 || len(n.AttrIn) > 0 || n.ShapeAttrs != nil {
		return false
	}
	r := n.Attrs.Int("resized", -1)
	if r < 0 || r > 1 || n.Attrs.Int("scaled", -1) >= 0 {
		return false
	}
	k := 1 - r
	sr := single(n, k, uses, prod, "scale_residual")
	if sr == nil || len(sr.In) != 2 {
		return false
	}
	a := op.Attrs{}
	for key, v := range n.Attrs {
		a[key] = v
	}
	a["scaled"] = k
	in := []*graph.Value{n.In[0], n.In[1], sr.In[1]}
	in[k] = sr.In[0]
	sr.Op, sr.Attrs, sr.In = n.Op, a, in
	sr.Out[0].Meta, sr.Out[0].Name = n.Out[0].Meta, n.Out[0].Name // the sum's name: n goes
	replaceUses(g, n.Out[0], sr.Out[0])
	return true
}

// fuseConvTransposePair: n = conv_transpose2d_act(m, w2, b2) with m =
// conv_transpose2d_act(x, w1, b1) read only by n (either also a plain
// conv_transpose2d), both with a bias, one
// group, kernel = stride and no pads (a DB head's 2×2 stride-2 pair) → m
// becomes conv_transpose2d_pair(x, w1, b1, w2, b2) {first, second: their
// attributes}.
func fuseConvTransposePair(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	if n.Op != convTranspose2dActDef && n.Op.Name != "conv_transpose2d" || !blockConv(n) {
		return false
	}
	m := single(n, 0, uses, prod, "conv_transpose2d_act")
	if m == nil {
		m = single(n, 0, uses, prod, "conv_transpose2d")
	}
	if m == nil || !blockConv(m) {
		return false
	}
	m.Op, m.Attrs = convTransposePairDef, op.Attrs{"first": m.Attrs, "second": n.Attrs}
	m.In = []*graph.Value{m.In[0], m.In[1], m.In[2], n.In[1], n.In[2]}
	m.Out[0].Meta, m.Out[0].Name = n.Out[0].Meta, n.Out[0].Name // the output's name: n goes
	replaceUses(g, n.Out[0], m.Out[0])
	return true
}

// blockConv reports whether transposed conv n has a bias, one group,
// unit dilations, no pads, no output padding or shape and a 4-d kernel
// equal to its strides: each output element is one tap of one input pixel.
func blockConv(n *graph.Node) bool {
	if len(n.In) != 3 || len(n.AttrIn) > 0 || n.ShapeAttrs != nil || n.Attrs.Int("groups", 1) != 1 {
		return false
	}
	ws := n.In[1].Meta.Shape
	if len(ws) != 4 {
		return false
	}
	st := n.Attrs.Ints("strides", []int{1, 1})
	if len(st) != 2 || st[0] != ws[2] || st[1] != ws[3] || ws[2]*ws[3] == 1 {
		return false
	}
	for _, k := range []string{"pads", "output_padding"} {
		for _, v := range n.Attrs.Ints(k, nil) {
			if v != 0 {
				return false
			}
		}
	}
	for _, v := range n.Attrs.Ints("dilations", nil) {
		if v != 1 {
			return false
		}
	}
	_, shaped := n.Attrs["output_shape"]
	return !shaped
}
