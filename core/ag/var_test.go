package ag

import (
	"slices"
	"testing"

	"paddle/core/tensor"
)

// Gradients add up over several Backward calls until ZeroGrad, which is what
// gradient accumulation over micro-batches relies on.
func TestGradAccumulatesAcrossBackwardCalls(t *testing.T) {
	x := Param(tensor.FromSlice([]float64{1, 2, 3}, 3))
	Sum(Mul(x, x), nil, false).Backward()       // 2x
	Sum(MulScalar(x, 3), nil, false).Backward() // + 3
	if got := x.Grad.F64(); !slices.Equal(got, []float64{5, 7, 9}) {
		t.Fatalf("accumulated grad %v, want [5 7 9]", got)
	}
	x.ZeroGrad()
	Sum(x, nil, false).Backward()
	if got := x.Grad.F64(); !slices.Equal(got, []float64{1, 1, 1}) {
		t.Fatalf("after ZeroGrad: grad %v, want [1 1 1]", got)
	}
}

// Detach cuts the graph: y = x·stop(x) has dy/dx = stop(x), not 2x.
func TestDetachStopsGradient(t *testing.T) {
	x := Param(tensor.FromSlice([]float64{2, -3}, 2))
	d := x.Detach()
	if d.RequiresGrad() || d.T != x.T {
		t.Fatal("Detach must share the value and need no gradient")
	}
	Sum(Mul(x, d), nil, false).Backward()
	if got := x.Grad.F64(); !slices.Equal(got, []float64{2, -3}) {
		t.Fatalf("grad %v, want [2 -3]", got)
	}
	if d.Grad != nil {
		t.Fatal("a detached value received a gradient")
	}
}

// Frozen parameters (SetRequiresGrad(false)) and constants get no gradient,
// and a graph of only frozen inputs records nothing.
func TestTrainableFlags(t *testing.T) {
	w := Param(tensor.FromSlice([]float64{1, 2}, 2))
	b := Param(tensor.FromSlice([]float64{3, 4}, 2))
	c := Const(tensor.FromSlice([]float64{5, 6}, 2))
	if !w.RequiresGrad() || c.RequiresGrad() {
		t.Fatal("Param must be trainable, Const not")
	}
	b.SetRequiresGrad(false)
	Sum(Add(Mul(w, c), b), nil, false).Backward()
	if got := w.Grad.F64(); !slices.Equal(got, []float64{5, 6}) {
		t.Fatalf("dL/dw %v, want [5 6]", got)
	}
	if b.Grad != nil || c.Grad != nil {
		t.Fatal("frozen parameter or constant received a gradient")
	}
	w.SetRequiresGrad(false)
	if y := Mul(w, b); y.RequiresGrad() || y.node != nil {
		t.Fatal("an op over frozen inputs recorded a node")
	}
}

// Comparisons give bool values without gradient; a mask built from them
// routes the gradient through Where.
func TestComparisonsAndWhere(t *testing.T) {
	x := Param(tensor.FromSlice([]float64{-1, 0, 2}, 3))
	zero := Scalar(x, 0)
	cases := []struct {
		name string
		got  *Var
		want []float64
	}{
		{"greater", Greater(x, zero), []float64{0, 0, 1}},
		{"greater_equal", GreaterEqual(x, zero), []float64{0, 1, 1}},
		{"less", Less(x, zero), []float64{1, 0, 0}},
		{"less_equal", LessEqual(x, zero), []float64{1, 1, 0}},
		{"equal", Equal(x, zero), []float64{0, 1, 0}},
	}
	for _, c := range cases {
		if c.got.DType() != tensor.Bool || c.got.RequiresGrad() || !slices.Equal(c.got.T.Float64s(), c.want) {
			t.Errorf("%s: %v (requires grad %v), want bool %v", c.name, c.got.T, c.got.RequiresGrad(), c.want)
		}
	}
	y := Sum(Where(Greater(x, zero), MulScalar(x, 3), Neg(x)), nil, false)
	y.Backward()
	if got := x.Grad.F64(); !slices.Equal(got, []float64{-1, -1, 3}) {
		t.Fatalf("grad through where %v, want [-1 -1 3]", got)
	}
}
