package pdmodel

import (
	"fmt"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// builders maps a Paddle op type to the function that emits its IR.
var builders = map[string]func(c *ctx) error{}

func init() {
	builders["conv2d_transpose"] = buildConvTranspose
	builders["batch_norm"] = buildBatchNorm
	builders["layer_norm"] = buildLayerNorm
	builders["pool2d"] = buildPool
	for t, name := range map[string]string{"elementwise_pow": "pow",
		"elementwise_max": "maximum", "elementwise_min": "minimum"} {
		builders[t] = buildElementwise(name)
	}
	for t, name := range map[string]string{"relu": "relu", "sigmoid": "sigmoid", "tanh": "tanh",
		"sqrt": "sqrt", "rsqrt": "rsqrt", "abs": "abs", "exp": "exp", "log": "log", "floor": "floor",
		"erf": "erf", "silu": "silu"} {
		builders[t] = buildUnary(name, nil)
	}
	builders["relu6"] = buildUnary("clip", func(c *ctx) op.Attrs {
		return op.Attrs{"min": 0.0, "max": c.float("threshold", 6)}
	})
	builders["leaky_relu"] = buildUnary("leaky_relu", func(c *ctx) op.Attrs { return op.Attrs{"alpha": c.float("alpha", 0.02)} })
	builders["hard_sigmoid"] = buildUnary("hardsigmoid", func(c *ctx) op.Attrs {
		return op.Attrs{"alpha": c.float("slope", 0.2), "beta": c.float("offset", 0.5)}
	})
	builders["gelu"] = buildUnary("gelu", func(c *ctx) op.Attrs {
		if c.bool("approximate", false) {
			return op.Attrs{"approximate": "tanh"}
		}
		return op.Attrs{"approximate": "none"}
	})
	builders["clip"] = buildUnary("clip", func(c *ctx) op.Attrs {
		return op.Attrs{"min": c.float("min", -3.4e38), "max": c.float("max", 3.4e38)}
	})
	builders["hard_swish"] = buildHardSwish
	builders["swish"] = buildSwish
	builders["mul"] = buildMul
	builders["fc"] = buildFC
	builders["reshape2"] = buildReshape
	builders["transpose2"] = buildTranspose
	builders["flatten_contiguous_range"] = buildFlatten
	builders["squeeze2"] = buildSqueeze("squeeze")
	builders["unsqueeze2"] = buildSqueeze("unsqueeze")
	builders["softmax"] = buildSoftmax
	builders["scale"] = buildScale
	builders["concat"] = buildConcat
	builders["split"] = buildSplit
	builders["slice"] = buildSlice
	builders["bilinear_interp_v2"] = buildInterp("linear")
	builders["nearest_interp_v2"] = buildInterp("nearest")
	builders["dropout"] = buildDropout
	builders["fill_constant"] = buildFillConstant
	builders["shape"] = buildShape
	builders["cast"] = buildCast
	builders["assign"] = func(c *ctx) error {
		x, err := c.must("X")
		if err != nil {
			return err
		}
		return c.alias("Out", x)
	}
}

// Supported lists the Paddle operator types the importer maps (feed and
// fetch included), for docs and error messages.
func Supported() []string {
	out := []string{"feed", "fetch"}
	for t := range builders {
		out = append(out, t)
	}
	return out
}

// pads converts Paddle's paddings (2: [h, w]; 4: [top, bottom, left, right])
// to ONNX's [top, left, bottom, right].
func pads(p []int) ([]int, error) {
	switch len(p) {
	case 0:
		return []int{0, 0, 0, 0}, nil
	case 2:
		return []int{p[0], p[1], p[0], p[1]}, nil
	case 4:
		return []int{p[0], p[2], p[1], p[3]}, nil
	}
	return nil, fmt.Errorf("paddings %v: want 2 or 4 values", p)
}

// windowAttrs reads strides, paddings and padding_algorithm as the registry's
// strides, pads and auto_pad.
func (c *ctx) windowAttrs(a op.Attrs) error {
	if f := c.str("data_format", "NCHW"); f != "NCHW" && f != "AnyLayout" {
		return fmt.Errorf("data_format %q is not supported (want NCHW)", f)
	}
	if s := c.ints("strides"); s != nil {
		a["strides"] = s
	}
	p, err := pads(c.ints("paddings"))
	if err != nil {
		return err
	}
	switch alg := c.str("padding_algorithm", "EXPLICIT"); alg {
	case "EXPLICIT", "":
		a["pads"] = p
	case "VALID":
		a["pads"] = []int{0, 0, 0, 0}
	case "SAME":
		a["auto_pad"] = "SAME_UPPER"
	default:
		return fmt.Errorf("padding_algorithm %q is not supported", alg)
	}
	return nil
}

func buildConv(c *ctx) error {
	x, err := c.must("Input")
	if err != nil {
		return err
	}
	w, err := c.must("Filter")
	if err != nil {
		return err
	}
	a := op.Attrs{"groups": c.int("groups", 1)}
	if d := c.ints("dilations"); d != nil {
		a["dilations"] = d
	}
	if err := c.windowAttrs(a); err != nil {
		return err
	}
	in := []*graph.Value{x, w}
	if b := c.in("Bias"); b != nil {
		in = append(in, b)
	}
	c.emit("conv2d", a, in, c.out("Output", x.Meta.DType))
	return nil
}

func buildConvTranspose(c *ctx) error {
	x, err := c.must("Input")
	if err != nil {
		return err
	}
	w, err := c.must("Filter")
	if err != nil {
		return err
	}
	if s := c.ints("output_size"); len(s) > 0 {
		return fmt.Errorf("output_size %v is not supported", s)
	}
	a := op.Attrs{"groups": c.int("groups", 1)}
	if d := c.ints("dilations"); d != nil {
		a["dilations"] = d
	}
	if p := c.ints("output_padding"); len(p) > 0 {
		a["output_padding"] = p
	}
	if err := c.windowAttrs(a); err != nil {
		return err
	}
	if a["auto_pad"] != nil {
		return fmt.Errorf("padding_algorithm SAME is not supported")
	}
	c.emit("conv_transpose2d", a, []*graph.Value{x, w}, c.out("Output", x.Meta.DType))
	return nil
}

func buildBatchNorm(c *ctx) error {
	var in []*graph.Value
	for _, s := range []string{"X", "Scale", "Bias", "Mean", "Variance"} {
		v, err := c.must(s)
		if err != nil {
			return err
		}
		in = append(in, v)
	}
	if f := c.str("data_layout", "NCHW"); f != "NCHW" && f != "AnyLayout" {
		return fmt.Errorf("data_layout %q is not supported (want NCHW)", f)
	}
	c.emit("batch_norm", op.Attrs{"epsilon": c.float("epsilon", 1e-5), "momentum": c.float("momentum", 0.9)},
		in, c.out("Y", in[0].Meta.DType))
	return nil
}

func buildLayerNorm(c *ctx) error {
	x, err := c.must("X")
	if err != nil {
		return err
	}
	r := c.rank(x)
	axis := c.int("begin_norm_axis", 1)
	if axis < 0 {
		axis += r
	}
	if r < 0 || axis != r-1 {
		return fmt.Errorf("begin_norm_axis %d of a rank-%d input: only the last axis is supported", c.int("begin_norm_axis", 1), r)
	}
	d := x.Meta.DType
	scale, bias := c.in("Scale"), c.in("Bias")
	if scale == nil || bias == nil {
		return fmt.Errorf("layer_norm without Scale and Bias is not supported")
	}
	c.emit("layer_norm", op.Attrs{"axis": -1, "epsilon": c.float("epsilon", 1e-5)},
		[]*graph.Value{x, scale, bias}, c.out("Y", d))
	return nil
}

func buildPool(c *ctx) error {
	x, err := c.must("X")
	if err != nil {
		return err
	}
	typ := c.str("pooling_type", "max")
	if typ != "max" && typ != "avg" {
		return fmt.Errorf("pooling_type %q is not supported", typ)
	}
	k := c.ints("ksize")
	out := c.out("Out", x.Meta.DType)
	global := c.bool("global_pooling", false)
	if c.bool("adaptive", false) {
		if len(k) == 2 && k[0] == 1 && k[1] == 1 {
			global = true
		} else if typ == "avg" {
			c.emit("adaptive_avg_pool2d", op.Attrs{"output_size": k}, []*graph.Value{x}, out)
			return nil
		} else {
			return fmt.Errorf("adaptive max pooling to %v is not supported", k)
		}
	}
	if global {
		c.emit("global_"+typ+"_pool", nil, []*graph.Value{x}, out)
		return nil
	}
	a := op.Attrs{"kernel_shape": k, "ceil_mode": c.bool("ceil_mode", false)}
	if err := c.windowAttrs(a); err != nil {
		return err
	}
	name := "max_pool2d"
	if typ == "avg" {
		name = "avg_pool2d"
		a["count_include_pad"] = !c.bool("exclusive", true)
	}
	c.emit(name, a, []*graph.Value{x}, out)
	return nil
}

// buildElementwise applies Paddle's broadcasting rule: with axis -1 (or Y
// of X's rank) the trailing dimensions line up as in NumPy; otherwise Y's
// dimensions line up with X's from axis on, so Y gets trailing 1s.
func buildElementwise(name string) func(c *ctx) error {
	return func(c *ctx) error {
		x, err := c.must("X")
		if err != nil {
			return err
		}
		y, err := c.must("Y")
		if err != nil {
			return err
		}
		axis := c.int("axis", -1)
		rx, ry := c.rank(x), c.rank(y)
		if axis != -1 && rx >= 0 && ry >= 0 && ry < rx {
			if axis < 0 || axis+ry > rx {
				return fmt.Errorf("axis %d for ranks %d and %d", axis, rx, ry)
			}
			y = c.trailingOnes(y, rx-axis-ry)
		} else if axis != -1 && ry > rx && rx >= 0 {
			if axis < 0 || axis+rx > ry {
				return fmt.Errorf("axis %d for ranks %d and %d", axis, rx, ry)
			}
			x = c.trailingOnes(x, ry-axis-rx)
		}
		c.emit(name, nil, []*graph.Value{x, y}, c.out("Out", x.Meta.DType))
		return nil
	}
}

// trailingOnes appends n dimensions of size 1 to v (folded for a constant).
func (c *ctx) trailingOnes(v *graph.Value, n int) *graph.Value {
	if n <= 0 {
		return v
	}
	if v.Const != nil {
		s := append(append([]int(nil), v.Const.Shape()...), make([]int, n)...)
		for i := len(s) - n; i < len(s); i++ {
			s[i] = 1
		}
		k := c.konst(v.Const.Reshape(s...))
		k.Param = v.Param
		return k
	}
	r := c.rank(v)
	axes := make([]int, n)
	for i := range axes {
		axes[i] = r + i
	}
	return c.emit1("unsqueeze", op.Attrs{"axes": axes}, v.Meta.DType, v)
}

func buildUnary(name string, attrs func(c *ctx) op.Attrs) func(c *ctx) error {
	return func(c *ctx) error {
		x, err := c.must("X")
		if err != nil {
			return err
		}
		var a op.Attrs
		if attrs != nil {
			a = attrs(c)
		}
		c.emit(name, a, []*graph.Value{x}, c.out("Out", x.Meta.DType))
		return nil
	}
}

// buildHardSwish: x·min(max(x + offset, 0), threshold)/scale; Paddle's
// defaults (6, 6, 3) are the registry's hardswish.
func buildHardSwish(c *ctx) error {
	x, err := c.must("X")
	if err != nil {
		return err
	}
	t, s, o := c.float("threshold", 6), c.float("scale", 6), c.float("offset", 3)
	d := x.Meta.DType
	out := c.out("Out", d)
	if t == 6 && s == 6 && o == 3 {
		c.emit("hardswish", nil, []*graph.Value{x}, out)
		return nil
	}
	g := c.emit1("clip", op.Attrs{"min": 0.0, "max": t}, d, c.emit1("add", nil, d, x, c.scalar(d, o)))
	c.emit("div", nil, []*graph.Value{c.emit1("mul", nil, d, x, g), c.scalar(d, s)}, out)
	return nil
}

// buildSwish: x·sigmoid(beta·x) (silu when beta is 1).
func buildSwish(c *ctx) error {
	x, err := c.must("X")
	if err != nil {
		return err
	}
	d := x.Meta.DType
	out := c.out("Out", d)
	beta := c.float("beta", 1)
	if beta == 1 {
		c.emit("silu", nil, []*graph.Value{x}, out)
		return nil
	}
	s := c.emit1("sigmoid", nil, d, c.emit1("mul", nil, d, x, c.scalar(d, beta)))
	c.emit("mul", nil, []*graph.Value{x, s}, out)
	return nil
}

// buildMatMul: the operands after oneDNN's folded reshape and transpose
// (fusedOperand), their product (transposed as attributes tx and ty say)
// times attribute alphaAttr.
func buildMatMul(tx, ty, alphaAttr string) func(c *ctx) error {
	return func(c *ctx) error {
		x, err := c.fusedOperand("X")
		if err != nil {
			return err
		}
		y, err := c.fusedOperand("Y")
		if err != nil {
			return err
		}
		if rx, ry := c.operandRank("X", x), c.operandRank("Y", y); rx < 2 || ry < 2 {
			return fmt.Errorf("operands of rank %d and %d: vectors are not supported", rx, ry)
		}
		d := x.Meta.DType
		a := op.Attrs{"trans_a": c.bool(tx, false), "trans_b": c.bool(ty, false)}
		out := c.out("Out", d)
		if alpha := c.float(alphaAttr, 1); alpha != 1 {
			c.emit("mul", nil, []*graph.Value{c.emit1("matmul", a, d, x, y), c.scalar(d, alpha)}, out)
			return nil
		}
		c.emit("matmul", a, []*graph.Value{x, y}, out)
		return nil
	}
}

// operandRank is the rank of matmul operand v of slot s, after
// fusedOperand's reshape or transpose.
func (c *ctx) operandRank(s string, v *graph.Value) int {
	if p := c.ints("fused_transpose_" + s); len(p) > 0 {
		return len(p)
	}
	if shape := c.ints("fused_reshape_" + s); len(shape) > 0 {
		return len(shape)
	}
	return c.rank(v)
}

// mulCore is Paddle's mul: X flattened to 2-D at xCols, times a 2-D Y; the
// result keeps X's leading xCols dimensions.
func (c *ctx) mulCore(x, y *graph.Value, xCols int) (*graph.Value, error) {
	d := x.Meta.DType
	rx := c.rank(x)
	if c.rank(y) != 2 {
		return nil, fmt.Errorf("Y of rank %d: only 2-D weights are supported", c.rank(y))
	}
	if rx < 2 || xCols < 1 || xCols >= rx {
		return nil, fmt.Errorf("x_num_col_dims %d for a rank-%d X", xCols, rx)
	}
	if rx == xCols+1 {
		return c.emit1("matmul", nil, d, x, y), nil
	}
	flat := make([]int, xCols+1)
	flat[xCols] = -1
	x2 := c.emit1("reshape", nil, d, x)
	c.reshapeAttr(c.lastNode(), flat)
	return c.emit1("matmul", nil, d, x2, y), nil
}

func (c *ctx) lastNode() *graph.Node { return c.im.g.Nodes[len(c.im.g.Nodes)-1] }

func buildMul(c *ctx) error {
	x, err := c.must("X")
	if err != nil {
		return err
	}
	y, err := c.must("Y")
	if err != nil {
		return err
	}
	if c.int("y_num_col_dims", 1) != 1 {
		return fmt.Errorf("y_num_col_dims %d is not supported", c.int("y_num_col_dims", 1))
	}
	v, err := c.mulCore(x, y, c.int("x_num_col_dims", 1))
	if err != nil {
		return err
	}
	return c.alias("Out", v)
}

// buildFC is fc (fc_fuse_pass): Input flattened at in_num_col_dims times
// W, plus Bias, then activation_type. With padding_weights W holds 4 extra
// rows and columns (Paddle pads it for its GEMM), which are dropped.
func buildFC(c *ctx) error {
	x, err := c.must("Input")
	if err != nil {
		return err
	}
	w, err := c.must("W")
	if err != nil {
		return err
	}
	d := x.Meta.DType
	if c.bool("padding_weights", false) {
		dims := c.dims(w)
		if w.Const == nil || len(dims) != 2 || dims[0] < 5 || dims[1] < 5 {
			return fmt.Errorf("padding_weights with W of dims %v: want a 2-D persistable W, each dimension over 4", dims)
		}
		k := c.konst(w.Const.Slice(0, 0, dims[0]-4, 1).Slice(1, 0, dims[1]-4, 1).Contiguous())
		k.Param = w.Param
		w = k
	}
	v, err := c.mulCore(x, w, c.int("in_num_col_dims", 1))
	if err != nil {
		return err
	}
	if b := c.in("Bias"); b != nil {
		if b.Const != nil && len(b.Const.Shape()) == 2 {
			k := c.konst(b.Const.Reshape(b.Const.Len()))
			k.Param = b.Param
			b = k
		}
		v = c.emit1("add", nil, d, v, b)
	}
	v, err = c.activation(v, "activation_type", c.str("activation_type", ""), 0, 0, false)
	if err != nil {
		return err
	}
	return c.alias("Out", v)
}

// reshapeAttr sets a reshape node's target: Paddle's 0 copies the input's
// dimension, as ONNX Reshape's does, so a shape with a 0 is resolved from
// the input shape (graph.AttrReshape) and any other folds right away.
func (c *ctx) reshapeAttr(nd *graph.Node, shape []int) {
	for _, s := range shape {
		if s == 0 {
			v := make([]int64, len(shape))
			for i, x := range shape {
				v[i] = int64(x)
			}
			nd.AttrIn = append(nd.AttrIn, graph.AttrIn{Attr: "shape", Kind: graph.AttrReshape,
				V: c.konst(tensor.FromSlice(v, len(v)))})
			return
		}
	}
	nd.Attrs["shape"] = shape
}

func buildReshape(c *ctx) error {
	x, err := c.must("X")
	if err != nil {
		return err
	}
	s := c.in("Shape")
	if list := c.op.Input("ShapeTensor"); len(list) > 0 {
		// Paddle ranks ShapeTensor over Shape and the attribute: one
		// 1-element int tensor per dimension, 0 and -1 as in the attribute.
		parts := make([]*graph.Value, len(list))
		for i, n := range list {
			v := c.im.vals[n]
			if v == nil {
				return fmt.Errorf("ShapeTensor[%d] %q is not defined before the op", i, n)
			}
			if v.Meta.DType != tensor.Int64 {
				v = c.emit1("cast", op.Attrs{"dtype": "int64"}, tensor.Int64, v)
			}
			parts[i] = v
		}
		s = c.emit1("concat", op.Attrs{"axis": 0}, tensor.Int64, parts...)
	}
	nd := c.emit("reshape", op.Attrs{}, []*graph.Value{x}, c.out("Out", x.Meta.DType))
	if s != nil {
		nd.AttrIn = append(nd.AttrIn, graph.AttrIn{Attr: "shape", Kind: graph.AttrReshape, V: s})
		return nil
	}
	c.reshapeAttr(nd, c.ints("shape"))
	return nil
}

func buildTranspose(c *ctx) error {
	x, err := c.must("X")
	if err != nil {
		return err
	}
	c.emit("transpose", op.Attrs{"perm": c.ints("axis")}, []*graph.Value{x}, c.out("Out", x.Meta.DType))
	return nil
}

// buildFlatten: dimensions start_axis..stop_axis become one, as a reshape
// with 0s (copy) around a -1.
func buildFlatten(c *ctx) error {
	x, err := c.must("X")
	if err != nil {
		return err
	}
	r := c.rank(x)
	start, stop := c.int("start_axis", 1), c.int("stop_axis", 1)
	if start < 0 {
		start += r
	}
	if stop < 0 {
		stop += r
	}
	if r < 0 || start < 0 || stop >= r || start > stop {
		return fmt.Errorf("start_axis %d, stop_axis %d for rank %d", c.int("start_axis", 1), c.int("stop_axis", 1), r)
	}
	shape := make([]int, 0, r)
	for i := 0; i < start; i++ {
		shape = append(shape, 0)
	}
	shape = append(shape, -1)
	for i := stop + 1; i < r; i++ {
		shape = append(shape, 0)
	}
	nd := c.emit("reshape", op.Attrs{}, []*graph.Value{x}, c.out("Out", x.Meta.DType))
	c.reshapeAttr(nd, shape)
	return nil
}

func buildSqueeze(name string) func(c *ctx) error {
	return func(c *ctx) error {
		x, err := c.must("X")
		if err != nil {
			return err
		}
		if len(c.op.Input("AxesTensor")) > 0 || len(c.op.Input("AxesTensorList")) > 0 {
			return fmt.Errorf("axes given as tensors are not supported")
		}
		axes := c.ints("axes")
		if len(axes) == 0 && name == "squeeze" {
			for i, d := range c.dims(x) {
				if d == 1 {
					axes = append(axes, i)
				} else if d < 0 {
					return fmt.Errorf("squeezing every size-1 axis of an input of dims %v", c.dims(x))
				}
			}
		}
		c.emit(name, op.Attrs{"axes": axes}, []*graph.Value{x}, c.out("Out", x.Meta.DType))
		return nil
	}
}

func buildSoftmax(c *ctx) error {
	x, err := c.must("X")
	if err != nil {
		return err
	}
	c.emit("softmax", op.Attrs{"axis": c.int("axis", -1)}, []*graph.Value{x}, c.out("Out", x.Meta.DType))
	return nil
}

// buildScale: scale·x + bias, or scale·(x + bias) when bias_after_scale is false.
func buildScale(c *ctx) error {
	x, err := c.must("X")
	if err != nil {
		return err
	}
	if c.in("ScaleTensor") != nil {
		return fmt.Errorf("a ScaleTensor input is not supported")
	}
	d := x.Meta.DType
	s, b := c.float("scale", 1), c.float("bias", 0)
	if !c.bool("bias_after_scale", true) {
		b *= s
	}
	v := x
	if s != 1 {
		v = c.emit1("mul", nil, d, v, c.scalar(d, s))
	}
	if b != 0 {
		v = c.emit1("add", nil, d, v, c.scalar(d, b))
	}
	if v == x {
		v = c.emit1("mul", nil, d, v, c.scalar(d, 1))
	}
	return c.alias("Out", v)
}

func buildConcat(c *ctx) error {
	if c.in("AxisTensor") != nil {
		return fmt.Errorf("an AxisTensor input is not supported")
	}
	var in []*graph.Value
	for _, a := range c.op.Input("X") {
		in = append(in, c.im.vals[a])
	}
	if len(in) == 0 {
		return fmt.Errorf("input X is missing")
	}
	c.emit("concat", op.Attrs{"axis": c.int("axis", 0)}, in, c.out("Out", in[0].Meta.DType))
	return nil
}

func buildSplit(c *ctx) error {
	x, err := c.must("X")
	if err != nil {
		return err
	}
	if c.in("AxisTensor") != nil || len(c.op.Input("SectionsTensorList")) > 0 {
		return fmt.Errorf("axis or sections given as tensors are not supported")
	}
	names := c.op.Output("Out")
	a := op.Attrs{"axis": c.int("axis", 0)}
	if s := c.ints("sections"); len(s) > 0 {
		a["sizes"] = s
	} else {
		a["num_outputs"] = len(names)
	}
	out := make([]*graph.Value, len(names))
	for i, n := range names {
		out[i] = c.outNamed(n, x.Meta.DType)
	}
	c.emit("split", a, []*graph.Value{x}, out...)
	return nil
}

func buildSlice(c *ctx) error {
	x, err := c.must("Input")
	if err != nil {
		return err
	}
	for _, s := range []string{"StartsTensor", "EndsTensor", "StartsTensorList", "EndsTensorList"} {
		if len(c.op.Input(s)) > 0 {
			return fmt.Errorf("%s input is not supported", s)
		}
	}
	d := x.Meta.DType
	v := c.emit1("slice", op.Attrs{"starts": c.ints("starts"), "ends": c.ints("ends"), "axes": c.ints("axes")}, d, x)
	if dec := c.ints("decrease_axis"); len(dec) > 0 {
		v = c.emit1("squeeze", op.Attrs{"axes": dec}, d, v)
	}
	return c.alias("Out", v)
}

// buildInterp maps bilinear/nearest_interp_v2 onto resize: sizes from
// out_h/out_w or the OutSize input, else scales from the scale attribute;
// align_corners and align_mode choose the coordinate mapping as Paddle's
// kernels do (nearest without align_corners floors src = dst/scale).
func buildInterp(mode string) func(c *ctx) error {
	return func(c *ctx) error {
		x, err := c.must("X")
		if err != nil {
			return err
		}
		if f := c.str("data_layout", "NCHW"); f != "NCHW" && f != "AnyLayout" {
			return fmt.Errorf("data_layout %q is not supported (want NCHW)", f)
		}
		if len(c.op.Input("SizeTensor")) > 0 || c.in("Scale") != nil {
			return fmt.Errorf("SizeTensor and Scale inputs are not supported")
		}
		a := op.Attrs{"mode": mode}
		ac := c.bool("align_corners", true)
		switch {
		case ac:
			a["coordinate_transformation_mode"] = "align_corners"
			a["nearest_mode"] = "round_prefer_ceil"
		case mode == "nearest":
			a["coordinate_transformation_mode"] = "asymmetric"
			a["nearest_mode"] = "floor"
		case c.int("align_mode", 1) == 0:
			a["coordinate_transformation_mode"] = "half_pixel"
		default:
			a["coordinate_transformation_mode"] = "asymmetric"
		}
		nd := c.emit("resize", a, []*graph.Value{x}, c.out("Out", x.Meta.DType))
		if s := c.in("OutSize"); s != nil {
			nd.AttrIn = append(nd.AttrIn, graph.AttrIn{Attr: "sizes", Kind: graph.AttrInts, V: s})
			return nil
		}
		if sc := c.floats("scale"); len(sc) > 0 && sc[0] > 0 {
			if len(sc) == 1 {
				sc = []float64{sc[0], sc[0]}
			}
			a["scales"] = sc
			return nil
		}
		oh, ow := c.int("out_h", -1), c.int("out_w", -1)
		if oh <= 0 || ow <= 0 {
			return fmt.Errorf("no output size: out_h %d, out_w %d, no scale", oh, ow)
		}
		a["sizes"] = []int{oh, ow}
		return nil
	}
}

// buildDropout at inference: identity for upscale_in_train, a scale by
// 1 - dropout_prob for downgrade_in_infer (Paddle's default).
func buildDropout(c *ctx) error {
	x, err := c.must("X")
	if err != nil {
		return err
	}
	if c.str("dropout_implementation", "downgrade_in_infer") == "upscale_in_train" {
		return c.alias("Out", x)
	}
	d := x.Meta.DType
	return c.alias("Out", c.emit1("mul", nil, d, x, c.scalar(d, 1-c.float("dropout_prob", 0.5))))
}

// Paddle's dtype attribute values (VarType.Type numbers).
var attrDType = map[int]tensor.DType{0: tensor.Bool, 2: tensor.Int32, 3: tensor.Int64, 5: tensor.Float32,
	6: tensor.Float64, 20: tensor.Uint8, 21: tensor.Int8}

// maxConstElems bounds a fill_constant, which a program states with no data
// behind it (a hostile file could ask for any size).
const maxConstElems = 1 << 26

func buildFillConstant(c *ctx) error {
	for _, s := range []string{"ValueTensor", "ShapeTensor", "ShapeTensorList"} {
		if len(c.op.Input(s)) > 0 {
			return fmt.Errorf("%s input is not supported", s)
		}
	}
	d, ok := attrDType[c.int("dtype", 5)]
	if !ok {
		return fmt.Errorf("dtype %d is not supported", c.int("dtype", 5))
	}
	v := c.float("value", 0)
	if s := c.str("str_value", ""); s != "" {
		if _, err := fmt.Sscan(s, &v); err != nil {
			return fmt.Errorf("str_value %q: %v", s, err)
		}
	}
	shape := c.ints("shape")
	n := 1
	for _, x := range shape {
		if x < 0 || x > maxConstElems || n*x > maxConstElems {
			return fmt.Errorf("shape %v: want dimensions >= 0 and at most %d elements", shape, maxConstElems)
		}
		n *= x
	}
	return c.alias("Out", c.konst(tensor.Full(d, v, shape...)))
}

// buildShape: Paddle's shape is int32.
func buildShape(c *ctx) error {
	x, err := c.must("Input")
	if err != nil {
		return err
	}
	s := c.emit1("shape", nil, tensor.Int64, x)
	c.emit("cast", op.Attrs{"dtype": "int32"}, []*graph.Value{s}, c.out("Out", tensor.Int32))
	return nil
}

// buildCast: out_dtype is a VarType.Type number.
func buildCast(c *ctx) error {
	x, err := c.must("X")
	if err != nil {
		return err
	}
	d, ok := attrDType[c.int("out_dtype", -1)]
	if !ok {
		return fmt.Errorf("out_dtype %d is not supported", c.int("out_dtype", -1))
	}
	c.emit("cast", op.Attrs{"dtype": d.String()}, []*graph.Value{x}, c.out("Out", d))
	return nil
}
