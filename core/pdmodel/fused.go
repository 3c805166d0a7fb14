package pdmodel

import (
	"fmt"
	"sort"
	"strings"

	"paddle/core/graph"
	"paddle/core/op"
)

// The fused operators Paddle's inference passes write into an optimized
// program (save_optimized_model, or a model exported after fusion), each
// lowered to the unfused registry ops:
//
//   - fc (fc_fuse_pass): Input flattened at in_num_col_dims, times W, plus
//     Bias, then activation_type; padding_weights means W carries 4 extra
//     rows and columns of padding, dropped here.
//   - fused_conv2d_add_act / conv2d_fusion (conv_elementwise_add_act_fuse_pass
//     and its add2 form): activation(conv(Input, Filter) + Bias + ResidualData),
//     activation from "activation" (fuse_alpha its parameter); split_channels
//     is refused.
//   - fused_conv2d, and conv2d / depthwise_conv2d carrying oneDNN's
//     attributes (conv_activation_mkldnn_fuse_pass and
//     conv_elementwise_add_mkldnn_fuse_pass): ResidualData added when
//     fuse_residual_connection, then fuse_activation with fuse_alpha and
//     fuse_beta, then fused_output_scale.
//   - fused_elementwise_add/sub/mul/div, and elementwise_* carrying the same
//     attributes: the broadcast op, fuse_activation, fused_output_scale, then
//     fused_unsqueeze2_axes.
//   - fused_matmul, and matmul / matmul_v2 carrying oneDNN's attributes:
//     fused_reshape_X then fused_transpose_X (and Y) on the operands,
//     matmul_alpha, ResidualData, fuse_activation, fused_output_scale, then
//     fused_transpose_Out and fused_reshape_Out.
//   - fused_elemwise_activation / fused_elemwise_add_activation:
//     functor_list [binary, unary] is binary(X, unary(Y)); [unary, binary]
//     is unary(binary(X, Y)).
//
// int8 and bfloat16 programs (quantization scales other than 1, or
// mkldnn_data_type other than float32) fail with an error naming the
// attribute.

func init() {
	for _, t := range []string{"conv2d", "depthwise_conv2d", "fused_conv2d"} {
		builders[t] = withEpilogue("Output", residualIf("fuse_residual_connection"), buildConv)
	}
	builders["fused_conv2d_add_act"] = buildConvAddAct
	builders["conv2d_fusion"] = buildConvAddAct
	for t, name := range map[string]string{"add": "add", "sub": "sub", "mul": "mul", "div": "div"} {
		b := buildElementwise(name)
		builders["elementwise_"+t] = withEpilogue("Out", nil, b)
		builders["fused_elementwise_"+t] = withEpilogue("Out", nil, b)
	}
	builders["matmul_v2"] = withEpilogue("Out", residualIf(""), buildMatMul("trans_x", "trans_y", "alpha"))
	builders["fused_matmul"] = withEpilogue("Out", residualIf(""), buildMatMul("trans_x", "trans_y", "matmul_alpha"))
	builders["matmul"] = withEpilogue("Out", residualIf(""), buildMatMul("transpose_X", "transpose_Y", "alpha"))
	builders["fused_elemwise_activation"] = buildElemwiseActivation
	builders["fused_elemwise_add_activation"] = buildElemwiseActivation
	builders["multihead_matmul"] = buildMultiheadMatmul
}

