package op

import (
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// Fast float paths of add, sub, mul and div. The broadcast is reduced to rows:
// size-1 output axes are dropped and adjacent axes that both inputs step
// through alike are merged, so the innermost row of each input is either
// contiguous (stride 1) or one repeated value (stride 0). Same-shape,
// scalar, bias-style (N,C)+(C) and per-channel (N,C,H,W)+(1,C,1,1) cases all
// become a few long loops with no per-element calls. Results are bitwise the
// reference ones: one IEEE operation per element either way.

const (
	binAdd = iota
	binSub
	binMul
	binDiv
)

// fastBinary wraps slow (the generic kernel) with the float row kernels.
func fastBinary(code int, slow func(out, in []*T, a Attrs)) func(out, in []*T, a Attrs) {
	return func(out, in []*T, a Attrs) {
		o := out[0]
		switch o.DType() {
		case tensor.Float32:
			binRows(code, o.F32(), in[0].F32(), in[1].F32(), o.Shape(), in[0].Shape(), in[1].Shape())
		case tensor.Float64:
			binRows(code, o.F64(), in[0].F64(), in[1].F64(), o.Shape(), in[0].Shape(), in[1].Shape())
		default:
			slow(out, in, a)
		}
	}
}

// binDims returns the coalesced output dims with each input's strides.
func binDims(so, sa, sb tensor.Shape) (dims, ta, tb []int) {
	fa, fb := bstrides(sa, so), bstrides(sb, so)
	for i, d := range so {
		if d == 1 {
			continue
		}
		if n := len(dims); n > 0 && ta[n-1] == fa[i]*d && tb[n-1] == fb[i]*d {
			dims[n-1] *= d
			ta[n-1], tb[n-1] = fa[i], fb[i]
			continue
		}
		dims, ta, tb = append(dims, d), append(ta, fa[i]), append(tb, fb[i])
	}
	return dims, ta, tb
}

const binGrain = 1 << 15

func binRows[E fl](code int, o, a, b []E, so, sa, sb tensor.Shape) {
	n := len(o)
	if n == 0 {
		return
	}
	dims, ta, tb := binDims(so, sa, sb)
	if len(dims) == 0 { // every axis has size 1
		binRow(code, o, a, b, 1, 1)
		return
	}
	r := len(dims) - 1
	inner := dims[r]
	rows := n / inner
	parallel.For(rows, max(1, binGrain/inner), func(lo, hi int) {
		for row := lo; row < hi; row++ {
			// offsets of this row in a and b, from its index over the outer dims
			ia, ib, q := 0, 0, row
			for ax := r - 1; ax >= 0; ax-- {
				i := q % dims[ax]
				q /= dims[ax]
				ia += i * ta[ax]
				ib += i * tb[ax]
			}
			binRow(code, o[row*inner:(row+1)*inner], a[ia:], b[ib:], ta[r], tb[r])
		}
	})
}

// binRow computes one row; sa and sb are 1 (contiguous) or 0 (repeated), not both 0
// unless the row has one element.
func binRow[E fl](code int, o, a, b []E, sa, sb int) {
	if f := Active().VecRow32; f != nil && sa == 1 && (code == binAdd || code == binMul) {
		if o32, ok := any(o).([]float32); ok {
			c := byte('+')
			if code == binMul {
				c = '*'
			}
			if f(c, o32, any(a).([]float32), any(b).([]float32), sb) {
				return
			}
		}
	}
	switch code {
	case binAdd:
		addRow(o, a, b, sa, sb)
	case binSub:
		subRow(o, a, b, sa, sb)
	case binMul:
		mulRow(o, a, b, sa, sb)
	case binDiv:
		divRow(o, a, b, sa, sb)
	}
}

func addRow[E fl](o, a, b []E, sa, sb int) {
	switch {
	case sa != 0 && sb != 0:
		a, b = a[:len(o)], b[:len(o)]
		for i := range o {
			o[i] = a[i] + b[i]
		}
	case sb == 0:
		s, a := b[0], a[:len(o)]
		for i := range o {
			o[i] = a[i] + s
		}
	default:
		s, b := a[0], b[:len(o)]
		for i := range o {
			o[i] = s + b[i]
		}
	}
}

func subRow[E fl](o, a, b []E, sa, sb int) {
	switch {
	case sa != 0 && sb != 0:
		a, b = a[:len(o)], b[:len(o)]
		for i := range o {
			o[i] = a[i] - b[i]
		}
	case sb == 0:
		s, a := b[0], a[:len(o)]
		for i := range o {
			o[i] = a[i] - s
		}
	default:
		s, b := a[0], b[:len(o)]
		for i := range o {
			o[i] = s - b[i]
		}
	}
}

func mulRow[E fl](o, a, b []E, sa, sb int) {
	switch {
	case sa != 0 && sb != 0:
		a, b = a[:len(o)], b[:len(o)]
		for i := range o {
			o[i] = a[i] * b[i]
		}
	case sb == 0:
		s, a := b[0], a[:len(o)]
		for i := range o {
			o[i] = a[i] * s
		}
	default:
		s, b := a[0], b[:len(o)]
		for i := range o {
			o[i] = s * b[i]
		}
	}
}

func divRow[E fl](o, a, b []E, sa, sb int) {
	switch {
	case sa != 0 && sb != 0:
		a, b = a[:len(o)], b[:len(o)]
		for i := range o {
			o[i] = a[i] / b[i]
		}
	case sb == 0:
		s, a := b[0], a[:len(o)]
		for i := range o {
			o[i] = a[i] / s
		}
	default:
		s, b := a[0], b[:len(o)]
		for i := range o {
			o[i] = s / b[i]
		}
	}
}
