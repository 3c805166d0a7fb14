package ag

import (
	"paddle/core/op"
	"paddle/core/tensor"
)

// Differentiable wrappers of the primitives in core/op (one line each).

// Add returns a+b (broadcast).
func Add(a, b *Var) *Var { return apply1("add", nil, a, b) }

// Sub returns a-b (broadcast).
func Sub(a, b *Var) *Var { return apply1("sub", nil, a, b) }

// Mul returns a*b (broadcast).
func Mul(a, b *Var) *Var { return apply1("mul", nil, a, b) }

// Div returns a/b (broadcast).
func Div(a, b *Var) *Var { return apply1("div", nil, a, b) }

// Pow returns a^b (broadcast).
func Pow(a, b *Var) *Var { return apply1("pow", nil, a, b) }

// Maximum returns max(a, b) (broadcast).
func Maximum(a, b *Var) *Var { return apply1("maximum", nil, a, b) }

// Minimum returns min(a, b) (broadcast).
func Minimum(a, b *Var) *Var { return apply1("minimum", nil, a, b) }

// Neg returns -x.
func Neg(x *Var) *Var { return apply1("neg", nil, x) }

// Exp returns e^x.
func Exp(x *Var) *Var { return apply1("exp", nil, x) }

// Log returns ln x.
func Log(x *Var) *Var { return apply1("log", nil, x) }

// Relu returns max(x, 0).
func Relu(x *Var) *Var { return apply1("relu", nil, x) }

// Sum adds x over axes (nil = all).
func Sum(x *Var, axes []int, keepdims bool) *Var {
	return apply1("sum", op.Attrs{"axes": axes, "keepdims": keepdims}, x)
}

// Mean averages x over axes (nil = all).
func Mean(x *Var, axes []int, keepdims bool) *Var {
	return apply1("mean", op.Attrs{"axes": axes, "keepdims": keepdims}, x)
}

// Reshape gives x a new shape (one entry may be -1).
func Reshape(x *Var, shape ...int) *Var {
	if x.Shape().Equal(shape) {
		return x
	}
	return apply1("reshape", op.Attrs{"shape": append([]int(nil), shape...)}, x)
}

// Transpose permutes x's axes.
func Transpose(x *Var, perm ...int) *Var {
	return apply1("transpose", op.Attrs{"perm": append([]int(nil), perm...)}, x)
}

// BroadcastTo expands x to shape.
func BroadcastTo(x *Var, shape ...int) *Var {
	if x.Shape().Equal(shape) {
		return x
	}
	return apply1("broadcast_to", op.Attrs{"shape": append([]int(nil), shape...)}, x)
}

// MatMul returns a·b over the last two axes.
func MatMul(a, b *Var, transA, transB bool) *Var {
	return apply1("matmul", op.Attrs{"trans_a": transA, "trans_b": transB}, a, b)
}

// Cast converts x to dtype d.
func Cast(x *Var, d tensor.DType) *Var {
	if x.DType() == d {
		return x
	}
	return apply1("cast", op.Attrs{"dtype": d.String()}, x)
}

// Scalar returns a constant rank-0 Var with x's dtype.
func Scalar(x *Var, v float64) *Var { return Const(op.ScalarLike(x.T, v)) }

// AddScalar returns x + v.
func AddScalar(x *Var, v float64) *Var { return Add(x, Scalar(x, v)) }

// MulScalar returns x * v.
func MulScalar(x *Var, v float64) *Var { return Mul(x, Scalar(x, v)) }