// activation applies the activation a fused op names (oneDNN's names and
// parameters: alpha and beta are fuse_alpha and fuse_beta, as
// activation_onednn_fuse_pass copies them from the activation op).
func (c *ctx) activation(v *graph.Value, attr, act string, alpha, beta float64, hasAlpha bool) (*graph.Value, error) {
	d := v.Meta.DType
	switch act {
	case "", "identity", "linear":
		return v, nil
	case "relu", "sigmoid", "tanh", "sqrt", "abs", "exp":
		return c.emit1(act, nil, d, v), nil
	case "relu6":
		// Paddle 2.4 and earlier wrote threshold to fuse_alpha (bounded_relu),
		// later versions to fuse_beta (clip_v2 from 0).
		t := 6.0
		if beta > 0 {
			t = beta
		} else if alpha > 0 {
			t = alpha
		}
		return c.emit1("clip", op.Attrs{"min": 0.0, "max": t}, d, v), nil
	case "leaky_relu":
		return c.emit1("leaky_relu", op.Attrs{"alpha": alpha}, d, v), nil
	case "swish":
		if !hasAlpha {
			alpha = 1
		}
		if alpha == 1 {
			return c.emit1("silu", nil, d, v), nil
		}
		s := c.emit1("sigmoid", nil, d, c.emit1("mul", nil, d, v, c.scalar(d, alpha)))
		return c.emit1("mul", nil, d, v, s), nil
	case "hard_swish", "hardswish":
		return c.emit1("hardswish", nil, d, v), nil
	case "hard_sigmoid":
		if !hasAlpha {
			alpha, beta = 0.2, 0.5
		}
		return c.emit1("hardsigmoid", op.Attrs{"alpha": alpha, "beta": beta}, d, v), nil
	case "clip":
		return c.emit1("clip", op.Attrs{"min": alpha, "max": beta}, d, v), nil
	case "gelu", "gelu_erf":
		return c.emit1("gelu", op.Attrs{"approximate": "none"}, d, v), nil
	case "gelu_tanh":
		return c.emit1("gelu", op.Attrs{"approximate": "tanh"}, d, v), nil
	case "mish":
		sp := c.emit1("softplus", op.Attrs{"beta": 1.0, "threshold": 20.0}, d, v)
		return c.emit1("mul", nil, d, v, c.emit1("tanh", nil, d, sp)), nil
	}
	return nil, fmt.Errorf("%s %q is not supported (want one of %s)", attr, act, strings.Join(activations, ", "))
}

// activations are the names activation accepts ("" is none).
var activations = []string{"identity", "relu", "relu6", "leaky_relu", "sigmoid", "tanh", "sqrt", "abs", "exp",
	"swish", "hard_swish", "hard_sigmoid", "clip", "gelu", "gelu_erf", "gelu_tanh", "mish"}

// quantAttrs are oneDNN's int8 scales, with the value that means none.
var quantAttrs = map[string]float64{"Scale_x": 1, "Scale_y": 1, "Scale_out": 1, "Scale_in": 1,
	"Scale_in_eltwise": 0, "scale_x": 1, "scale_y": 1, "scale_out": 1, "Scale_weights": 1}

// checkQuant refuses the attributes of an int8 or bfloat16 oneDNN program.
func (c *ctx) checkQuant() error {
	names := make([]string, 0, len(quantAttrs))
	for n := range quantAttrs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if c.op.Attr(n) == nil {
			continue
		}
		if f := c.floats(n); len(f) > 0 {
			for _, x := range f {
				if x != quantAttrs[n] {
					return fmt.Errorf("attribute %s %v (an int8 scale) is not supported", n, f)
				}
			}
			continue
		}
		if v := c.float(n, quantAttrs[n]); v != quantAttrs[n] {
			return fmt.Errorf("attribute %s %g (an int8 scale) is not supported", n, v)
		}
	}
	if t := c.str("mkldnn_data_type", "float32"); t != "float32" {
		return fmt.Errorf("attribute mkldnn_data_type %q is not supported (want float32)", t)
	}
	if c.bool("force_fp32_output", false) {
		return fmt.Errorf("attribute force_fp32_output (an int8 output) is not supported")
	}
	return nil
}

// residualIf says whether the op adds its ResidualData input: always when
// flag is "", else when the boolean attribute flag is set.
func residualIf(flag string) func(c *ctx) bool {
	return func(c *ctx) bool {
		return len(c.op.Input("ResidualData")) > 0 && (flag == "" || c.bool(flag, false))
	}
}

// withEpilogue wraps the builder of an op whose result (slot out) may carry
// what oneDNN's fuse passes fold in: ResidualData (when residual says so),
// fuse_activation with fuse_alpha and fuse_beta, fused_output_scale,
// fused_unsqueeze2_axes. Without them the op is built as it is.
func withEpilogue(out string, residual func(c *ctx) bool, b func(c *ctx) error) func(c *ctx) error {
	return func(c *ctx) error {
		if err := c.checkQuant(); err != nil {
			return err
		}
		if c.bool("fuse_residual_connection", false) && len(c.op.Input("ResidualData")) == 0 {
			return fmt.Errorf("fuse_residual_connection is set but input ResidualData is missing")
		}
		if err := b(c); err != nil {
			return err
		}
		names := c.op.Output(out)
		if len(names) == 0 {
			return fmt.Errorf("output %s is missing", out)
		}
		v := c.im.vals[names[0]]
		d := v.Meta.DType
		w := v
		if residual != nil && residual(c) {
			r, err := c.must("ResidualData")
			if err != nil {
				return err
			}
			w = c.emit1("add", nil, d, w, r)
		}
		w, err := c.activation(w, "fuse_activation", c.str("fuse_activation", ""),
			c.float("fuse_alpha", 0), c.float("fuse_beta", 0), c.op.Attr("fuse_alpha") != nil)
		if err != nil {
			return err
		}
		if s := c.float("fused_output_scale", 1); s != 1 {
			w = c.emit1("mul", nil, d, w, c.scalar(d, s))
		}
		if axes := c.ints("fused_unsqueeze2_axes"); len(axes) > 0 {
			w = c.emit1("unsqueeze", op.Attrs{"axes": axes}, d, w)
		}
		if p := c.ints("fused_transpose_Out"); len(p) > 0 {
			w = c.emit1("transpose", op.Attrs{"perm": p}, d, w)
		}
		if s := c.ints("fused_reshape_Out"); len(s) > 0 {
			w = c.emit1("reshape", op.Attrs{}, d, w)
			c.reshapeAttr(c.lastNode(), s)
		}
		if w == v {
			return nil
		}
		v.Name = c.name + "/unfused"
		return c.alias(out, w)
	}
}

