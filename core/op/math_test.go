package op_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"paddle/core/op"
	"paddle/core/op/optest"
	"paddle/core/tensor"
)

// Hand-computed forward values for the math, activation and reduction
// families, and gradient checks of attribute settings the Samples miss.

func mf64(v ...float64) *tensor.Tensor { return tensor.FromSlice(v, len(v)) }

func wantMath(t *testing.T, name string, got *tensor.Tensor, want []float64, tol float64) {
	t.Helper()
	g := got.Float64s()
	if len(g) != len(want) {
		t.Fatalf("%s: %d values %v, want %v", name, len(g), g, want)
	}
	for i := range g {
		if math.IsNaN(want[i]) != math.IsNaN(g[i]) || math.Abs(g[i]-want[i]) > tol {
			t.Fatalf("%s: got %v, want %v", name, g, want)
		}
	}
}

func TestUnaryForwardTable(t *testing.T) {
	inf := math.Inf(1)
	cases := []struct {
		name string
		f    func(*tensor.Tensor) *tensor.Tensor
		in   []float64
		want []float64
	}{
		{"sqrt", op.Sqrt, []float64{0, 1, 4, 2.25}, []float64{0, 1, 2, 1.5}},
		{"rsqrt", op.Rsqrt, []float64{1, 4, 0.25}, []float64{1, 0.5, 2}},
		{"abs", op.Abs, []float64{-2, 0, 3.5}, []float64{2, 0, 3.5}},
		{"sign", op.Sign, []float64{-2, 0, 3.5}, []float64{-1, 0, 1}},
		{"reciprocal", op.Reciprocal, []float64{2, -0.5, 0}, []float64{0.5, -2, inf}},
		{"floor", op.Floor, []float64{-1.5, 1.5, 2}, []float64{-2, 1, 2}},
		{"ceil", op.Ceil, []float64{-1.5, 1.5, 2}, []float64{-1, 2, 2}},
		{"round half to even", op.Round, []float64{-2.5, -1.5, 0.5, 1.5, 2.5, 2.6}, []float64{-2, -2, 0, 2, 2, 3}},
		{"erf", op.Erf, []float64{0, 1, -1}, []float64{0, 0.8427007929497149, -0.8427007929497149}},
		{"sin", op.Sin, []float64{0, math.Pi / 2}, []float64{0, 1}},
		{"cos", op.Cos, []float64{0, math.Pi}, []float64{1, -1}},
		{"clip", func(x *tensor.Tensor) *tensor.Tensor { return op.Clip(x, -1, 2) }, []float64{-3, 0.5, 5}, []float64{-1, 0.5, 2}},
		{"clip open", func(x *tensor.Tensor) *tensor.Tensor { return op.Clip(x, 0, inf) }, []float64{-3, 5}, []float64{0, 5}},
		{"sigmoid", op.Sigmoid, []float64{0, -1000, 1000, math.Log(3)}, []float64{0.5, 0, 1, 0.75}},
		{"tanh", op.Tanh, []float64{0, math.Log(2)}, []float64{0, 0.6}},
		{"relu", op.Relu, []float64{-1, 0, 2}, []float64{0, 0, 2}},
		{"relu6", op.Relu6, []float64{-1, 3, 7}, []float64{0, 3, 6}},
		{"leaky_relu", func(x *tensor.Tensor) *tensor.Tensor { return op.LeakyRelu(x, 0.2) }, []float64{-2, 0, 3}, []float64{-0.4, 0, 3}},
		{"elu", func(x *tensor.Tensor) *tensor.Tensor { return op.Elu(x, 2) }, []float64{-math.Log(2), 1}, []float64{-1, 1}},
		{"hardswish", op.Hardswish, []float64{-4, -3, 0, 1, 3, 4}, []float64{0, 0, 0, 4.0 / 6, 3, 4}},
		{"hardsigmoid onnx", func(x *tensor.Tensor) *tensor.Tensor { return op.Hardsigmoid(x, 0.2, 0.5) }, []float64{-3, 0, 1, 3}, []float64{0, 0.5, 0.7, 1}},
		{"hardsigmoid paddle", func(x *tensor.Tensor) *tensor.Tensor { return op.Hardsigmoid(x, 1.0/6, 0.5) }, []float64{-3, 0, 1.5, 3}, []float64{0, 0.5, 0.75, 1}},
		{"softplus", func(x *tensor.Tensor) *tensor.Tensor { return op.Softplus(x, 1, 20) }, []float64{0, 30, -1000, 1000}, []float64{math.Ln2, 30, 0, 1000}},
		{"silu", op.Silu, []float64{0, math.Log(3)}, []float64{0, 0.75 * math.Log(3)}},
		{"gelu", func(x *tensor.Tensor) *tensor.Tensor { return op.Gelu(x, "none") }, []float64{0, 1, -1}, []float64{0, 0.8413447460685429, -0.15865525393145707}},
		{"gelu tanh", func(x *tensor.Tensor) *tensor.Tensor { return op.Gelu(x, "tanh") }, []float64{0, 1}, []float64{0, 0.8411919906082768}},
	}
	for _, c := range cases {
		wantMath(t, c.name, c.f(mf64(c.in...)), c.want, 1e-12)
		// the float32 kernels agree to float32 precision
		got32 := c.f(mf64(c.in...).Cast(tensor.Float32))
		if got32.DType() != tensor.Float32 {
			t.Fatalf("%s: float32 input gave %v", c.name, got32.DType())
		}
		wantMath(t, c.name+" float32", got32, c.want, 1e-6*(1+slices.Max(c.want)))
	}
}

