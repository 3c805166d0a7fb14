package onnx

import (
	"fmt"
	"math"

	"paddle/core/graph"
	"paddle/core/onnx/onnxpb"
	"paddle/core/op"
	"paddle/core/tensor"
)

// exportFunc writes the ONNX form of node n (in/out are its value names).
type exportFunc func(e *exporter, n *graph.Node, in, out []string) error

var exporters = map[string]exportFunc{}

func init() {
	// twins whose attributes carry over unchanged (or that have none)
	for _, name := range []string{"abs", "add", "sub", "mul", "div", "pow", "maximum", "minimum", "neg", "exp", "log",
		"sqrt", "sign", "reciprocal", "floor", "ceil", "round", "erf", "sin", "cos", "relu", "sigmoid", "tanh",
		"hardswish", "softplus", "equal", "greater", "less", "greater_equal", "less_equal", "logical_and",
		"logical_or", "logical_not", "where", "global_avg_pool", "global_max_pool"} {
		exporters[name] = copyAttrs(nil)
	}
	exporters["leaky_relu"] = copyAttrs(floatAttr("alpha", 0.01))
	exporters["elu"] = copyAttrs(floatAttr("alpha", 1))
	exporters["hardsigmoid"] = copyAttrs(func(a op.Attrs) []*onnxpb.Attribute {
		return []*onnxpb.Attribute{aFloat("alpha", a.Float("alpha", 0.2)), aFloat("beta", a.Float("beta", 0.5))}
	})
	exporters["shape"] = copyAttrs(func(a op.Attrs) []*onnxpb.Attribute {
		var at []*onnxpb.Attribute
		if _, ok := a["start"]; ok {
			at = append(at, aInt("start", a.Int("start", 0)))
		}
		if _, ok := a["end"]; ok {
			at = append(at, aInt("end", a.Int("end", 0)))
		}
		return at
	})
	exporters["gather"] = copyAttrs(intAttr("axis", 0))
	exporters["gather_elements"] = copyAttrs(intAttr("axis", 0))
	exporters["concat"] = copyAttrs(intAttr("axis", 0))
	exporters["flatten"] = copyAttrs(intAttr("axis", 1))
	exporters["softmax"] = copyAttrs(intAttr("axis", -1))
	exporters["log_softmax"] = copyAttrs(intAttr("axis", -1))
	exporters["transpose"] = copyAttrs(func(a op.Attrs) []*onnxpb.Attribute {
		if p := a.Ints("perm", nil); p != nil {
			return []*onnxpb.Attribute{aInts("perm", p)}
		}
		return nil
	})
	exporters["cast"] = copyAttrs(func(a op.Attrs) []*onnxpb.Attribute {
		d, _ := tensor.ParseDType(a.Str("dtype", ""))
		return []*onnxpb.Attribute{aInt("to", int(ONNXType(d)))}
	})
	exporters["batch_norm"] = copyAttrs(floatAttr("epsilon", 1e-5))
	exporters["instance_norm"] = copyAttrs(floatAttr("epsilon", 1e-5))
	exporters["layer_norm"] = copyAttrs(func(a op.Attrs) []*onnxpb.Attribute {
		return []*onnxpb.Attribute{aInt("axis", a.Int("axis", -1)), aFloat("epsilon", a.Float("epsilon", 1e-5))}
	})
	exporters["conv2d"] = exportConv
	exporters["conv_transpose2d"] = exportConv
	exporters["max_pool2d"] = exportPool
	exporters["avg_pool2d"] = exportPool
	exporters["matmul"] = exportMatMul
	exporters["clip"] = exportClip
	for _, name := range []string{"sum", "mean", "max", "min", "prod", "reduce_l2"} {
		exporters[name] = exportReduce
	}
	exporters["argmax"] = exportArg
	exporters["argmin"] = exportArg
	exporters["reshape"] = exportReshape
	exporters["broadcast_to"] = inputsFrom("Expand", "shape")
	exporters["tile"] = inputsFrom("Tile", "repeats")
	exporters["squeeze"] = inputsFrom("Squeeze", "axes")
	exporters["unsqueeze"] = inputsFrom("Unsqueeze", "axes")
	exporters["slice"] = inputsFrom("Slice", "starts", "ends", "axes", "steps")
	exporters["split"] = exportSplit
	exporters["pad"] = exportPad
	exporters["topk"] = exportTopK
	exporters["cumsum"] = exportCumSum
	exporters["resize"] = exportResize
	exporters["constant_of_shape"] = exportConstantOfShape
	exporters["range"] = exportRange
	exporters["onnx_lstm"] = exportRNN("LSTM")
	exporters["onnx_gru"] = exportRNN("GRU")
	exporters["relu6"] = exportRelu6
	exporters["silu"] = exportSilu
	exporters["rsqrt"] = func(e *exporter, n *graph.Node, in, out []string) error {
		s := e.fresh(out[0] + "/sqrt")
		e.node("Sqrt", in, []string{s})
		e.node("Reciprocal", []string{s}, out)
		return nil
	}
	exporters["gelu"] = exportGelu
	exporters["conv2d_act"] = exportConvAct
	exporters["embedding"] = func(e *exporter, n *graph.Node, in, out []string) error {
		e.node("Gather", []string{in[1], in[0]}, out, aInt("axis", 0)) // weight rows by id
		return nil
	}
	exporters["one_hot"] = func(e *exporter, n *graph.Node, in, out []string) error {
		d, err := tensor.ParseDType(n.Attrs.Str("dtype", "float32"))
		if err != nil {
			return err
		}
		depth := e.konst(out[0]+"/depth", tensor.Scalar(int64(n.Attrs.Int("depth", 0))))
		vals := e.konst(out[0]+"/values", tensor.FromSlice([]float64{0, 1}, 2).Cast(d))
		e.node("OneHot", []string{in[0], depth, vals}, out, aInt("axis", -1))
		return nil
	}
	exporters["adaptive_avg_pool2d"] = func(e *exporter, n *graph.Node, in, out []string) error {
		if o := n.Attrs.Ints("output_size", nil); len(o) != 2 || o[0] != 1 || o[1] != 1 {
			return fmt.Errorf("adaptive_avg_pool2d to %v: only 1x1 (GlobalAveragePool) has an ONNX form", o)
		}
		e.node("GlobalAveragePool", in, out)
		return nil
	}
	exporters["gemm"] = func(e *exporter, n *graph.Node, in, out []string) error {
		t := e.fresh(out[0] + "/mm")
		if err := exportMatMul(e, n, in[:2], []string{t}); err != nil {
			return err
		}
		e.node("Add", []string{t, in[2]}, out)
		return nil
	}
}

