package op

import (
	"fmt"
	"math"

	"paddle/core/tensor"
)

// An op's ONNX form. A Def's Export rule writes the ONNX nodes of one
// application of the op through an ONNXWriter, which core/onnx implements
// over its protobuf types; core/op knows the ONNX operators and their
// attributes (the twin is part of the op's definition), not the file format.

// ExportRule writes the ONNX form of one node whose input and output value
// names are in and out.
type ExportRule func(w ONNXWriter, in, out []string) error

// ONNXWriter is what an ExportRule writes with: the node's op, attributes
// and value metas, and the means to add ONNX nodes and constants.
type ONNXWriter interface {
	// Op is the node's op.
	Op() *Def
	// Attrs are the node's attributes.
	Attrs() Attrs
	// In and Out are the metas of the node's i-th input and output.
	In(i int) Meta
	Out(i int) Meta
	// RuntimeAttrs lists the attributes that graph values supply at run time.
	RuntimeAttrs() []RuntimeAttr
	// Node appends an ONNX node.
	Node(opType string, in, out []string, attrs ...ONNXAttr)
	// Fresh returns an unused value name starting with hint.
	Fresh(hint string) string
	// Const adds t as an initializer and returns its name.
	Const(hint string, t *T) string
	// AttrInput is the ONNX input carrying attribute attr: the value that
	// supplies it at run time, an initializer made by conv from the
	// attribute's value, or "" when neither is present.
	AttrInput(attr string, conv func(v any) *T) string
	// Sub is a writer for another op d with attributes a and input metas in
	// (and this node's outputs), for rules that write one op as others.
	Sub(d *Def, a Attrs, in ...Meta) ONNXWriter
}

// RuntimeAttr is an attribute that a graph value supplies at run time, and how it is read.
type RuntimeAttr struct {
	Attr string
	Kind AttrKind
}

// ONNXAttr is one attribute of an ONNX node: Value is an int64, float32,
// []int64, string, *T (a tensor attribute) or tensor.DType (an int
// attribute holding the ONNX data type, as Cast's "to").
type ONNXAttr struct {
	Name  string
	Value any
}

// ONNXInt is an int attribute.
func ONNXInt(name string, v int) ONNXAttr { return ONNXAttr{name, int64(v)} }

// ONNXBool is a 0/1 int attribute.
func ONNXBool(name string, v bool) ONNXAttr {
	if v {
		return ONNXInt(name, 1)
	}
	return ONNXInt(name, 0)
}

// ONNXInts is an ints attribute.
func ONNXInts(name string, v []int) ONNXAttr {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return ONNXAttr{name, out}
}

// ONNXFloat is a float attribute.
func ONNXFloat(name string, v float64) ONNXAttr { return ONNXAttr{name, float32(v)} }

// ONNXString is a string attribute.
func ONNXString(name, v string) ONNXAttr { return ONNXAttr{name, v} }

// ONNXTensor is a tensor attribute.
func ONNXTensor(name string, t *T) ONNXAttr { return ONNXAttr{name, t} }

// exports sets d's Export rule.
func (d *Def) exports(r ExportRule) *Def {
	d.Export = r
	return d
}

// exportTwin writes the ONNX twin with no attributes.
var exportTwin = copyAttrs(nil)

// rsqrt and embedding have no ONNX twin: Sqrt then Reciprocal; Gather of the weight rows by id.
func exportRsqrt(w ONNXWriter, in, out []string) error {
	s := w.Fresh(out[0] + "/sqrt")
	w.Node("Sqrt", in, []string{s})
	w.Node("Reciprocal", []string{s}, out)
	return nil
}

func exportEmbedding(w ONNXWriter, in, out []string) error {
	w.Node("Gather", []string{in[1], in[0]}, out, ONNXInt("axis", 0)) // weight rows by id
	return nil
}