func TestIntegerMath(t *testing.T) {
	x := tensor.FromSlice([]int64{-3, 0, 5}, 3)
	if got := op.Abs(x); got.DType() != tensor.Int64 || !slices.Equal(got.I64(), []int64{3, 0, 5}) {
		t.Errorf("abs int64 = %v", got)
	}
	if got := op.Sign(x).I64(); !slices.Equal(got, []int64{-1, 0, 1}) {
		t.Errorf("sign int64 = %v", got)
	}
	if got := op.Clip(x, -1, 2).I64(); !slices.Equal(got, []int64{-1, 0, 2}) {
		t.Errorf("clip int64 = %v", got)
	}
	if got := op.Cumsum(tensor.FromSlice([]int32{1, 2, 3, 4}, 2, 2), 1, false, false).I32(); !slices.Equal(got, []int32{1, 3, 3, 7}) {
		t.Errorf("cumsum int32 = %v", got)
	}
	if got := op.Max(x, nil, false).I64(); got[0] != 5 {
		t.Errorf("max int64 = %v", got)
	}
	mustMathShapeError(t, "sigmoid of int64", func() { op.Sigmoid(x) })
	mustMathShapeError(t, "prod of int64", func() { op.Prod(x, nil, false) })
}

func mustMathShapeError(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if _, ok := recover().(*op.ShapeError); !ok {
			t.Errorf("%s: want a *op.ShapeError panic", what)
		}
	}()
	f()
}

func TestWhereAndLogical(t *testing.T) {
	c := tensor.FromSlice([]bool{true, false}, 2, 1)
	a := tensor.FromSlice([]float64{1, 2, 3}, 3)
	b := tensor.Scalar(-1.0)
	got := op.Where(c, a, b)
	if !got.Shape().Equal(tensor.Shape{2, 3}) {
		t.Fatalf("where shape %v", got.Shape())
	}
	wantMath(t, "where", got, []float64{1, 2, 3, -1, -1, -1}, 0)
	ai := tensor.FromSlice([]int64{7, 8}, 2, 1)
	if g := op.Where(c, ai, tensor.Scalar[int64](0)).I64(); !slices.Equal(g, []int64{7, 0}) {
		t.Errorf("where int64 = %v", g)
	}
	p := tensor.FromSlice([]bool{true, true, false, false}, 4)
	q := tensor.FromSlice([]bool{true, false, true, false}, 4)
	if g := op.LogicalAnd(p, q).Bools(); !slices.Equal(g, []bool{true, false, false, false}) {
		t.Errorf("and = %v", g)
	}
	if g := op.LogicalOr(p, q).Bools(); !slices.Equal(g, []bool{true, true, true, false}) {
		t.Errorf("or = %v", g)
	}
	if g := op.LogicalNot(q).Bools(); !slices.Equal(g, []bool{false, true, false, true}) {
		t.Errorf("not = %v", g)
	}
	mustMathShapeError(t, "where with float cond", func() { op.Where(a, a, a) })
	mustMathShapeError(t, "and of floats", func() { op.LogicalAnd(a, a) })
}

func TestSoftmaxForward(t *testing.T) {
	// huge logits must not overflow: softmax is shift-invariant
	x := tensor.FromSlice([]float64{1000, 1000 + math.Log(3), 0, math.Log(3)}, 2, 2)
	wantMath(t, "softmax", op.Softmax(x, -1), []float64{0.25, 0.75, 0.25, 0.75}, 1e-12)
	wantMath(t, "log_softmax", op.LogSoftmax(x, 1), []float64{math.Log(0.25), math.Log(0.75), math.Log(0.25), math.Log(0.75)}, 1e-12)
	// along axis 0 of (2, 2): columns
	y := tensor.FromSlice([]float32{0, 5, 0, 5}, 2, 2)
	wantMath(t, "softmax axis 0", op.Softmax(y, 0), []float64{0.5, 0.5, 0.5, 0.5}, 1e-7)
	mustMathShapeError(t, "softmax bad axis", func() { op.Softmax(y, 2) })
}