// exportConvAct writes a fused conv2d_act (core/graph/pass) as Conv and its activation.
func exportConvAct(e *exporter, n *graph.Node, in, out []string) error {
	t := e.fresh(out[0] + "/conv")
	if err := exportConv(e, &graph.Node{Op: op.Lookup("conv2d"), Attrs: n.Attrs, In: n.In, Out: n.Out, Name: n.Name}, in, []string{t}); err != nil {
		return err
	}
	act := op.Lookup(n.Attrs.Str("act", ""))
	f := exporters[n.Attrs.Str("act", "")]
	if act == nil || f == nil {
		return fmt.Errorf("no ONNX form for activation %q", n.Attrs.Str("act", ""))
	}
	aa, _ := n.Attrs["act_attrs"].(op.Attrs)
	scale, shift := n.Attrs.Float("scale", 1), n.Attrs.Float("shift", 0)
	final := out
	if scale != 1 || shift != 0 { // the activation's output is scaled and shifted after
		out = []string{e.fresh(final[0] + "/act")}
	}
	an := &graph.Node{Op: act, Attrs: aa, In: []*graph.Value{{Name: t, Meta: n.In[0].Meta}}, Out: n.Out, Name: n.Name}
	if err := f(e, an, []string{t}, out); err != nil || out[0] == final[0] {
		return err
	}
	d := n.Out[0].Meta.DType
	if scale != 1 {
		next := final[0]
		if shift != 0 {
			next = e.fresh(final[0] + "/scaled")
		}
		e.node("Mul", []string{out[0], e.konst(final[0]+"/scale", tensor.Scalar(scale).Cast(d))}, []string{next})
		out = []string{next}
	}
	if shift != 0 {
		e.node("Add", []string{out[0], e.konst(final[0]+"/shift", tensor.Scalar(shift).Cast(d))}, final)
	}
	return nil
}

