package pass_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"paddle/core/graph"
	"paddle/core/graph/pass"
	"paddle/core/op"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// typed appends a node whose output meta is inferred from its inputs'.
func (b *b) typed(opName string, a op.Attrs, in ...*graph.Value) *graph.Value {
	b.n++
	metas := make([]op.Meta, len(in))
	for i, v := range in {
		metas[i] = v.Meta
	}
	d := op.Lookup(opName)
	om, err := d.InferMeta(metas, a)
	if err != nil {
		panic(opName + ": " + err.Error())
	}
	out := &graph.Value{Name: opName + string(rune('a'+b.n)), Meta: om[0]}
	b.g.Nodes = append(b.g.Nodes, &graph.Node{Op: d, Attrs: a, In: in, Out: []*graph.Value{out}, Name: opName})
	return out
}

// qdq quantizes v to uint8 (scale s, zero point z) and dequantizes it.
func (b *b) qdq(v *graph.Value, s float64, z int) *graph.Value {
	q := b.typed("quantize_linear", op.QDQAttrs([]float64{s}, []int{z}, 1, tensor.Uint8), v)
	return b.typed("dequantize_linear", op.QDQAttrs([]float64{s}, []int{z}, 1, tensor.Uint8), q)
}

// qweight is the dequantize_linear of a random int8 constant of the shape,
// quantized symmetrically per index of axis.
func (b *b) qweight(r *rand.Rand, axis int, shape ...int) *graph.Value {
	w := tensor.New(tensor.Int8, shape...)
	for i := range w.I8() {
		w.I8()[i] = int8(r.IntN(255) - 127)
	}
	sc := make([]float64, shape[axis])
	for i := range sc {
		sc[i] = (0.5 + r.Float64()) / 127 / math.Sqrt(float64(w.Len()/shape[axis]))
	}
	return b.typed("dequantize_linear", op.QDQAttrs(sc, make([]int, len(sc)), axis, tensor.Int8), b.konst("w"+string(rune('a'+b.n)), w, false))
}

// qdqGraph is a small QDQ model: a 3×3 conv (+bias, relu, requantized), a
// 1×1 conv (int32 bias through dequantize_linear, clip, float output
// requantized by its reader's pair), a flatten and a Gemm-like matmul
// (trans_b, bias, sigmoid; 16 outputs), its output requantized then dequantized.
func qdqGraph() *graph.Graph {
	r := rand.New(rand.NewPCG(21, 22))
	bd, x := newB(2, 3, 6, 5)
	h := bd.typed("conv2d", op.Attrs{"pads": []int{1, 1, 1, 1}}, bd.qdq(x, 0.02, 128), bd.qweight(r, 0, 8, 3, 3, 3),
		bd.konst("b1", tensor.Rand(r, tensor.Float32, -0.3, 0.3, 8), false))
	h = bd.qdq(bd.typed("relu", nil, h), 0.01, 0)
	bq := tensor.New(tensor.Int32, 4)
	for i := range bq.I32() {
		bq.I32()[i] = int32(r.IntN(2001) - 1000)
	}
	b2 := bd.typed("dequantize_linear", op.QDQAttrs([]float64{1e-4}, []int{0}, 0, tensor.Int32), bd.konst("b2", bq, false))
	h = bd.typed("conv2d", nil, h, bd.qweight(r, 0, 4, 8, 1, 1), b2)
	h = bd.typed("clip", op.Attrs{"min": 0.0, "max": 6.0}, h)
	h = bd.typed("flatten", op.Attrs{"axis": 1}, h)
	h = bd.typed("matmul", op.Attrs{"trans_b": true}, bd.qdq(h, 0.005, 0), bd.qweight(r, 0, 16, 120))
	h = bd.typed("add", nil, h, bd.konst("b3", tensor.Rand(r, tensor.Float32, -0.5, 0.5, 16), false))
	h = bd.typed("sigmoid", nil, h)
	bd.g.Outputs = []*graph.Value{bd.qdq(h, 1.0/255, 0)}
	return bd.g
}

func runPasses(t *testing.T, g *graph.Graph, passes []string, x *tensor.Tensor) *tensor.Tensor {
	t.Helper()
	p, err := runtime.New(g, runtime.Options{Passes: passes})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	return out[p.OutputNames()[0]]
}