// fusedOperand is input slot s of a matmul after oneDNN's folded reshape
// and transpose (fused_reshape_<s>, then fused_transpose_<s>).
func (c *ctx) fusedOperand(s string) (*graph.Value, error) {
	v, err := c.must(s)
	if err != nil {
		return nil, err
	}
	d := v.Meta.DType
	if shape := c.ints("fused_reshape_" + s); len(shape) > 0 {
		v = c.emit1("reshape", op.Attrs{}, d, v)
		c.reshapeAttr(c.lastNode(), shape)
	}
	if p := c.ints("fused_transpose_" + s); len(p) > 0 {
		v = c.emit1("transpose", op.Attrs{"perm": p}, d, v)
	}
	return v, nil
}

// buildConvAddAct is fused_conv2d_add_act (conv2d_fusion):
// activation(conv + Bias + ResidualData).
func buildConvAddAct(c *ctx) error {
	if s := c.ints("split_channels"); len(s) > 0 {
		return fmt.Errorf("attribute split_channels %v is not supported", s)
	}
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
	d := x.Meta.DType
	in := []*graph.Value{x, w}
	if b := c.in("Bias"); b != nil {
		if b.Const != nil && len(b.Const.Shape()) != 1 {
			k := c.konst(b.Const.Reshape(b.Const.Len()))
			k.Param = b.Param
			b = k
		}
		in = append(in, b)
	}
	v := c.emit1("conv2d", a, d, in...)
	if r := c.in("ResidualData"); r != nil {
		v = c.emit1("add", nil, d, v, r)
	}
	v, err = c.activation(v, "activation", c.str("activation", "relu"), c.float("fuse_alpha", 0), 0,
		c.op.Attr("fuse_alpha") != nil)
	if err != nil {
		return err
	}
	return c.alias("Output", v)
}

// elemwiseUnary and elemwiseBinary are the functors fused_elemwise_activation
// composes (Paddle's fused_elemwise_activation_op.h).
var (
	elemwiseUnary  = map[string]string{"relu": "relu", "tanh": "tanh", "sigmoid": "sigmoid", "scale": "", "gelu": "gelu"}
	elemwiseBinary = map[string]string{"elementwise_add": "add", "elementwise_mul": "mul"}
)

// buildElemwiseActivation: functor_list [binary, unary] is binary(X,
// unary(Y)); [unary, binary] is unary(binary(X, Y)); scale's factor is the
// scale attribute.
func buildElemwiseActivation(c *ctx) error {
	fs := c.strs("functor_list")
	if len(fs) != 2 {
		return fmt.Errorf("attribute functor_list %q: want two functors", fs)
	}
	x, err := c.must("X")
	if err != nil {
		return err
	}
	y, err := c.must("Y")
	if err != nil {
		return err
	}
	d := x.Meta.DType
	unary := func(name string, v *graph.Value) *graph.Value {
		switch name {
		case "scale":
			return c.emit1("mul", nil, d, v, c.scalar(d, c.float("scale", 0)))
		case "gelu":
			return c.emit1("gelu", op.Attrs{"approximate": "none"}, d, v)
		}
		return c.emit1(name, nil, d, v)
	}
	binary := func(name string, a, b *graph.Value) *graph.Value {
		if axis := c.int("axis", -1); axis != -1 && c.rank(b) >= 0 && c.rank(b) < c.rank(a) {
			b = c.trailingOnes(b, c.rank(a)-axis-c.rank(b))
		}
		return c.emit1(elemwiseBinary[name], nil, d, a, b)
	}
	_, b0 := elemwiseBinary[fs[0]]
	_, u1 := elemwiseUnary[fs[1]]
	_, u0 := elemwiseUnary[fs[0]]
	_, b1 := elemwiseBinary[fs[1]]
	var v *graph.Value
	switch {
	case b0 && u1:
		v = binary(fs[0], x, unary(fs[1], y))
	case u0 && b1:
		v = unary(fs[0], binary(fs[1], x, y))
	default:
		return fmt.Errorf("attribute functor_list %q is not supported (want a binary of %s and a unary of %s)",
			fs, keys(elemwiseBinary), keys(elemwiseUnary))
	}
	return c.alias("Out", v)
}