// copyAttrs exports n as its registry twin with the attributes attrs makes.
func copyAttrs(attrs func(op.Attrs) []*onnxpb.Attribute) exportFunc {
	return func(e *exporter, n *graph.Node, in, out []string) error {
		var at []*onnxpb.Attribute
		if attrs != nil {
			at = attrs(n.Attrs)
		}
		e.node(n.Op.ONNX, in, out, at...)
		return nil
	}
}

func intAttr(name string, def int) func(op.Attrs) []*onnxpb.Attribute {
	return func(a op.Attrs) []*onnxpb.Attribute { return []*onnxpb.Attribute{aInt(name, a.Int(name, def))} }
}

func floatAttr(name string, def float64) func(op.Attrs) []*onnxpb.Attribute {
	return func(a op.Attrs) []*onnxpb.Attribute { return []*onnxpb.Attribute{aFloat(name, a.Float(name, def))} }
}

// inputsFrom exports ops whose attributes are ONNX inputs (int64 lists), in order.
func inputsFrom(opType string, attrs ...string) exportFunc {
	return func(e *exporter, n *graph.Node, in, out []string) error {
		for _, k := range attrs {
			in = append(in, e.attrInput(n, k, int64s))
		}
		for len(in) > 1 && in[len(in)-1] == "" {
			in = in[:len(in)-1]
		}
		e.node(opType, in, out)
		return nil
	}
}

// exportReshape: a shape read literally (zeros included) needs allowzero=1.
func exportReshape(e *exporter, n *graph.Node, in, out []string) error {
	literal := false
	for _, d := range n.Attrs.Ints("shape", nil) {
		literal = literal || d == 0
	}
	for _, a := range n.AttrIn {
		literal = literal || (a.Attr == "shape" && a.Kind != graph.AttrReshape)
	}
	var at []*onnxpb.Attribute
	if literal {
		at = append(at, aInt("allowzero", 1))
	}
	e.node("Reshape", append(in, e.attrInput(n, "shape", int64s)), out, at...)
	return nil
}

// windowAttrs copies strides, pads, dilations, auto_pad and friends.
func windowAttrs(a op.Attrs, keys ...string) []*onnxpb.Attribute {
	var at []*onnxpb.Attribute
	for _, k := range keys {
		switch v := a[k].(type) {
		case []int:
			at = append(at, aInts(k, v))
		case string:
			if v != "" {
				at = append(at, aString(k, v))
			}
		}
	}
	return at
}

func exportConv(e *exporter, n *graph.Node, in, out []string) error {
	at := windowAttrs(n.Attrs, "strides", "pads", "dilations", "auto_pad", "output_padding", "output_shape")
	at = append(at, aInt("group", n.Attrs.Int("groups", 1)))
	e.node(n.Op.ONNX, in, out, at...)
	return nil
}

func exportPool(e *exporter, n *graph.Node, in, out []string) error {
	keys := []string{"kernel_shape", "strides", "pads", "auto_pad"}
	if n.Op.Name == "max_pool2d" {
		keys = append(keys, "dilations")
	}
	at := windowAttrs(n.Attrs, keys...)
	at = append(at, aBool("ceil_mode", flag(n.Attrs, "ceil_mode")))
	if n.Op.Name == "avg_pool2d" {
		at = append(at, aBool("count_include_pad", flag(n.Attrs, "count_include_pad")))
	}
	e.node(n.Op.ONNX, in, out, at...)
	return nil
}

// flag reads a boolean attribute stored as bool or int.
func flag(a op.Attrs, k string) bool {
	switch v := a[k].(type) {
	case bool:
		return v
	case int:
		return v != 0
	}
	return false
}

