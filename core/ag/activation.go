package ag

import (
	"paddle/core/op"
	"paddle/core/tensor"
)

// Activations: wrappers of the primitives in core/op (activation.go,
// softmax.go) and composites built from them.

// Sigmoid returns 1/(1+e^-x).
func Sigmoid(x *Var) *Var { return apply1("sigmoid", nil, x) }

// Tanh returns tanh x.
func Tanh(x *Var) *Var { return apply1("tanh", nil, x) }

// Relu6 returns min(max(x, 0), 6).
func Relu6(x *Var) *Var { return apply1("relu6", nil, x) }

// LeakyRelu returns x for x >= 0 and alpha·x otherwise (Paddle's default alpha is 0.01).
func LeakyRelu(x *Var, alpha float64) *Var { return apply1("leaky_relu", op.Attrs{"alpha": alpha}, x) }

// Elu returns x for x > 0 and alpha·(e^x - 1) otherwise.
func Elu(x *Var, alpha float64) *Var { return apply1("elu", op.Attrs{"alpha": alpha}, x) }

// Hardswish returns x·relu6(x+3)/6.
func Hardswish(x *Var) *Var { return apply1("hardswish", nil, x) }

// Hardsigmoid returns clip(slope·x + offset, 0, 1). Paddle's default is slope
// 1/6 (0.1666667), offset 0.5; ONNX HardSigmoid's is 0.2, 0.5.
func Hardsigmoid(x *Var, slope, offset float64) *Var {
	return apply1("hardsigmoid", op.Attrs{"alpha": slope, "beta": offset}, x)
}

// Softplus returns log(1+e^(beta·x))/beta, and x where beta·x > threshold
// (Paddle's defaults: beta 1, threshold 20).
func Softplus(x *Var, beta, threshold float64) *Var {
	return apply1("softplus", op.Attrs{"beta": beta, "threshold": threshold}, x)
}

// Silu returns x·σ(x).
func Silu(x *Var) *Var { return apply1("silu", nil, x) }

// Gelu returns x·Φ(x), with the tanh approximation when approximate is set
// (Paddle's F.gelu(x, approximate)).
func Gelu(x *Var, approximate bool) *Var {
	a := "none"
	if approximate {
		a = "tanh"
	}
	return apply1("gelu", op.Attrs{"approximate": a}, x)
}

// Softmax returns e^x / Σe^x along axis.
func Softmax(x *Var, axis int) *Var { return apply1("softmax", op.Attrs{"axis": axis}, x) }

// LogSoftmax returns x - log Σe^x along axis.
func LogSoftmax(x *Var, axis int) *Var { return apply1("log_softmax", op.Attrs{"axis": axis}, x) }

// Composites ----------------------------------------------------------------

// Swish returns x·σ(beta·x) (beta 1 is Silu).
func Swish(x *Var, beta float64) *Var {
	if beta == 1 {
		return Silu(x)
	}
	return Mul(x, Sigmoid(MulScalar(x, beta)))
}

// Hardtanh returns clip(x, lo, hi) (Paddle's defaults: -1, 1).
func Hardtanh(x *Var, lo, hi float64) *Var { return Clip(x, lo, hi) }

// Mish returns x·tanh(softplus(x)).
func Mish(x *Var) *Var { return Mul(x, Tanh(Softplus(x, 1, 20))) }

// LogSumExp returns log Σe^x along axis, stably: m + log Σe^(x-m) with m the
// (constant) max along axis.
func LogSumExp(x *Var, axis int, keepdims bool) *Var {
	m := Const(op.Max(x.T, []int{axis}, true))
	s := Add(Log(Sum(Exp(Sub(x, m)), []int{axis}, true)), m)
	if keepdims {
		return s
	}
	ax, err := tensor.NormAxis(axis, x.T.Rank())
	if err != nil {
		panic(&op.ShapeError{Op: "logsumexp", Err: err})
	}
	return Reshape(s, append(s.Shape()[:ax:ax], s.Shape()[ax+1:]...)...)
}
