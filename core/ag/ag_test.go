package ag

import (
	"math"
	"testing"

	"paddle/core/tensor"
)

// micrograd's classic check, computed by hand: for a=-4, b=2,
// c = a+b; d = a*b + b^3; e = c - d; f = e^2; g = f/2 + 10/f.
func TestBackwardScalarExpression(t *testing.T) {
	a := Param(tensor.Scalar(-4.0))
	b := Param(tensor.Scalar(2.0))
	c := Add(a, b)
	d := Add(Mul(a, b), Pow(b, Scalar(b, 3)))
	c = Add(c, AddScalar(c, 1))
	c = Add(Add(c, Scalar(c, 1)), Add(c, Neg(a)))
	d = Add(d, Add(MulScalar(d, 2), Relu(Add(b, a))))
	d = Add(d, Add(MulScalar(d, 3), Relu(Sub(b, a))))
	e := Sub(c, d)
	f := Mul(e, e)
	g := Div(f, Scalar(f, 2))
	g = Add(g, Div(Scalar(f, 10), f))
	g.Backward()
	// values from micrograd's test_more_ops (PyTorch-verified there)
	if math.Abs(g.Item()-24.70408163265306) > 1e-9 {
		t.Errorf("g = %v", g.Item())
	}
	if math.Abs(a.Grad.Item()-138.83381924198252) > 1e-9 {
		t.Errorf("dg/da = %v", a.Grad.Item())
	}
	if math.Abs(b.Grad.Item()-645.5772594752186) > 1e-9 {
		t.Errorf("dg/db = %v", b.Grad.Item())
	}
}

func TestGradAccumulatesAcrossUses(t *testing.T) {
	x := Param(tensor.FromSlice([]float64{1, 2, 3}, 3))
	y := Sum(Add(Mul(x, x), x), nil, false) // d/dx = 2x + 1
	y.Backward()
	want := []float64{3, 5, 7}
	for i, g := range x.Grad.F64() {
		if g != want[i] {
			t.Fatalf("grad %v, want %v", x.Grad.F64(), want)
		}
	}
}

func TestNoGradRecordsNothing(t *testing.T) {
	x := Param(tensor.FromSlice([]float64{1, 2}, 2))
	var y *Var
	NoGrad(func() { y = Mul(x, x) })
	if y.RequiresGrad() || y.node != nil {
		t.Fatal("NoGrad recorded a node")
	}
}

func TestDeepGraphDoesNotOverflow(t *testing.T) {
	x := Param(tensor.Scalar(1.0))
	y := x
	for range 20000 {
		y = AddScalar(y, 1)
	}
	y.Backward()
	if x.Grad.Item() != 1 {
		t.Fatalf("grad %v", x.Grad.Item())
	}
}
