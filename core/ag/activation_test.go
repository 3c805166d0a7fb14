package ag

import (
	"math"
	"testing"

	"paddle/core/tensor"
)

func near(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %v, want %v", what, got, want)
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
	}
}

// Softmax cross-entropy: d/dlogits of -log softmax(z)[y] is softmax(z) - onehot(y).
func TestSoftmaxCrossEntropyGradient(t *testing.T) {
	z := Param(tensor.FromSlice([]float64{1, 2, 3}, 1, 3))
	loss := Neg(Sum(Mul(LogSoftmax(z, -1), Const(tensor.FromSlice([]float64{0, 1, 0}, 1, 3))), nil, false))
	loss.Backward()
	e := []float64{math.Exp(1), math.Exp(2), math.Exp(3)}
	s := e[0] + e[1] + e[2]
	near(t, "dlogits", z.Grad.F64(), []float64{e[0] / s, e[1]/s - 1, e[2] / s}, 1e-12)
	near(t, "loss", []float64{loss.Item()}, []float64{math.Log(s) - 2}, 1e-12)

	// the same through Softmax then Log
	z2 := Param(tensor.FromSlice([]float64{1, 2, 3}, 1, 3))
	Neg(Log(Sum(Mul(Softmax(z2, 1), Const(tensor.FromSlice([]float64{0, 1, 0}, 1, 3))), nil, false))).Backward()
	near(t, "dlogits via softmax", z2.Grad.F64(), z.Grad.F64(), 1e-12)
}

func TestLogSumExp(t *testing.T) {
	x := Param(tensor.FromSlice([]float64{1000, 1000, 0, math.Log(3)}, 2, 2))
	y := LogSumExp(x, 1, false)
	if !y.Shape().Equal(tensor.Shape{2}) {
		t.Fatalf("shape %v", y.Shape())
	}
	near(t, "logsumexp", y.T.F64(), []float64{1000 + math.Ln2, math.Log(4)}, 1e-9)
	Sum(y, nil, false).Backward()
	near(t, "grad = softmax", x.Grad.F64(), []float64{0.5, 0.5, 0.25, 0.75}, 1e-12)
}

func TestActivationWrappersRecord(t *testing.T) {
	x := Param(tensor.FromSlice([]float64{-1, 0.5, 2}, 3))
	fs := map[string]func(*Var) *Var{
		"sigmoid": Sigmoid, "tanh": Tanh, "relu6": Relu6, "hardswish": Hardswish, "silu": Silu, "mish": Mish,
		"gelu": func(v *Var) *Var { return Gelu(v, true) }, "swish": func(v *Var) *Var { return Swish(v, 2) },
		"leaky": func(v *Var) *Var { return LeakyRelu(v, 0.1) }, "elu": func(v *Var) *Var { return Elu(v, 1) },
		"hardsigmoid": func(v *Var) *Var { return Hardsigmoid(v, 1.0/6, 0.5) },
		"softplus":    func(v *Var) *Var { return Softplus(v, 1, 20) }, "hardtanh": func(v *Var) *Var { return Hardtanh(v, -1, 1) },
	}
	for name, f := range fs {
		x.ZeroGrad()
		Sum(f(x), nil, false).Backward()
		if x.Grad == nil || math.Abs(x.Grad.F64()[1]) < 1e-3 {
			t.Errorf("%s: no gradient at 0.5: %v", name, x.Grad)
		}
	}
	// σ'(0.5) = σ(1-σ)
	x.ZeroGrad()
	Sum(Sigmoid(x), nil, false).Backward()
	s := 1 / (1 + math.Exp(-0.5))
	near(t, "sigmoid'", x.Grad.F64()[1:2], []float64{s * (1 - s)}, 1e-12)
}

func TestReductionWrappers(t *testing.T) {
	x := Param(tensor.FromSlice([]float64{3, 1, 3, 2, 5, 4}, 2, 3))
	Sum(Max(x, []int{1}, false), nil, false).Backward()
	near(t, "max grad (ties split)", x.Grad.F64(), []float64{0.5, 0, 0.5, 0, 1, 0}, 0)

	x.ZeroGrad()
	v, i := TopK(x, 2, 1, true)
	if i.DType() != tensor.Int64 || i.T.I64()[0] != 0 {
		t.Fatalf("indices %v", i.DType())
	}
	Sum(Mul(v, Const(tensor.FromSlice([]float64{10, 1, 10, 1}, 2, 2))), nil, false).Backward()
	near(t, "topk grad", x.Grad.F64(), []float64{10, 0, 1, 0, 10, 1}, 0)

	x.ZeroGrad()
	Sum(Cumsum(x, 1, false, false), nil, false).Backward()
	near(t, "cumsum grad", x.Grad.F64(), []float64{3, 2, 1, 3, 2, 1}, 0)

	x.ZeroGrad()
	c := Const(tensor.FromSlice([]bool{true, false, true}, 3))
	Sum(Where(c, x, Const(tensor.Scalar(0.0))), nil, false).Backward()
	near(t, "where grad", x.Grad.F64(), []float64{1, 0, 1, 1, 0, 1}, 0)

	if a := ArgMax(x, 1, false); a.RequiresGrad() || a.T.I64()[1] != 1 {
		t.Errorf("argmax %v", a.T)
	}
}