func exportOneHot(w ONNXWriter, in, out []string) error {
	d, err := tensor.ParseDType(w.Attrs().Str("dtype", "float32"))
	if err != nil {
		return err
	}
	depth := w.Const(out[0]+"/depth", tensor.Scalar(int64(w.Attrs().Int("depth", 0))))
	vals := w.Const(out[0]+"/values", tensor.FromSlice([]float64{0, 1}, 2).Cast(d))
	w.Node("OneHot", []string{in[0], depth, vals}, out, ONNXInt("axis", -1))
	return nil
}

func exportAdaptiveAvgPool(w ONNXWriter, in, out []string) error {
	if o := w.Attrs().Ints("output_size", nil); len(o) != 2 || o[0] != 1 || o[1] != 1 {
		return fmt.Errorf("adaptive_avg_pool2d to %v: only 1x1 (GlobalAveragePool) has an ONNX form", o)
	}
	w.Node("GlobalAveragePool", in, out)
	return nil
}

func exportGemm(w ONNXWriter, in, out []string) error {
	t := w.Fresh(out[0] + "/mm")
	if err := exportMatMul(w, in[:2], []string{t}); err != nil {
		return err
	}
	w.Node("Add", []string{t, in[2]}, out)
	return nil
}

// shapeAttrs are Shape's optional start and end.
func shapeAttrs(a Attrs) []ONNXAttr {
	var at []ONNXAttr
	if _, ok := a["start"]; ok {
		at = append(at, ONNXInt("start", a.Int("start", 0)))
	}
	if _, ok := a["end"]; ok {
		at = append(at, ONNXInt("end", a.Int("end", 0)))
	}
	return at
}

func hardsigmoidAttrs(a Attrs) []ONNXAttr {
	return []ONNXAttr{ONNXFloat("alpha", a.Float("alpha", 0.2)), ONNXFloat("beta", a.Float("beta", 0.5))}
}

func transposeAttrs(a Attrs) []ONNXAttr {
	if p := a.Ints("perm", nil); p != nil {
		return []ONNXAttr{ONNXInts("perm", p)}
	}
	return nil
}

func castAttrs(a Attrs) []ONNXAttr {
	d, _ := tensor.ParseDType(a.Str("dtype", ""))
	return []ONNXAttr{{"to", d}}
}

func layerNormAttrs(a Attrs) []ONNXAttr {
	return []ONNXAttr{ONNXInt("axis", a.Int("axis", -1)), ONNXFloat("epsilon", a.Float("epsilon", 1e-5))}
}

// int64s makes a 1-D int64 tensor of an []int attribute value.
func int64s(v any) *T {
	iv, _ := v.([]int)
	out := make([]int64, len(iv))
	for i, x := range iv {
		out[i] = int64(x)
	}
	return tensor.FromSlice(out, len(out))
}

// exportConvAct writes a fused conv2d_act or conv_transpose2d_act
// (core/graph/pass) as Conv or ConvTranspose and its activation.
func exportConvAct(w ONNXWriter, in, out []string) error {
	t := w.Fresh(out[0] + "/conv")
	conv := Lookup("conv2d")
	if w.Op().Name == "conv_transpose2d_act" {
		conv = Lookup("conv_transpose2d")
	}
	if err := conv.Export(w.Sub(conv, w.Attrs(), w.In(0)), in, []string{t}); err != nil {
		return err
	}
	act := Lookup(w.Attrs().Str("act", ""))
	if act == nil || act.Export == nil {
		return fmt.Errorf("no ONNX form for activation %q", w.Attrs().Str("act", ""))
	}
	aa, _ := w.Attrs()["act_attrs"].(Attrs)
	scale, shift := w.Attrs().Float("scale", 1), w.Attrs().Float("shift", 0)
	final := out
	if scale != 1 || shift != 0 { // the activation's output is scaled and shifted after
		out = []string{w.Fresh(final[0] + "/act")}
	}
	if err := act.Export(w.Sub(act, aa, w.In(0)), []string{t}, out); err != nil || out[0] == final[0] {
		return err
	}
	d := w.Out(0).DType
	if scale != 1 {
		next := final[0]
		if shift != 0 {
			next = w.Fresh(final[0] + "/scaled")
		}
		w.Node("Mul", []string{out[0], w.Const(final[0]+"/scale", tensor.Scalar(scale).Cast(d))}, []string{next})
		out = []string{next}
	}
	if shift != 0 {
		w.Node("Add", []string{out[0], w.Const(final[0]+"/shift", tensor.Scalar(shift).Cast(d))}, final)
	}
	return nil
}