func keys(m map[string]string) string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// buildMultiheadMatmul is multihead_matmul (multihead_matmul_fuse_pass_v2/v3,
// the attention of transformer and SVTR blocks): Input [B, S, H] times W
// [H, 3, H] plus Bias [3, H] gives Q, K, V, each split into head_number
// heads; softmax(alpha·Q·Kᵀ + BiasQK)·V with the heads joined again is Out
// [B, S, H].
func buildMultiheadMatmul(c *ctx) error {
	if q, k, v := c.bool("transpose_Q", false), c.bool("transpose_K", true), c.bool("transpose_V", false); q || !k || v {
		return fmt.Errorf("attributes transpose_Q %v, transpose_K %v, transpose_V %v are not supported (want false, true, false)", q, k, v)
	}
	x, err := c.must("Input")
	if err != nil {
		return err
	}
	w, err := c.must("W")
	if err != nil {
		return err
	}
	b, err := c.must("Bias")
	if err != nil {
		return err
	}
	heads := c.int("head_number", 1)
	wd := c.dims(w)
	if w.Const == nil || b.Const == nil || len(wd) != 3 || wd[1] != 3 || heads < 1 || wd[2]%heads != 0 || c.rank(x) != 3 {
		return fmt.Errorf("W of dims %v, head_number %d, Input of rank %d: want persistable W [H, 3, N·D], Bias [3, N·D] and a rank-3 Input",
			wd, heads, c.rank(x))
	}
	if b.Const.Len() != 3*wd[2] {
		return fmt.Errorf("Bias of %d values for W of dims %v: want %d", b.Const.Len(), wd, 3*wd[2])
	}
	d := x.Meta.DType
	w2 := c.konst(w.Const.Reshape(wd[0], 3*wd[2]))
	w2.Param = w.Param
	b2 := c.konst(b.Const.Reshape(3 * wd[2]))
	b2.Param = b.Param
	qkv := c.emit1("add", nil, d, c.emit1("matmul", op.Attrs{"trans_a": false, "trans_b": false}, d, x, w2), b2)
	qkv = c.emit1("reshape", op.Attrs{}, d, qkv)
	c.reshapeAttr(c.lastNode(), []int{0, 0, 3, heads, wd[2] / heads})
	qkv = c.emit1("transpose", op.Attrs{"perm": []int{2, 0, 3, 1, 4}}, d, qkv) // [3, B, N, S, D]
	split := []*graph.Value{c.tmp(d), c.tmp(d), c.tmp(d)}
	c.emit("split", op.Attrs{"axis": 0, "num_outputs": 3}, []*graph.Value{qkv}, split...)
	parts := make([]*graph.Value, 3)
	for i, v := range split {
		parts[i] = c.emit1("squeeze", op.Attrs{"axes": []int{0}}, d, v)
	}
	s := c.emit1("matmul", op.Attrs{"trans_a": false, "trans_b": true}, d, parts[0], parts[1])
	if alpha := c.float("alpha", 1); alpha != 1 {
		s = c.emit1("mul", nil, d, s, c.scalar(d, alpha))
	}
	if m := c.in("BiasQK"); m != nil {
		s = c.emit1("add", nil, d, s, m)
	}
	s = c.emit1("softmax", op.Attrs{"axis": -1}, d, s)
	o := c.emit1("matmul", op.Attrs{"trans_a": false, "trans_b": false}, d, s, parts[2])
	o = c.emit1("transpose", op.Attrs{"perm": []int{0, 2, 1, 3}}, d, o)
	o = c.emit1("reshape", op.Attrs{}, d, o)
	c.reshapeAttr(c.lastNode(), []int{0, 0, wd[2]})
	return c.alias("Out", o)
}