func TestReductionsForward(t *testing.T) {
	// x: (2, 3, 2)
	x := tensor.FromSlice([]float64{1, -2, 3, 4, -5, 6, 0.5, 7, -1, 2, 8, -3}, 2, 3, 2)
	wantMath(t, "max axes 0,2 (non-adjacent)", op.Max(x, []int{0, 2}, false), []float64{7, 4, 8}, 0)
	wantMath(t, "min axis 1", op.Min(x, []int{1}, true), []float64{-5, -2, -1, -3}, 0)
	wantMath(t, "max all", op.Max(x, nil, false), []float64{8}, 0)
	wantMath(t, "prod axis 2", op.Prod(x, []int{2}, false), []float64{-2, 12, -30, 3.5, -2, -24}, 1e-12)
	wantMath(t, "reduce_l2 axis 0", op.ReduceL2(tensor.FromSlice([]float64{3, 0, 4, 0}, 2, 2), []int{0}, false), []float64{5, 0}, 1e-12)
	wantMath(t, "prod of nothing", op.Prod(tensor.New(tensor.Float64, 2, 0), []int{1}, false), []float64{1, 1}, 0)
	if s := op.Max(x, []int{-1}, true).Shape(); !s.Equal(tensor.Shape{2, 3, 1}) {
		t.Errorf("max keepdims shape %v", s)
	}
	mustMathShapeError(t, "max over an empty axis", func() { op.Max(tensor.New(tensor.Float64, 2, 0), []int{1}, false) })
}

func TestArgTopkCumsumForward(t *testing.T) {
	x := tensor.FromSlice([]float32{3, 1, 3, 2, 0, 2}, 2, 3)
	if g := op.ArgMax(x, 1, false); g.DType() != tensor.Int64 || !slices.Equal(g.I64(), []int64{0, 0}) {
		t.Errorf("argmax = %v (first of ties)", g)
	}
	last := op.Call(op.Lookup("argmax"), op.Attrs{"axis": 1, "select_last_index": true}, x)[0]
	if !slices.Equal(last.I64(), []int64{2, 2}) {
		t.Errorf("argmax select_last_index = %v", last.I64())
	}
	if g := op.ArgMin(x, 0, true); !g.Shape().Equal(tensor.Shape{1, 3}) || !slices.Equal(g.I64(), []int64{1, 1, 1}) {
		t.Errorf("argmin = %v", g)
	}
	v, i := op.TopK(x, 2, 1, true)
	wantMath(t, "topk values", v, []float64{3, 3, 2, 2}, 0)
	if !slices.Equal(i.I64(), []int64{0, 2, 0, 2}) {
		t.Errorf("topk indices %v, want lower index first among ties", i.I64())
	}
	v, i = op.TopK(x, 1, 0, false)
	wantMath(t, "topk smallest", v, []float64{2, 0, 2}, 0)
	if !slices.Equal(i.I64(), []int64{1, 1, 1}) {
		t.Errorf("topk smallest indices %v", i.I64())
	}
	mustMathShapeError(t, "topk k too big", func() { op.TopK(x, 4, 1, true) })
	c := mf64(1, 2, 3, 4)
	wantMath(t, "cumsum", op.Cumsum(c, 0, false, false), []float64{1, 3, 6, 10}, 0)
	wantMath(t, "cumsum exclusive", op.Cumsum(c, 0, true, false), []float64{0, 1, 3, 6}, 0)
	wantMath(t, "cumsum reverse", op.Cumsum(c, 0, false, true), []float64{10, 9, 7, 4}, 0)
	wantMath(t, "cumsum exclusive reverse", op.Cumsum(c, 0, true, true), []float64{9, 7, 4, 0}, 0)
}