// exportMatMul: a transposed operand makes it a Gemm when both operands
// are rank 2 (or of unknown rank); a batched one (a Linear on (N, T, E)) is
// transposed over its last two axes first, then MatMul.
func exportMatMul(e *exporter, n *graph.Node, in, out []string) error {
	ta, tb := n.Attrs.Bool("trans_a", false), n.Attrs.Bool("trans_b", false)
	if !ta && !tb {
		e.node("MatMul", in, out)
		return nil
	}
	ra, rb := len(n.In[0].Meta.Shape), len(n.In[1].Meta.Shape)
	if (ra == 2 || ra == 0) && (rb == 2 || rb == 0) {
		e.node("Gemm", in, out, aBool("transA", ta), aBool("transB", tb))
		return nil
	}
	in = append([]string(nil), in...)
	for i, tr := range []bool{ta, tb} {
		r := len(n.In[i].Meta.Shape)
		if !tr {
			continue
		}
		if r < 2 {
			return fmt.Errorf("transposed operand %d of rank %d", i, r)
		}
		perm := make([]int, r)
		for j := range perm {
			perm[j] = j
		}
		perm[r-1], perm[r-2] = r-2, r-1
		t := e.fresh(out[0] + "/t")
		e.node("Transpose", []string{in[i]}, []string{t}, aInts("perm", perm))
		in[i] = t
	}
	e.node("MatMul", in, out)
	return nil
}

// scalarOf makes a rank-0 tensor of dtype d.
func scalarOf(d tensor.DType, v float64) *tensor.Tensor { return tensor.Full(d, v) }

func exportClip(e *exporter, n *graph.Node, in, out []string) error {
	d := n.In[0].Meta.DType
	lo, hi := "", ""
	conv := func(v any) *tensor.Tensor { return scalarOf(d, v.(float64)) }
	if v := n.Attrs.Float("min", math.Inf(-1)); !math.IsInf(v, -1) || len(n.AttrIn) > 0 {
		lo = e.attrInput(n, "min", conv)
	}
	if v := n.Attrs.Float("max", math.Inf(1)); !math.IsInf(v, 1) || len(n.AttrIn) > 0 {
		hi = e.attrInput(n, "max", conv)
	}
	e.node("Clip", []string{in[0], lo, hi}, out)
	return nil
}

func exportReduce(e *exporter, n *graph.Node, in, out []string) error {
	at := []*onnxpb.Attribute{aBool("keepdims", n.Attrs.Bool("keepdims", false))}
	if n.Op.Name == "sum" { // axes is an input from opset 13
		ax := e.attrInput(n, "axes", int64s)
		if ax != "" {
			in = append(in, ax)
		}
		noop := false
		if v, ok := n.Attrs["axes"].([]int); ok && len(v) == 0 {
			noop = true
		}
		for _, a := range n.AttrIn {
			noop = noop || a.Kind == graph.AttrIntsKeepEmpty
		}
		if noop {
			at = append(at, aInt("noop_with_empty_axes", 1))
		}
		e.node("ReduceSum", in, out, at...)
		return nil
	}
	if len(n.AttrIn) > 0 {
		return fmt.Errorf("axes computed at run time need opset 18")
	}
	if ax := n.Attrs.Ints("axes", nil); ax != nil {
		if len(ax) == 0 {
			e.node("Identity", in, out)
			return nil
		}
		at = append(at, aInts("axes", ax))
	}
	e.node(n.Op.ONNX, in, out, at...)
	return nil
}

func exportArg(e *exporter, n *graph.Node, in, out []string) error {
	a := n.Attrs
	e.node(n.Op.ONNX, in, out, aInt("axis", a.Int("axis", 0)), aBool("keepdims", a.Bool("keepdims", false)),
		aBool("select_last_index", a.Bool("select_last_index", false)))
	return nil
}

func exportSplit(e *exporter, n *graph.Node, in, out []string) error {
	if s := e.attrInput(n, "sizes", int64s); s != "" {
		in = append(in, s)
	} else if k := n.Attrs.Int("num_outputs", len(out)); k != len(out) {
		return fmt.Errorf("num_outputs %d differs from the %d outputs", k, len(out))
	}
	e.node("Split", in, out, aInt("axis", n.Attrs.Int("axis", 0)))
	return nil
}