// TestQDQ folds qdqGraph and checks that the folded graph holds two
// qconv2d and one qgemm and no float conv or matmul, and that its output
// is the unfolded graph's within one step of the output quantization.
func TestQDQ(t *testing.T) {
	x := tensor.Rand(rand.New(rand.NewPCG(5, 6)), tensor.Float32, -2, 2, 2, 3, 6, 5)
	want := runPasses(t, qdqGraph(), []string{}, x)
	for _, passes := range [][]string{{"qdq", "dce"}, nil} {
		g := qdqGraph()
		if err := pass.Apply(g, []string{"qdq", "dce"}); err != nil {
			t.Fatal(err)
		}
		count := map[string]int{}
		for _, n := range g.Nodes {
			count[n.Op.Name]++
		}
		if count["qconv2d"] != 2 || count["qgemm"] != 1 || count["conv2d"]+count["matmul"]+count["relu"]+count["clip"]+count["sigmoid"]+count["add"] != 0 ||
			count["quantize_linear"] != 2 || count["dequantize_linear"] != 1 {
			t.Fatalf("passes %v: folded graph has ops %v:\n%s", passes, count, g)
		}
		if s := g.String(); !strings.Contains(s, "act=clip") || !strings.Contains(s, "act=sigmoid") || !strings.Contains(s, "out=uint8") {
			t.Errorf("epilogues not folded:\n%s", s)
		}
		got := runPasses(t, g, passes, x)
		d, _ := tensor.MaxDiff(got, want, 0, 0)
		if d > 1.0001/255 || !got.Shape().Equal(tensor.Shape{2, 16}) {
			t.Fatalf("passes %v: folded output differs by %g (one step %g), shape %v", passes, d, 1.0/255, got.Shape())
		}
		// rounding may move a few outputs by one step, not many
		nonzero, moved := 0, 0
		for i, v := range got.F32() {
			if v > 0.02 && v < 0.98 {
				nonzero++
			}
			if v != want.F32()[i] {
				moved++
			}
		}
		if moved > got.Len()/10 {
			t.Fatalf("passes %v: %d of %d outputs moved by a step", passes, moved, got.Len())
		}
		if nonzero < got.Len()/2 {
			t.Fatalf("output %v saturates: the test would not see errors", got.F32())
		}
		t.Logf("passes %v: max difference %g, %d moved; folded graph:\n%s", passes, d, moved, g)
	}
}

// lcnetGraph is PP-LCNetV3's pattern in QDQ form: a 3×3 conv, hardswish
// and a learnable affine block (mul and add by scalars: the scalar on
// the left of the mul, as Paddle2ONNX writes it), requantized; a
// depthwise 5×5 stride-2 conv with the same epilogue, requantized and
// dequantized as the output.
func lcnetGraph() *graph.Graph {
	r := rand.New(rand.NewPCG(23, 24))
	bd, x := newB(1, 3, 11, 14)
	scalar := func(v float32) *graph.Value {
		return bd.konst("s"+string(rune('a'+bd.n)), tensor.FromSlice([]float32{v}, 1), false)
	}
	lab := func(h *graph.Value, a, c float32) *graph.Value {
		h = bd.typed("hardswish", nil, h)
		h = bd.typed("mul", nil, scalar(a), h)
		return bd.typed("add", nil, h, scalar(c))
	}
	h := bd.typed("conv2d", op.Attrs{"pads": []int{1, 1, 1, 1}}, bd.qdq(x, 0.02, 128), bd.qweight(r, 0, 8, 3, 3, 3),
		bd.konst("b1", tensor.Rand(r, tensor.Float32, -0.3, 0.3, 8), false))
	h = bd.qdq(lab(h, 1.25, -0.1), 0.02, 20)
	h = bd.typed("conv2d", op.Attrs{"pads": []int{2, 2, 2, 2}, "strides": []int{2, 2}, "groups": 8}, h, bd.qweight(r, 0, 8, 1, 5, 5),
		bd.konst("b2", tensor.Rand(r, tensor.Float32, -0.3, 0.3, 8), false))
	bd.g.Outputs = []*graph.Value{bd.qdq(lab(h, 0.8, 0.05), 0.01, 30)}
	return bd.g
}

// TestQDQAffineDepthwise folds lcnetGraph into two qconv2d (the second
// depthwise) that take the hardswish and the scalar affines into their
// epilogues and pass uint8 between them, and checks the output against
// the unfolded graph's: within one output step, few outputs moved.
func TestQDQAffineDepthwise(t *testing.T) {
	x := tensor.Rand(rand.New(rand.NewPCG(7, 8)), tensor.Float32, -2, 2, 1, 3, 11, 14)
	want := runPasses(t, lcnetGraph(), []string{}, x)
	g := lcnetGraph()
	if err := pass.Apply(g, []string{"qdq", "dce"}); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, n := range g.Nodes {
		count[n.Op.Name]++
	}
	if count["qconv2d"] != 2 || count["mul"]+count["add"]+count["hardswish"]+count["conv2d"] != 0 || count["quantize_linear"] != 1 {
		t.Fatalf("folded graph has ops %v:\n%s", count, g)
	}
	if s := g.String(); strings.Count(s, "post_mul") != 2 || strings.Count(s, "post_add") != 2 || strings.Count(s, "out=uint8") != 2 {
		t.Fatalf("affine epilogues not folded:\n%s", s)
	}
	got := runPasses(t, g, nil, x)
	d, _ := tensor.MaxDiff(got, want, 0, 0)
	moved := 0
	for i, v := range got.F32() {
		if v != want.F32()[i] {
			moved++
		}
	}
	distinct := map[float32]bool{}
	for _, v := range want.F32() {
		distinct[v] = true
	}
	if len(distinct) < 20 {
		t.Fatalf("the output has %d distinct values: the test would not see errors", len(distinct))
	}
	if d > 1.0001*0.01 || moved > got.Len()/10 {
		t.Fatalf("folded output differs by %g (one step 0.01), %d of %d moved", d, moved, got.Len())
	}
	t.Logf("max difference %g, %d of %d moved", d, moved, got.Len())
}