// copyAttrs exports n as its registry twin with the attributes attrs makes.
func copyAttrs(attrs func(Attrs) []ONNXAttr) ExportRule {
	return func(w ONNXWriter, in, out []string) error {
		var at []ONNXAttr
		if attrs != nil {
			at = attrs(w.Attrs())
		}
		w.Node(w.Op().ONNX, in, out, at...)
		return nil
	}
}

func intAttr(name string, def int) func(Attrs) []ONNXAttr {
	return func(a Attrs) []ONNXAttr { return []ONNXAttr{ONNXInt(name, a.Int(name, def))} }
}

func floatAttr(name string, def float64) func(Attrs) []ONNXAttr {
	return func(a Attrs) []ONNXAttr { return []ONNXAttr{ONNXFloat(name, a.Float(name, def))} }
}

// inputsFrom exports ops whose attributes are ONNX inputs (int64 lists), in order.
func inputsFrom(opType string, attrs ...string) ExportRule {
	return func(w ONNXWriter, in, out []string) error {
		for _, k := range attrs {
			in = append(in, w.AttrInput(k, int64s))
		}
		for len(in) > 1 && in[len(in)-1] == "" {
			in = in[:len(in)-1]
		}
		w.Node(opType, in, out)
		return nil
	}
}

// exportReshape: a shape read literally (zeros included) needs allowzero=1.
func exportReshape(w ONNXWriter, in, out []string) error {
	literal := false
	for _, d := range w.Attrs().Ints("shape", nil) {
		literal = literal || d == 0
	}
	for _, a := range w.RuntimeAttrs() {
		literal = literal || (a.Attr == "shape" && a.Kind != AttrReshape)
	}
	var at []ONNXAttr
	if literal {
		at = append(at, ONNXInt("allowzero", 1))
	}
	w.Node("Reshape", append(in, w.AttrInput("shape", int64s)), out, at...)
	return nil
}

// windowAttrs copies strides, pads, dilations, auto_pad and friends.
func onnxWindowAttrs(a Attrs, keys ...string) []ONNXAttr {
	var at []ONNXAttr
	for _, k := range keys {
		switch v := a[k].(type) {
		case []int:
			at = append(at, ONNXInts(k, v))
		case string:
			if v != "" {
				at = append(at, ONNXString(k, v))
			}
		}
	}
	return at
}

func exportConv(w ONNXWriter, in, out []string) error {
	at := onnxWindowAttrs(w.Attrs(), "strides", "pads", "dilations", "auto_pad", "output_padding", "output_shape")
	at = append(at, ONNXInt("group", w.Attrs().Int("groups", 1)))
	w.Node(w.Op().ONNX, in, out, at...)
	return nil
}

func exportPool(w ONNXWriter, in, out []string) error {
	keys := []string{"kernel_shape", "strides", "pads", "auto_pad"}
	if w.Op().Name == "max_pool2d" {
		keys = append(keys, "dilations")
	}
	at := onnxWindowAttrs(w.Attrs(), keys...)
	at = append(at, ONNXBool("ceil_mode", flag(w.Attrs(), "ceil_mode")))
	if w.Op().Name == "avg_pool2d" {
		at = append(at, ONNXBool("count_include_pad", flag(w.Attrs(), "count_include_pad")))
	}
	w.Node(w.Op().ONNX, in, out, at...)
	return nil
}