func exportPad(e *exporter, n *graph.Node, in, out []string) error {
	if n.Attrs["axes"] != nil {
		return fmt.Errorf("pad axes need opset 18")
	}
	d := n.In[0].Meta.DType
	in = append(in, e.attrInput(n, "pads", int64s))
	if v := e.attrInput(n, "value", func(v any) *tensor.Tensor { return scalarOf(d, v.(float64)) }); v != "" {
		in = append(in, v)
	}
	e.node("Pad", in, out, aString("mode", n.Attrs.Str("mode", "constant")))
	return nil
}

func exportTopK(e *exporter, n *graph.Node, in, out []string) error {
	k := e.attrInput(n, "k", func(v any) *tensor.Tensor { return tensor.FromSlice([]int64{int64(v.(int))}, 1) })
	a := n.Attrs
	e.node("TopK", []string{in[0], k}, out, aInt("axis", a.Int("axis", -1)), aBool("largest", a.Bool("largest", true)),
		aBool("sorted", a.Bool("sorted", true)))
	return nil
}

func exportCumSum(e *exporter, n *graph.Node, in, out []string) error {
	ax := e.attrInput(n, "axis", func(v any) *tensor.Tensor { return tensor.Scalar(int64(v.(int))) })
	if ax == "" {
		ax = e.konst(out[0]+"/axis", tensor.Scalar(int64(0)))
	}
	a := n.Attrs
	e.node("CumSum", []string{in[0], ax}, out, aBool("exclusive", a.Bool("exclusive", false)), aBool("reverse", a.Bool("reverse", false)))
	return nil
}

func exportResize(e *exporter, n *graph.Node, in, out []string) error {
	a := n.Attrs
	at := []*onnxpb.Attribute{aString("mode", a.Str("mode", "nearest")),
		aString("coordinate_transformation_mode", a.Str("coordinate_transformation_mode", "half_pixel")),
		aString("nearest_mode", a.Str("nearest_mode", "round_prefer_floor"))}
	for _, ai := range n.AttrIn { // the original 4-element scales or sizes
		if ai.Attr == "scales" {
			e.node("Resize", []string{in[0], "", e.name(ai.V)}, out, at...)
			return nil
		}
		if ai.Attr == "sizes" {
			e.node("Resize", []string{in[0], "", "", e.name(ai.V)}, out, at...)
			return nil
		}
	}
	if s := a.Floats("scales", nil); s != nil {
		sc := e.konst(out[0]+"/scales", tensor.FromSlice([]float32{1, 1, float32(s[0]), float32(s[1])}, 4))
		e.node("Resize", []string{in[0], "", sc}, out, at...)
		return nil
	}
	sz := a.Ints("sizes", nil)
	if sz == nil {
		return fmt.Errorf("resize has neither scales nor sizes")
	}
	// sizes = concat(shape(x)[:2], [oh, ow])
	sh, nc := e.fresh(out[0]+"/shape"), e.fresh(out[0]+"/nc")
	e.node("Shape", []string{in[0]}, []string{sh}, aInt("end", 2))
	_ = nc
	hw := e.konst(out[0]+"/hw", int64s(sz))
	sizes := e.fresh(out[0] + "/sizes")
	e.node("Concat", []string{sh, hw}, []string{sizes}, aInt("axis", 0))
	e.node("Resize", []string{in[0], "", "", sizes}, out, at...)
	return nil
}

func exportConstantOfShape(e *exporter, n *graph.Node, in, out []string) error {
	d, err := tensor.ParseDType(n.Attrs.Str("dtype", "float32"))
	if err != nil {
		return err
	}
	s := e.attrInput(n, "shape", int64s)
	if s == "" {
		s = e.konst(out[0]+"/shape", tensor.FromSlice([]int64{}, 0))
	}
	val := TensorProto("value", tensor.Full(d, n.Attrs.Float("value", 0), 1))
	e.node("ConstantOfShape", []string{s}, out, &onnxpb.Attribute{Name: "value", Type: onnxpb.AttrTensor, T: val})
	return nil
}

