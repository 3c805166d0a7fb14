package ag

import (
	"math"

	"paddle/core/op"
)

// Differentiable wrappers of the elementwise-math and reduction primitives
// (core/op math.go, where.go, reduce_more.go, axis_ops.go).

// Sqrt returns √x.
func Sqrt(x *Var) *Var { return apply1("sqrt", nil, x) }

// Rsqrt returns 1/√x.
func Rsqrt(x *Var) *Var { return apply1("rsqrt", nil, x) }

// Abs returns |x|.
func Abs(x *Var) *Var { return apply1("abs", nil, x) }

// Sign returns -1, 0 or 1 by the sign of x (zero gradient).
func Sign(x *Var) *Var { return apply1("sign", nil, x) }

// Reciprocal returns 1/x.
func Reciprocal(x *Var) *Var { return apply1("reciprocal", nil, x) }

// Floor rounds x down (zero gradient).
func Floor(x *Var) *Var { return apply1("floor", nil, x) }

// Ceil rounds x up (zero gradient).
func Ceil(x *Var) *Var { return apply1("ceil", nil, x) }

// Round rounds x half to even (zero gradient).
func Round(x *Var) *Var { return apply1("round", nil, x) }

// Erf returns the error function of x.
func Erf(x *Var) *Var { return apply1("erf", nil, x) }

// Sin returns sin x.
func Sin(x *Var) *Var { return apply1("sin", nil, x) }

// Cos returns cos x.
func Cos(x *Var) *Var { return apply1("cos", nil, x) }

// Clip clamps x to [lo, hi] (±Inf for an open side); the gradient passes where lo <= x <= hi.
func Clip(x *Var, lo, hi float64) *Var { return apply1("clip", op.Attrs{"min": lo, "max": hi}, x) }

// ClipMin returns max(x, lo).
func ClipMin(x *Var, lo float64) *Var { return Clip(x, lo, math.Inf(1)) }

// Where picks a where cond (bool) is true and b elsewhere, broadcasting all three.
func Where(cond, a, b *Var) *Var { return apply1("where", nil, cond, a, b) }

// LogicalNot returns !x for a bool value.
func LogicalNot(x *Var) *Var { return apply1("logical_not", nil, x) }

// LogicalAnd returns a && b for bool values (broadcast).
func LogicalAnd(a, b *Var) *Var { return apply1("logical_and", nil, a, b) }

// LogicalOr returns a || b for bool values (broadcast).
func LogicalOr(a, b *Var) *Var { return apply1("logical_or", nil, a, b) }

// Max returns the largest element over axes (nil = all); ties share the gradient evenly.
func Max(x *Var, axes []int, keepdims bool) *Var {
	return apply1("max", op.Attrs{"axes": axes, "keepdims": keepdims}, x)
}

// Min returns the smallest element over axes (nil = all); ties share the gradient evenly.
func Min(x *Var, axes []int, keepdims bool) *Var {
	return apply1("min", op.Attrs{"axes": axes, "keepdims": keepdims}, x)
}

// Prod multiplies x over axes (nil = all).
func Prod(x *Var, axes []int, keepdims bool) *Var {
	return apply1("prod", op.Attrs{"axes": axes, "keepdims": keepdims}, x)
}

// ReduceL2 returns √Σx² over axes (nil = all); its gradient at a zero norm is 0.
func ReduceL2(x *Var, axes []int, keepdims bool) *Var {
	return apply1("reduce_l2", op.Attrs{"axes": axes, "keepdims": keepdims}, x)
}

// ArgMax returns the int64 index of the largest element along axis (first among ties).
func ArgMax(x *Var, axis int, keepdims bool) *Var {
	return apply1("argmax", op.Attrs{"axis": axis, "keepdims": keepdims}, x)
}

// ArgMin returns the int64 index of the smallest element along axis (first among ties).
func ArgMin(x *Var, axis int, keepdims bool) *Var {
	return apply1("argmin", op.Attrs{"axis": axis, "keepdims": keepdims}, x)
}

// TopK returns the k largest (or smallest) elements along axis, sorted, and
// their int64 indices; the values' gradient flows back to the chosen elements.
func TopK(x *Var, k, axis int, largest bool) (values, indices *Var) {
	o := Apply(op.Lookup("topk"), op.Attrs{"k": k, "axis": axis, "largest": largest, "sorted": true}, x)
	return o[0], o[1]
}

// Cumsum returns running sums along axis (exclusive: without the element
// itself; reverse: from the end).
func Cumsum(x *Var, axis int, exclusive, reverse bool) *Var {
	return apply1("cumsum", op.Attrs{"axis": axis, "exclusive": exclusive, "reverse": reverse}, x)
}
