package pass

import (
	"math"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// QDQ folds the quantize/dequantize pairs of a QDQ model around its
// convolutions and matrix products into the int8 ops (qconv2d, qgemm):
//
//	conv2d(dequantize_linear(xq), dequantize_linear(W), [bias])
//	  [→ relu | relu6 | clip | hardswish | sigmoid] [→ mul(scalar)] [→ add(scalar)]
//	  [→ quantize_linear]
//	matmul(dequantize_linear(xq), dequantize_linear(W))
//	  [→ add(bias)] [→ activation] [→ mul(scalar)] [→ add(scalar)] [→ quantize_linear]
//
// where xq is uint8 or int8 with one scale and zero point, W an int8/uint8
// constant quantized per tensor or per output channel (conv2d: axis 0;
// matmul: the N axis) and the bias a float32 constant of one value per
// output channel or the dequantize_linear of an int32 constant. The int8
// op reads xq, multiplies exactly in int32 and runs the epilogue (scale,
// bias, activation, and the output quantize_linear's requantization when
// the result's only reader is one; else it dequantizes to float32). The
// activation and quantize nodes are taken into the op when the value
// between has no other reader.
//
// Outputs are those of the unfolded graph up to float rounding: at most
// one step of the output quantization where it is requantized. The
// dequantize_linear nodes left without readers go in DCE; a weight's
// dequantize_linear that did not fold is a constant for FoldShapes and
// Fold, so this pass runs before them.
func QDQ(g *graph.Graph) error {
	if err := g.Sort(); err != nil {
		return err
	}
	uses, prod := g.Uses(), g.Producers()
	readers := map[*graph.Value]*graph.Node{}
	for _, n := range g.Nodes {
		for _, v := range n.Inputs() {
			readers[v] = n
		}
	}
	drop := map[*graph.Node]bool{}
	for _, n := range g.Nodes {
		if drop[n] || n.Dynamic() {
			continue
		}
		switch n.Op.Name {
		case "conv2d":
			foldQConv(n, uses, prod, readers, drop)
		case "matmul":
			foldQGemm(n, uses, prod, readers, drop)
		}
	}
	removeNodes(g, drop)
	return nil
}

// qdqIn is a value read through a dequantize_linear.
type qdqIn struct {
	q     *graph.Value // the quantized value
	scale []float64
	zero  []int
	axis  int // -1 when per tensor
}

// dequantized returns v's quantized source when v is the output of a
// dequantize_linear of a uint8/int8 value, else nil.
func dequantized(v *graph.Value, prod map[*graph.Value]*graph.Node) *qdqIn {
	p := prod[v]
	if p == nil || p.Op.Name != "dequantize_linear" || p.Dynamic() {
		return nil
	}
	if d := p.In[0].Meta.DType; d != tensor.Uint8 && d != tensor.Int8 {
		return nil
	}
	sc, z := p.Attrs.Floats("scale", nil), p.Attrs.Ints("zero", []int{0})
	if len(sc) == 0 {
		return nil
	}
	in := &qdqIn{q: p.In[0], scale: sc, zero: z, axis: -1}
	if len(sc) > 1 || len(z) > 1 {
		in.axis = p.Attrs.Int("axis", 1)
		if r := len(p.In[0].Meta.Shape); in.axis < 0 && r > 0 {
			in.axis += r
		}
	}
	return in
}

// perChannel expands a per-tensor or per-axis (along axis) scale and zero
// point to n values; ok is false when the quantization is along another axis.
func (d *qdqIn) perChannel(axis, n int) (scale []float64, zero []int, ok bool) {
	if d.axis >= 0 && d.axis != axis {
		return nil, nil, false
	}
	scale, zero = make([]float64, n), make([]int, n)
	for c := range n {
		scale[c], zero[c] = d.scale[min(c, len(d.scale)-1)], d.zero[min(c, len(d.zero)-1)]
	}
	if len(d.scale) != 1 && len(d.scale) != n || len(d.zero) != 1 && len(d.zero) != n {
		return nil, nil, false
	}
	return scale, zero, true
}

// floatBias returns v as n float32 values when it is a float constant of n
// values shaped (n), (1, n), (1, 1, n)... or the dequantize_linear of such
// an int32 constant, else nil.
func floatBias(v *graph.Value, n int, prod map[*graph.Value]*graph.Node) *tensor.Tensor {
	lastAxis := func(t *tensor.Tensor) bool {
		s := t.Shape()
		return t.Len() == n && len(s) > 0 && s[len(s)-1] == n
	}
	if v.Const != nil {
		if !v.Const.DType().IsFloat() || !lastAxis(v.Const) {
			return nil
		}
		return v.Const.Contiguous().Cast(tensor.Float32).Reshape(n)
	}
	p := prod[v]
	if p == nil || p.Op.Name != "dequantize_linear" || p.Dynamic() || p.In[0].Const == nil || !lastAxis(p.In[0].Const) {
		return nil
	}
	sc, z := p.Attrs.Floats("scale", nil), p.Attrs.Ints("zero", []int{0})
	if len(sc) != 1 && len(sc) != n || len(z) != 1 && len(z) != n {
		return nil
	}
	q := p.In[0].Const.Contiguous().Float64s()
	b := tensor.New(tensor.Float32, n)
	for c := range n {
		b.F32()[c] = float32((q[c] - float64(z[min(c, len(z)-1)])) * sc[min(c, len(sc)-1)])
	}
	return b
}

// epilogue follows v (the product's float output) through an optional
// bias add (matmul only: bias != nil is wanted), an activation and a
// quantize_linear, each taken when v's only reader is it. It returns the
// qgemm/qconv2d attributes for them, the value the folded op produces and
// the nodes it replaces.
type epilogue struct {
	attrs op.Attrs
	bias  *tensor.Tensor
	out   *graph.Value
	nodes []*graph.Node
}

func followEpilogue(v *graph.Value, n int, wantBias bool, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node, readers map[*graph.Value]*graph.Node) epilogue {
	e := epilogue{attrs: op.Attrs{"out": tensor.Float32.String()}, out: v}
	next := func() *graph.Node {
		if uses[e.out] != 1 {
			return nil
		}
		r := readers[e.out]
		if r == nil || r.Dynamic() || len(r.Out) != 1 {
			return nil
		}
		return r
	}
	if r := next(); wantBias && r != nil && r.Op.Name == "add" && len(r.In) == 2 && r.In[0] == e.out && sameRank(r.In[1], e.out, prod) {
		if b := floatBias(r.In[1], n, prod); b != nil {
			e.bias, e.out, e.nodes = b, r.Out[0], append(e.nodes, r)
		}
	}
	if r := next(); r != nil {
		act, lo, hi := "", math.Inf(-1), math.Inf(1)
		switch r.Op.Name {
		case "relu", "hardswish", "sigmoid":
			act = r.Op.Name
		case "relu6":
			act, lo, hi = "clip", 0, 6
		case "clip":
			act, lo, hi = "clip", r.Attrs.Float("min", math.Inf(-1)), r.Attrs.Float("max", math.Inf(1))
		}
		if act != "" {
			e.attrs["act"] = act
			if act == "clip" {
				e.attrs["act_min"], e.attrs["act_max"] = lo, hi
			}
			e.out, e.nodes = r.Out[0], append(e.nodes, r)
		}
	}
	// a scalar affine after the activation (PP-LCNetV3's learnable affine
	// blocks: hardswish, ·a, +b)
	for _, name := range []string{"mul", "add"} {
		if r := next(); r != nil && r.Op.Name == name && len(r.In) == 2 {
			if c, ok := scalarOperand(r, e.out, prod); ok {
				e.attrs["post_"+name] = c
				e.out, e.nodes = r.Out[0], append(e.nodes, r)
			}
		}
	}
	if r := next(); r != nil && r.Op.Name == "quantize_linear" {
		sc, z := r.Attrs.Floats("scale", nil), r.Attrs.Ints("zero", []int{0})
		if len(sc) == 1 && len(z) == 1 {
			e.attrs["out"], e.attrs["y_scale"], e.attrs["y_zero"] = r.Out[0].Meta.DType.String(), sc[0], z[0]
			e.out, e.nodes = r.Out[0], append(e.nodes, r)
		}
	}
	return e
}

// scalarOperand returns the other operand of the binary node r, one of
// whose inputs is x, when it is a float32 constant of one element that
// does not raise x's rank.
func scalarOperand(r *graph.Node, x *graph.Value, prod map[*graph.Value]*graph.Node) (float64, bool) {
	c := r.In[1]
	switch x {
	case r.In[0]:
	case r.In[1]:
		c = r.In[0]
	default:
		return 0, false
	}
	if c == x || c.Const == nil || c.Const.DType() != tensor.Float32 || c.Const.Len() != 1 || !sameRank(c, x, prod) {
		return 0, false
	}
	return float64(c.Const.Contiguous().F32()[0]), true
}

// sameRank reports whether adding bias b to x (rank ≥ 2, maybe unknown)
// keeps x's rank: b has rank 1, or no more than x's known rank.
func sameRank(b, x *graph.Value, prod map[*graph.Value]*graph.Node) bool {
	if p := prod[b]; b.Const == nil && p != nil && len(p.In) > 0 {
		b = p.In[0] // a dequantize_linear's int32 constant
	}
	if b.Const == nil {
		return false
	}
	return b.Const.Rank() <= 1 || x.Meta.Shape != nil && b.Const.Rank() <= len(x.Meta.Shape)
}

// foldQConv rewrites conv n into a qconv2d when its inputs are dequantized.
func foldQConv(n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node, readers map[*graph.Value]*graph.Node, drop map[*graph.Node]bool) {
	x, w := dequantized(n.In[0], prod), dequantized(n.In[1], prod)
	if x == nil || x.axis >= 0 || w == nil || w.q.Const == nil || w.q.Const.Rank() != 4 {
		return
	}
	oc := w.q.Const.Dim(0)
	ws, wz, ok := w.perChannel(0, oc)
	if !ok {
		return
	}
	var bias *tensor.Tensor
	if len(n.In) == 3 {
		if bias = floatBias(n.In[2], oc, prod); bias == nil {
			return
		}
	}
	e := followEpilogue(n.Out[0], oc, false, uses, prod, readers)
	a := op.Attrs{}
	for k, v := range n.Attrs {
		a[k] = v
	}
	for k, v := range op.QuantAttrs(x.scale[0], x.zero[0], ws, wz, tensor.Float32, 1, 0) {
		a[k] = v
	}
	for k, v := range e.attrs {
		a[k] = v
	}
	rewrite(n, qconv2dDef, a, x.q, w.q, bias, e, drop)
}

// foldQGemm rewrites matmul n (x (..., M, K) by a constant (K, N), or (N,
// K) with trans_b) into a qgemm when its inputs are dequantized.
func foldQGemm(n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node, readers map[*graph.Value]*graph.Node, drop map[*graph.Node]bool) {
	if n.Attrs.Bool("trans_a", false) || len(n.In) != 2 {
		return
	}
	x, w := dequantized(n.In[0], prod), dequantized(n.In[1], prod)
	if x == nil || x.axis >= 0 || w == nil || w.q.Const == nil || w.q.Const.Rank() != 2 || x.q.Meta.Shape != nil && len(x.q.Meta.Shape) < 2 {
		return
	}
	wq, nAxis := w.q.Const, 1
	if n.Attrs.Bool("trans_b", false) {
		wq, nAxis = op.Transpose(wq, 1, 0).Contiguous(), 0
	}
	nOut := wq.Dim(1)
	ws, wz, ok := w.perChannel(nAxis, nOut)
	if !ok {
		return
	}
	e := followEpilogue(n.Out[0], nOut, true, uses, prod, readers)
	a := op.QuantAttrs(x.scale[0], x.zero[0], ws, wz, tensor.Float32, 1, 0)
	for k, v := range e.attrs {
		a[k] = v
	}
	wv := w.q
	if wq != w.q.Const {
		wv = &graph.Value{Name: w.q.Name + "/t", Const: wq, Meta: graph.ConstMeta(wq)}
	}
	rewrite(n, qgemmDef, a, x.q, wv, e.bias, e, drop)
}

// rewrite turns n into the int8 op producing e.out and drops the nodes the
// epilogue took over.
func rewrite(n *graph.Node, def *op.Def, a op.Attrs, x, w *graph.Value, bias *tensor.Tensor, e epilogue, drop map[*graph.Node]bool) {
	in := []*graph.Value{x, w}
	if bias != nil {
		bv := &graph.Value{Name: n.Out[0].Name + "/qbias", Const: bias, Meta: graph.ConstMeta(bias)}
		in = append(in, bv)
	}
	n.Op, n.Attrs, n.In, n.Out = def, a, in, []*graph.Value{e.out}
	for _, r := range e.nodes {
		drop[r] = true
	}
}

var qconv2dDef, qgemmDef = op.Lookup("qconv2d"), op.Lookup("qgemm")
