package onnx

import (
	"fmt"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// Builders for network ops: convolution and pooling checks, normalisations,
// Gemm, MatMul with vectors, Softmax (both opset forms), Resize, reductions.

func registerNN() {
	builders["Conv"] = buildConv("conv2d")
	builders["ConvTranspose"] = buildConv("conv_transpose2d")
	builders["MaxPool"] = buildPool("max_pool2d")
	builders["AveragePool"] = buildPool("avg_pool2d")
	builders["BatchNormalization"] = buildBatchNorm
	builders["LayerNormalization"] = buildLayerNorm
	builders["Gemm"] = buildGemm
	builders["MatMul"] = buildMatMul
	builders["Softmax"] = buildSoftmax("softmax")
	builders["LogSoftmax"] = buildSoftmax("log_softmax")
	builders["Resize"] = buildResize
	for onnxName, name := range map[string]string{"ReduceSum": "sum", "ReduceMean": "mean", "ReduceMax": "max",
		"ReduceMin": "min", "ReduceProd": "prod", "ReduceL2": "reduce_l2"} {
		since := 18
		if onnxName == "ReduceSum" {
			since = 13
		}
		builders[onnxName] = buildReduce(name, since)
	}
}

func buildConv(name string) func(c *ctx) error {
	return func(c *ctx) error {
		a, err := c.attrs()
		if err != nil {
			return err
		}
		delete(a, "kernel_shape") // implied by the weight
		if g, ok := a["group"]; ok {
			a["groups"] = g
			delete(a, "group")
		}
		x := c.in(0)
		in := []*graph.Value{x, c.in(1)}
		if b := c.in(2); b != nil {
			in = append(in, b)
		}
		if w := c.in(1).Meta.Shape; (x.Meta.Shape != nil && len(x.Meta.Shape) == 3) || (w != nil && len(w) == 3) {
			return c.as2D(name, a, in)
		}
		nd := c.emit(name, a, in, c.out(0, x.Meta.DType))
		ap := a.Str("auto_pad", "")
		if name == "conv_transpose2d" && (a["output_shape"] != nil || ap == "SAME_UPPER" || ap == "SAME_LOWER") {
			nd.ShapeAttrs = convTransposePads
		}
		return nil
	}
}

func buildPool(name string) func(c *ctx) error {
	return func(c *ctx) error {
		a, err := c.attrs()
		if err != nil {
			return err
		}
		if c.nout() > 1 {
			return fmt.Errorf("the indices output is not supported")
		}
		if a.Int("storage_order", 0) != 0 {
			return fmt.Errorf("storage_order 1 is not supported")
		}
		delete(a, "storage_order")
		if x := c.in(0); x.Meta.Shape != nil && len(x.Meta.Shape) == 3 {
			return c.as2D(name, a, []*graph.Value{x})
		}
		c.unary(name, a)
		return nil
	}
}

// as2D runs a 2-D conv or pool op on a 1-D input (N, C, L) as (N, C, 1, L):
// window attributes get a leading 1 (pads a leading 0 pair).
func (c *ctx) as2D(name string, a op.Attrs, in []*graph.Value) error {
	x := in[0]
	d := x.Meta.DType
	b := op.Attrs{}
	for k, v := range a {
		b[k] = v
	}
	for _, k := range []string{"kernel_shape", "strides", "dilations", "output_padding", "output_shape"} {
		if v := a.Ints(k, nil); len(v) == 1 {
			b[k] = []int{1, v[0]}
		}
	}
	if p := a.Ints("pads", nil); len(p) == 2 {
		b["pads"] = []int{0, p[0], 0, p[1]}
	}
	in = append([]*graph.Value(nil), in...)
	in[0] = c.emit1("unsqueeze", op.Attrs{"axes": []int{2}}, d, x)
	if len(in) > 1 && in[1].Meta.Shape != nil && len(in[1].Meta.Shape) == 3 {
		in[1] = c.emit1("unsqueeze", op.Attrs{"axes": []int{2}}, d, in[1])
	}
	nd := c.emit(name, b, in, c.tmp(d))
	ap := a.Str("auto_pad", "")
	if name == "conv_transpose2d" && (b["output_shape"] != nil || ap == "SAME_UPPER" || ap == "SAME_LOWER") {
		nd.ShapeAttrs = convTransposePads
	}
	c.emit("squeeze", op.Attrs{"axes": []int{2}}, nd.Out, c.out(0, d))
	return nil
}

// convTransposePads turns ConvTranspose's output_shape and SAME auto_pad
// into explicit pads and output_padding for the input shape at hand:
// total = stride·(in-1) + output_padding + (k-1)·dilation + 1 - out, split
// as ONNX says (SAME_UPPER puts the odd pixel at the end); a negative total
// (output larger than the full transposed conv) grows output_padding.
func convTransposePads(in []op.Meta, a op.Attrs) (op.Attrs, error) {
	x, w := in[0].Shape, in[1].Shape
	if len(x) != 4 || len(w) != 4 {
		return nil, fmt.Errorf("want 2-D ConvTranspose inputs, got %v and %v", x, w)
	}
	b := op.Attrs{}
	for k, v := range a {
		b[k] = v
	}
	pair := func(k string, def int) []int {
		v := a.Ints(k, nil)
		if len(v) == 2 {
			return v
		}
		return []int{def, def}
	}
	st, dl, opad := pair("strides", 1), pair("dilations", 1), pair("output_padding", 0)
	outShape := a.Ints("output_shape", nil)
	if len(outShape) > 2 {
		outShape = outShape[len(outShape)-2:]
	}
	ap := a.Str("auto_pad", "")
	pads := []int{0, 0, 0, 0}
	newOp := []int{opad[0], opad[1]}
	for i := range 2 {
		full := st[i]*(x[2+i]-1) + opad[i] + (w[2+i]-1)*dl[i] + 1
		want := x[2+i] * st[i]
		if outShape != nil {
			want = outShape[i]
		}
		total := full - want
		if total < 0 {
			newOp[i] += -total
			continue
		}
		if ap == "SAME_UPPER" {
			pads[i], pads[i+2] = total/2, total-total/2
		} else {
			pads[i], pads[i+2] = total-total/2, total/2
		}
	}
	delete(b, "output_shape")
	delete(b, "auto_pad")
	b["pads"], b["output_padding"] = pads, newOp
	return b, nil
}

func buildBatchNorm(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	if a.Int("training_mode", 0) != 0 || c.nout() > 1 {
		return fmt.Errorf("training mode (running statistics outputs) is not supported")
	}
	x := c.in(0)
	c.emit("batch_norm", op.Attrs{"epsilon": a.Float("epsilon", 1e-5), "momentum": a.Float("momentum", 0.9)},
		[]*graph.Value{x, c.in(1), c.in(2), c.in(3), c.in(4)}, c.out(0, x.Meta.DType))
	return nil
}

func buildLayerNorm(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	x, scale, bias := c.in(0), c.in(1), c.in(2)
	if c.nout() > 1 {
		if err := c.layerNormStats(x, a.Int("axis", -1), a.Float("epsilon", 1e-5)); err != nil {
			return err
		}
	}
	if bias == nil {
		if scale.Const != nil {
			bias = c.konst(tensor.ZerosLike(scale.Const))
		} else {
			bias = c.emit1("sub", nil, scale.Meta.DType, scale, scale)
		}
	}
	c.emit("layer_norm", op.Attrs{"axis": a.Int("axis", -1), "epsilon": a.Float("epsilon", 1e-5)},
		[]*graph.Value{x, scale, bias}, c.out(0, x.Meta.DType))
	return nil
}

// layerNormStats emits LayerNormalization's optional outputs 1 (mean) and 2
// (1/sqrt(var + epsilon)) over the axes from axis on, kept as size 1.
func (c *ctx) layerNormStats(x *graph.Value, axis int, eps float64) error {
	var axes []int
	switch {
	case axis < 0:
		for i := axis; i < 0; i++ {
			axes = append(axes, i)
		}
	case x.Meta.Shape != nil:
		for i := axis; i < len(x.Meta.Shape); i++ {
			axes = append(axes, i)
		}
	default:
		return fmt.Errorf("mean and inverse standard deviation outputs with axis %d need the input's rank", axis)
	}
	d := x.Meta.DType
	ra := op.Attrs{"axes": axes, "keepdims": true}
	mean := c.out(1, d)
	c.emit("mean", ra, []*graph.Value{x}, mean)
	if c.nout() < 3 {
		return nil
	}
	dev := c.emit1("sub", nil, d, x, mean)
	v := c.emit1("mean", ra, d, c.emit1("mul", nil, d, dev, dev))
	ve := c.emit1("add", nil, d, v, c.scalarLike(x, eps))
	c.emit("rsqrt", nil, []*graph.Value{ve}, c.out(2, d))
	return nil
}

// scalarLike is a rank-0 constant of x's dtype.
func (c *ctx) scalarLike(x *graph.Value, v float64) *graph.Value {
	return c.konst(tensor.Full(x.Meta.DType, v))
}

// buildGemm: y = alpha·op(A)·op(B) + beta·C as matmul (+ mul) (+ add).
func buildGemm(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	A, B, C := c.in(0), c.in(1), c.in(2)
	d := A.Meta.DType
	alpha, beta := a.Float("alpha", 1), a.Float("beta", 1)
	mm := op.Attrs{"trans_a": a.Int("transA", 0) != 0, "trans_b": a.Int("transB", 0) != 0}
	if C == nil && alpha == 1 {
		c.emit("matmul", mm, []*graph.Value{A, B}, c.out(0, d))
		return nil
	}
	y := c.emit1("matmul", mm, d, A, B)
	if alpha != 1 {
		if C == nil {
			c.emit("mul", nil, []*graph.Value{y, c.scalarLike(A, alpha)}, c.out(0, d))
			return nil
		}
		y = c.emit1("mul", nil, d, y, c.scalarLike(A, alpha))
	}
	if beta != 1 {
		if C.Const != nil {
			C = c.konst(op.Mul(C.Const, tensor.Full(C.Const.DType(), beta)))
		} else {
			C = c.emit1("mul", nil, d, C, c.scalarLike(A, beta))
		}
	}
	c.emit("add", nil, []*graph.Value{y, C}, c.out(0, d))
	return nil
}

// buildMatMul handles 1-D operands (NumPy rules) around the rank >= 2 primitive.
func buildMatMul(c *ctx) error {
	A, B := c.in(0), c.in(1)
	d := A.Meta.DType
	vecA := A.Meta.Shape != nil && len(A.Meta.Shape) == 1
	vecB := B.Meta.Shape != nil && len(B.Meta.Shape) == 1
	if !vecA && !vecB {
		c.emit("matmul", nil, []*graph.Value{A, B}, c.out(0, d))
		return nil
	}
	if vecA {
		A = c.emit1("unsqueeze", op.Attrs{"axes": []int{0}}, d, A)
	}
	if vecB {
		B = c.emit1("unsqueeze", op.Attrs{"axes": []int{1}}, d, B)
	}
	y := c.emit1("matmul", nil, d, A, B)
	var axes []int
	if vecA {
		axes = append(axes, -2)
	}
	if vecB {
		axes = append(axes, -1)
	}
	c.emit("squeeze", op.Attrs{"axes": axes}, []*graph.Value{y}, c.out(0, d))
	return nil
}

// buildSoftmax: from opset 13 the op normalises one axis (default -1); before,
// it normalises the flattened trailing block from axis on (default 1).
func buildSoftmax(name string) func(c *ctx) error {
	return func(c *ctx) error {
		a, err := c.attrs()
		if err != nil {
			return err
		}
		x := c.in(0)
		d := x.Meta.DType
		if c.opset >= 13 {
			c.emit(name, op.Attrs{"axis": a.Int("axis", -1)}, []*graph.Value{x}, c.out(0, d))
			return nil
		}
		axis := a.Int("axis", 1)
		if r := len(x.Meta.Shape); x.Meta.Shape != nil && axis < 0 {
			axis += r
		}
		if axis == -1 || (x.Meta.Shape != nil && axis == len(x.Meta.Shape)-1) {
			c.emit(name, op.Attrs{"axis": -1}, []*graph.Value{x}, c.out(0, d))
			return nil
		}
		if axis < 0 {
			return fmt.Errorf("a negative axis %d needs the input's rank", axis)
		}
		// the shape first: the flatten is then x's last use, which the
		// runtime turns into a hand-over of x's buffer instead of a copy
		shape := c.emit1("shape", nil, tensor.Int64, x)
		f := c.emit1("flatten", op.Attrs{"axis": axis}, d, x)
		s := c.emit1(name, op.Attrs{"axis": -1}, d, f)
		nd := c.emit("reshape", op.Attrs{}, []*graph.Value{s}, c.out(0, d))
		nd.AttrIn = []graph.AttrIn{{Attr: "shape", Kind: graph.AttrInts, V: shape}}
		return nil
	}
}

func buildResize(c *ctx) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	mode := a.Str("mode", "nearest")
	if mode != "nearest" && mode != "linear" {
		return fmt.Errorf("resize mode %q is not supported (want nearest or linear)", mode)
	}
	if a.Int("antialias", 0) != 0 {
		return fmt.Errorf("antialias is not supported")
	}
	if p := a.Str("keep_aspect_ratio_policy", "stretch"); p != "stretch" {
		return fmt.Errorf("keep_aspect_ratio_policy %q is not supported", p)
	}
	if ax := a.Ints("axes", nil); ax != nil && !(len(ax) == 2 && ax[0] == 2 && ax[1] == 3) {
		return fmt.Errorf("axes %v: only the two spatial axes [2, 3] can be resized", ax)
	}
	at := op.Attrs{"mode": mode}
	x := c.in(0)
	if c.opset < 11 {
		at["coordinate_transformation_mode"] = "asymmetric"
		at["nearest_mode"] = "floor"
		if s := c.in(1); s != nil && s.Const != nil {
			for _, v := range s.Const.Float64s() {
				if v < 1 {
					at["nearest_mode"] = "ceil" // downsampling rounds up
				}
			}
		}
		nd := c.unary("resize", at)
		return c.attrIn(nd, 1, "scales", graph.AttrResizeScales)
	}
	cm := a.Str("coordinate_transformation_mode", "half_pixel")
	if cm == "tf_crop_and_resize" {
		return fmt.Errorf("coordinate_transformation_mode tf_crop_and_resize is not supported")
	}
	at["coordinate_transformation_mode"] = cm
	at["nearest_mode"] = a.Str("nearest_mode", "round_prefer_floor")
	nd := c.emit("resize", at, []*graph.Value{x}, c.out(0, x.Meta.DType))
	if err := c.attrIn(nd, 2, "scales", graph.AttrResizeScales); err != nil {
		return err
	}
	return c.attrIn(nd, 3, "sizes", graph.AttrResizeSizes)
}

// buildReduce: axes are an attribute before opset since, an optional input after;
// keepdims defaults to 1; noop_with_empty_axes makes missing axes the identity.
func buildReduce(name string, since int) func(c *ctx) error {
	return func(c *ctx) error {
		a, err := c.attrs()
		if err != nil {
			return err
		}
		at := op.Attrs{"keepdims": a.Bool("keepdims", true)}
		if c.opset < since {
			if ax := a.Ints("axes", nil); ax != nil {
				at["axes"] = ax
			}
			c.unary(name, at)
			return nil
		}
		ax := c.in(1)
		if ax == nil || (ax.Const != nil && ax.Const.Len() == 0) {
			if a.Bool("noop_with_empty_axes", false) {
				c.alias(0, c.in(0))
				return nil
			}
		}
		nd := c.unary(name, at)
		kind := graph.AttrInts
		if a.Bool("noop_with_empty_axes", false) {
			kind = graph.AttrIntsKeepEmpty
		}
		return c.attrIn(nd, 1, "axes", kind)
	}
}