func exportRange(e *exporter, n *graph.Node, in, out []string) error {
	d, err := tensor.ParseDType(n.Attrs.Str("dtype", "int64"))
	if err != nil {
		return err
	}
	var args []string
	for _, k := range []string{"start", "limit", "delta"} {
		v := e.attrInput(n, k, func(v any) *tensor.Tensor { return scalarOf(d, v.(float64)) })
		if v == "" {
			def := 0.0
			if k == "delta" {
				def = 1
			}
			v = e.konst(out[0]+"/"+k, scalarOf(d, def))
		}
		args = append(args, v)
	}
	e.node("Range", args, out)
	return nil
}

func exportRNN(opType string) exportFunc {
	return func(e *exporter, n *graph.Node, in, out []string) error {
		a := n.Attrs
		full := []string{in[0], in[1], in[2], "", "", "", ""}
		k := 3
		for _, p := range a.Str("present", "") {
			full[3+map[rune]int{'B': 0, 'S': 1, 'H': 2, 'C': 3}[p]] = in[k]
			k++
		}
		for len(full) > 3 && full[len(full)-1] == "" {
			full = full[:len(full)-1]
		}
		at := []*onnxpb.Attribute{aString("direction", a.Str("direction", "forward")), aInt("layout", a.Int("layout", 0))}
		if h := a.Int("hidden_size", 0); h > 0 {
			at = append(at, aInt("hidden_size", h))
		} else if w := n.In[1].Meta.Shape; len(w) == 3 && w[1] > 0 {
			g := 4
			if opType == "GRU" {
				g = 3
			}
			at = append(at, aInt("hidden_size", w[1]/g))
		}
		if c := a.Float("clip", 0); c > 0 {
			at = append(at, aFloat("clip", c))
		}
		if opType == "LSTM" && a.Int("input_forget", 0) != 0 {
			at = append(at, aInt("input_forget", 1))
		}
		if opType == "GRU" && a.Int("linear_before_reset", 0) != 0 {
			at = append(at, aInt("linear_before_reset", 1))
		}
		e.node(opType, full, out, at...)
		return nil
	}
}

func exportRelu6(e *exporter, n *graph.Node, in, out []string) error {
	d := n.In[0].Meta.DType
	lo, hi := e.konst(out[0]+"/min", scalarOf(d, 0)), e.konst(out[0]+"/max", scalarOf(d, 6))
	e.node("Clip", []string{in[0], lo, hi}, out)
	return nil
}

func exportSilu(e *exporter, n *graph.Node, in, out []string) error {
	s := e.fresh(out[0] + "/sigmoid")
	e.node("Sigmoid", in, []string{s})
	e.node("Mul", []string{in[0], s}, out)
	return nil
}

// exportGelu writes Gelu (opset 20) with opset-17 ops: 0.5·x·(1 + erf(x/√2)),
// or the tanh approximation 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
func exportGelu(e *exporter, n *graph.Node, in, out []string) error {
	d := n.In[0].Meta.DType
	x := in[0]
	k := func(name string, v float64) string { return e.konst(out[0]+"/"+name, scalarOf(d, v)) }
	t := func(s string) string { return e.fresh(out[0] + "/" + s) }
	inner := t("inner")
	if n.Attrs.Str("approximate", "none") == "tanh" {
		x3, x2, c, s, u := t("x3"), t("x2"), t("c"), t("s"), t("u")
		e.node("Mul", []string{x, x}, []string{x2})
		e.node("Mul", []string{x2, x}, []string{x3})
		e.node("Mul", []string{x3, k("a", 0.044715)}, []string{c})
		e.node("Add", []string{x, c}, []string{s})
		e.node("Mul", []string{s, k("b", math.Sqrt(2/math.Pi))}, []string{u})
		e.node("Tanh", []string{u}, []string{inner})
	} else {
		u := t("u")
		e.node("Div", []string{x, k("sqrt2", math.Sqrt2)}, []string{u})
		e.node("Erf", []string{u}, []string{inner})
	}
	p1, h := t("p1"), t("h")
	e.node("Add", []string{inner, k("one", 1)}, []string{p1})
	e.node("Mul", []string{x, k("half", 0.5)}, []string{h})
	e.node("Mul", []string{h, p1}, out)
	return nil
}