// Gradient checks for attribute settings (and kernel paths) the Samples miss.
func TestGradientsOtherAttrs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := func(lo, hi float64, s ...int) []*tensor.Tensor {
		return []*tensor.Tensor{tensor.Rand(r, tensor.Float64, lo, hi, s...)}
	}
	withZero := x(0.5, 1.5, 3, 4)
	withZero[0].F64()[5] = 0
	cases := []struct {
		op    string
		in    []*tensor.Tensor
		attrs op.Attrs
	}{
		{"gelu", x(-3, 3, 3, 4), op.Attrs{"approximate": "tanh"}},
		{"softmax", x(-2, 2, 3, 5), op.Attrs{"axis": -1}},
		{"log_softmax", x(-2, 2, 3, 5), op.Attrs{"axis": -1}},
		{"hardsigmoid", x(-2.5, 2.5, 3, 4), op.Attrs{"alpha": 1.0 / 6, "beta": 0.5}},
		{"softplus", x(-3, 3, 3, 4), nil},
		{"prod", withZero, op.Attrs{"axes": []int{1}}},
		{"max", x(-1, 1, 2, 3, 4), op.Attrs{"axes": []int{0, 2}, "keepdims": true}},
		{"min", x(-1, 1, 2, 3, 4), nil},
		{"reduce_l2", x(-1, 1, 2, 3, 4), op.Attrs{"axes": []int{0, 2}}},
		{"topk", x(-1, 1, 4, 6), op.Attrs{"k": 3, "axis": -1, "largest": false}},
		{"cumsum", x(-1, 1, 3, 4), op.Attrs{"axis": -1, "reverse": true}},
	}
	for _, c := range cases {
		t.Run(c.op, func(t *testing.T) {
			optest.GradCheck(t, op.Lookup(c.op), c.in, c.attrs, optest.Tol{Abs: 1e-6, Rel: 1e-5})
		})
	}
}

func TestGeluRejectsUnknownApproximation(t *testing.T) {
	mustMathShapeError(t, "gelu approximate=fast", func() { op.Gelu(mf64(1), "fast") })
}

// Inputs big enough to split across goroutines give the same values as small ones.
func TestParallelPathsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	x := tensor.Rand(r, tensor.Float32, -4, 4, 300, 257)
	xs := x.Float64s()
	for i, v := range op.Sigmoid(x).Float64s() {
		if w := 1 / (1 + math.Exp(-xs[i])); math.Abs(v-w) > 1e-6 {
			t.Fatalf("sigmoid element %d = %v, want %v", i, v, w)
		}
	}
	for _, axis := range []int{0, 1} {
		sums := op.Sum(op.Softmax(x, axis), []int{axis}, false).Float64s()
		for i, s := range sums {
			if math.Abs(s-1) > 1e-5 {
				t.Fatalf("softmax axis %d: line %d sums to %v", axis, i, s)
			}
		}
	}
	lse := op.Sub(x, op.LogSoftmax(x, 1)) // = logsumexp of each row, broadcast
	m := op.Max(lse, []int{1}, false).Float64s()
	n := op.Min(lse, []int{1}, false).Float64s()
	for i := range m {
		if math.Abs(m[i]-n[i]) > 1e-5 {
			t.Fatalf("row %d: x - log_softmax(x) varies from %v to %v", i, n[i], m[i])
		}
	}
	c := op.Cumsum(x, 1, false, false)
	if got, want := c.At(299, 256), op.Sum(x, []int{1}, false).At(299); math.Abs(got-want) > 1e-3 {
		t.Fatalf("cumsum last = %v, sum = %v", got, want)
	}
}

// TestCastGradientDTypes checks what the generic gradient check cannot: the
// gradient of a cast comes back in the input's dtype with the same values,
// and integer inputs get none.
func TestCastGradientDTypes(t *testing.T) {
	d := op.Lookup("cast")
	x := tensor.FromSlice([]float32{1.5, -2, 3}, 3)
	y := op.Cast(x, tensor.Float64)
	g := tensor.FromSlice([]float64{0.25, -1, 4}, 3)
	gs := d.VJP(&op.VJPCtx{In: []*tensor.Tensor{x}, Out: []*tensor.Tensor{y}, GradOut: []*tensor.Tensor{g}, Attrs: op.Attrs{"dtype": "float64"}})
	if gs[0] == nil || gs[0].DType() != tensor.Float32 {
		t.Fatalf("float32 → float64 cast: gradient %v, want float32", gs[0])
	}
	wantMath(t, "cast grad", gs[0], []float64{0.25, -1, 4}, 0)
	xi := tensor.FromSlice([]int64{1, 2, 3}, 3)
	yi := op.Cast(xi, tensor.Float64)
	gs = d.VJP(&op.VJPCtx{In: []*tensor.Tensor{xi}, Out: []*tensor.Tensor{yi}, GradOut: []*tensor.Tensor{g}, Attrs: op.Attrs{"dtype": "float64"}})
	if gs[0] != nil {
		t.Fatalf("int64 → float64 cast: gradient %v, want none", gs[0])
	}
}