// flag reads a boolean attribute stored as bool or int.
func flag(a Attrs, k string) bool {
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
func exportMatMul(w ONNXWriter, in, out []string) error {
	ta, tb := w.Attrs().Bool("trans_a", false), w.Attrs().Bool("trans_b", false)
	if !ta && !tb {
		w.Node("MatMul", in, out)
		return nil
	}
	ra, rb := len(w.In(0).Shape), len(w.In(1).Shape)
	if (ra == 2 || ra == 0) && (rb == 2 || rb == 0) {
		w.Node("Gemm", in, out, ONNXBool("transA", ta), ONNXBool("transB", tb))
		return nil
	}
	in = append([]string(nil), in...)
	for i, tr := range []bool{ta, tb} {
		r := len(w.In(i).Shape)
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
		t := w.Fresh(out[0] + "/t")
		w.Node("Transpose", []string{in[i]}, []string{t}, ONNXInts("perm", perm))
		in[i] = t
	}
	w.Node("MatMul", in, out)
	return nil
}

// scalarOf makes a rank-0 tensor of dtype d.
func scalarOf(d tensor.DType, v float64) *tensor.Tensor { return tensor.Full(d, v) }

func exportClip(w ONNXWriter, in, out []string) error {
	d := w.In(0).DType
	lo, hi := "", ""
	conv := func(v any) *tensor.Tensor { return scalarOf(d, v.(float64)) }
	if v := w.Attrs().Float("min", math.Inf(-1)); !math.IsInf(v, -1) || len(w.RuntimeAttrs()) > 0 {
		lo = w.AttrInput("min", conv)
	}
	if v := w.Attrs().Float("max", math.Inf(1)); !math.IsInf(v, 1) || len(w.RuntimeAttrs()) > 0 {
		hi = w.AttrInput("max", conv)
	}
	w.Node("Clip", []string{in[0], lo, hi}, out)
	return nil
}

func exportReduce(w ONNXWriter, in, out []string) error {
	at := []ONNXAttr{ONNXBool("keepdims", w.Attrs().Bool("keepdims", false))}
	if w.Op().Name == "sum" { // axes is an input from opset 13
		ax := w.AttrInput("axes", int64s)
		if ax != "" {
			in = append(in, ax)
		}
		noop := false
		if v, ok := w.Attrs()["axes"].([]int); ok && len(v) == 0 {
			noop = true
		}
		for _, a := range w.RuntimeAttrs() {
			noop = noop || a.Kind == AttrIntsKeepEmpty
		}
		if noop {
			at = append(at, ONNXInt("noop_with_empty_axes", 1))
		}
		w.Node("ReduceSum", in, out, at...)
		return nil
	}
	if len(w.RuntimeAttrs()) > 0 {
		return fmt.Errorf("axes computed at run time need opset 18")
	}
	if ax := w.Attrs().Ints("axes", nil); ax != nil {
		if len(ax) == 0 {
			w.Node("Identity", in, out)
			return nil
		}
		at = append(at, ONNXInts("axes", ax))
	}
	w.Node(w.Op().ONNX, in, out, at...)
	return nil
}

func exportArg(w ONNXWriter, in, out []string) error {
	a := w.Attrs()
	w.Node(w.Op().ONNX, in, out, ONNXInt("axis", a.Int("axis", 0)), ONNXBool("keepdims", a.Bool("keepdims", false)),
		ONNXBool("select_last_index", a.Bool("select_last_index", false)))
	return nil
}

func exportSplit(w ONNXWriter, in, out []string) error {
	if s := w.AttrInput("sizes", int64s); s != "" {
		in = append(in, s)
	} else if k := w.Attrs().Int("num_outputs", len(out)); k != len(out) {
		return fmt.Errorf("num_outputs %d differs from the %d outputs", k, len(out))
	}
	w.Node("Split", in, out, ONNXInt("axis", w.Attrs().Int("axis", 0)))
	return nil
}

func exportPad(w ONNXWriter, in, out []string) error {
	if w.Attrs()["axes"] != nil {
		return fmt.Errorf("pad axes need opset 18")
	}
	d := w.In(0).DType
	in = append(in, w.AttrInput("pads", int64s))
	if v := w.AttrInput("value", func(v any) *tensor.Tensor { return scalarOf(d, v.(float64)) }); v != "" {
		in = append(in, v)
	}
	w.Node("Pad", in, out, ONNXString("mode", w.Attrs().Str("mode", "constant")))
	return nil
}

func exportTopK(w ONNXWriter, in, out []string) error {
	k := w.AttrInput("k", func(v any) *tensor.Tensor { return tensor.FromSlice([]int64{int64(v.(int))}, 1) })
	a := w.Attrs()
	w.Node("TopK", []string{in[0], k}, out, ONNXInt("axis", a.Int("axis", -1)), ONNXBool("largest", a.Bool("largest", true)),
		ONNXBool("sorted", a.Bool("sorted", true)))
	return nil
}

func exportCumSum(w ONNXWriter, in, out []string) error {
	ax := w.AttrInput("axis", func(v any) *tensor.Tensor { return tensor.Scalar(int64(v.(int))) })
	if ax == "" {
		ax = w.Const(out[0]+"/axis", tensor.Scalar(int64(0)))
	}
	a := w.Attrs()
	w.Node("CumSum", []string{in[0], ax}, out, ONNXBool("exclusive", a.Bool("exclusive", false)), ONNXBool("reverse", a.Bool("reverse", false)))
	return nil
}

func exportResize(w ONNXWriter, in, out []string) error {
	a := w.Attrs()
	at := []ONNXAttr{ONNXString("mode", a.Str("mode", "nearest")),
		ONNXString("coordinate_transformation_mode", a.Str("coordinate_transformation_mode", "half_pixel")),
		ONNXString("nearest_mode", a.Str("nearest_mode", "round_prefer_floor"))}
	for _, ai := range w.RuntimeAttrs() { // the original 4-element scales or sizes
		if ai.Attr == "scales" {
			w.Node("Resize", []string{in[0], "", w.AttrInput("scales", nil)}, out, at...)
			return nil
		}
		if ai.Attr == "sizes" {
			w.Node("Resize", []string{in[0], "", "", w.AttrInput("sizes", nil)}, out, at...)
			return nil
		}
	}
	if s := a.Floats("scales", nil); s != nil {
		sc := w.Const(out[0]+"/scales", tensor.FromSlice([]float32{1, 1, float32(s[0]), float32(s[1])}, 4))
		w.Node("Resize", []string{in[0], "", sc}, out, at...)
		return nil
	}
	sz := a.Ints("sizes", nil)
	if sz == nil {
		return fmt.Errorf("resize has neither scales nor sizes")
	}
	// sizes = concat(shape(x)[:2], [oh, ow])
	sh, nc := w.Fresh(out[0]+"/shape"), w.Fresh(out[0]+"/nc")
	w.Node("Shape", []string{in[0]}, []string{sh}, ONNXInt("end", 2))
	_ = nc
	hw := w.Const(out[0]+"/hw", int64s(sz))
	sizes := w.Fresh(out[0] + "/sizes")
	w.Node("Concat", []string{sh, hw}, []string{sizes}, ONNXInt("axis", 0))
	w.Node("Resize", []string{in[0], "", "", sizes}, out, at...)
	return nil
}

func exportConstantOfShape(w ONNXWriter, in, out []string) error {
	d, err := tensor.ParseDType(w.Attrs().Str("dtype", "float32"))
	if err != nil {
		return err
	}
	s := w.AttrInput("shape", int64s)
	if s == "" {
		s = w.Const(out[0]+"/shape", tensor.FromSlice([]int64{}, 0))
	}
	w.Node("ConstantOfShape", []string{s}, out, ONNXTensor("value", tensor.Full(d, w.Attrs().Float("value", 0), 1)))
	return nil
}

func exportRange(w ONNXWriter, in, out []string) error {
	d, err := tensor.ParseDType(w.Attrs().Str("dtype", "int64"))
	if err != nil {
		return err
	}
	var args []string
	for _, k := range []string{"start", "limit", "delta"} {
		v := w.AttrInput(k, func(v any) *tensor.Tensor { return scalarOf(d, v.(float64)) })
		if v == "" {
			def := 0.0
			if k == "delta" {
				def = 1
			}
			v = w.Const(out[0]+"/"+k, scalarOf(d, def))
		}
		args = append(args, v)
	}
	w.Node("Range", args, out)
	return nil
}

func exportRNN(opType string) ExportRule {
	return func(w ONNXWriter, in, out []string) error {
		a := w.Attrs()
		full := []string{in[0], in[1], in[2], "", "", "", ""}
		k := 3
		for _, p := range a.Str("present", "") {
			full[3+map[rune]int{'B': 0, 'S': 1, 'H': 2, 'C': 3}[p]] = in[k]
			k++
		}
		for len(full) > 3 && full[len(full)-1] == "" {
			full = full[:len(full)-1]
		}
		at := []ONNXAttr{ONNXString("direction", a.Str("direction", "forward")), ONNXInt("layout", a.Int("layout", 0))}
		if h := a.Int("hidden_size", 0); h > 0 {
			at = append(at, ONNXInt("hidden_size", h))
		} else if w := w.In(1).Shape; len(w) == 3 && w[1] > 0 {
			g := 4
			if opType == "GRU" {
				g = 3
			}
			at = append(at, ONNXInt("hidden_size", w[1]/g))
		}
		if c := a.Float("clip", 0); c > 0 {
			at = append(at, ONNXFloat("clip", c))
		}
		if opType == "LSTM" && a.Int("input_forget", 0) != 0 {
			at = append(at, ONNXInt("input_forget", 1))
		}
		if opType == "GRU" && a.Int("linear_before_reset", 0) != 0 {
			at = append(at, ONNXInt("linear_before_reset", 1))
		}
		w.Node(opType, full, out, at...)
		return nil
	}
}

func exportRelu6(w ONNXWriter, in, out []string) error {
	d := w.In(0).DType
	lo, hi := w.Const(out[0]+"/min", scalarOf(d, 0)), w.Const(out[0]+"/max", scalarOf(d, 6))
	w.Node("Clip", []string{in[0], lo, hi}, out)
	return nil
}

func exportSilu(w ONNXWriter, in, out []string) error {
	s := w.Fresh(out[0] + "/sigmoid")
	w.Node("Sigmoid", in, []string{s})
	w.Node("Mul", []string{in[0], s}, out)
	return nil
}

// exportGelu writes Gelu (opset 20) with opset-17 ops: 0.5·x·(1 + erf(x/√2)),
// or the tanh approximation 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
func exportGelu(w ONNXWriter, in, out []string) error {
	d := w.In(0).DType
	x := in[0]
	k := func(name string, v float64) string { return w.Const(out[0]+"/"+name, scalarOf(d, v)) }
	t := func(s string) string { return w.Fresh(out[0] + "/" + s) }
	inner := t("inner")
	if w.Attrs().Str("approximate", "none") == "tanh" {
		x3, x2, c, s, u := t("x3"), t("x2"), t("c"), t("s"), t("u")
		w.Node("Mul", []string{x, x}, []string{x2})
		w.Node("Mul", []string{x2, x}, []string{x3})
		w.Node("Mul", []string{x3, k("a", 0.044715)}, []string{c})
		w.Node("Add", []string{x, c}, []string{s})
		w.Node("Mul", []string{s, k("b", math.Sqrt(2/math.Pi))}, []string{u})
		w.Node("Tanh", []string{u}, []string{inner})
	} else {
		u := t("u")
		w.Node("Div", []string{x, k("sqrt2", math.Sqrt2)}, []string{u})
		w.Node("Erf", []string{u}, []string{inner})
	}
	p1, h := t("p1"), t("h")
	w.Node("Add", []string{inner, k("one", 1)}, []string{p1})
	w.Node("Mul", []string{x, k("half", 0.5)}, []string{h})
	w.Node("Mul", []string{h, p1}, out)
	return nil
}
