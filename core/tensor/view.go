package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Reshape returns a tensor with the same elements in a new shape (one entry may be -1).
// It is a view when t is contiguous and a copy otherwise.
func (t *Tensor) Reshape(shape ...int) *Tensor {
	s, err := InferReshape(shape, t.Len())
	if err != nil {
		panic("tensor: " + err.Error())
	}
	c := t.Contiguous()
	return &Tensor{dtype: c.dtype, shape: s, strides: ContiguousStrides(s), offset: c.offset, data: c.data}
}

// Transpose returns a view with axes permuted: axis i of the result is axis perm[i] of t.
// With no perm it reverses the axes.
func (t *Tensor) Transpose(perm ...int) *Tensor {
	r := len(t.shape)
	if len(perm) == 0 {
		perm = make([]int, r)
		for i := range r {
			perm[i] = r - 1 - i
		}
	}
	if len(perm) != r {
		panic(fmt.Sprintf("tensor: transpose perm %v for rank %d", perm, r))
	}
	seen := make([]bool, r)
	s, st := make(Shape, r), make([]int, r)
	for i, p := range perm {
		if p < 0 {
			p += r
		}
		if p < 0 || p >= r || seen[p] {
			panic(fmt.Sprintf("tensor: bad transpose perm %v", perm))
		}
		seen[p] = true
		s[i], st[i] = t.shape[p], t.strides[p]
	}
	return &Tensor{dtype: t.dtype, shape: s, strides: st, offset: t.offset, data: t.data}
}

// Slice returns a view of elements start, start+step, ... < end along axis.
// Negative start/end count from the end; step must be positive.
func (t *Tensor) Slice(axis, start, end, step int) *Tensor {
	axis, err := NormAxis(axis, len(t.shape))
	if err != nil {
		panic("tensor: " + err.Error())
	}
	n := t.shape[axis]
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	start, end = min(max(start, 0), n), min(max(end, 0), n)
	if step <= 0 {
		panic("tensor: slice step must be positive")
	}
	cnt := 0
	if end > start {
		cnt = (end - start + step - 1) / step
	}
	s := t.shape.Clone()
	st := append([]int(nil), t.strides...)
	s[axis] = cnt
	st[axis] *= step
	return &Tensor{dtype: t.dtype, shape: s, strides: st, offset: t.offset + start*t.strides[axis], data: t.data}
}

// BroadcastTo returns a view of t expanded to shape with NumPy rules (stride 0 on broadcast axes).
func (t *Tensor) BroadcastTo(shape ...int) *Tensor {
	s := Shape(shape)
	if len(s) < len(t.shape) {
		panic(fmt.Sprintf("tensor: cannot broadcast %v to %v", t.shape, s))
	}
	st := make([]int, len(s))
	off := len(s) - len(t.shape)
	for i := range s {
		if i < off {
			continue
		}
		d := t.shape[i-off]
		switch {
		case d == s[i]:
			st[i] = t.strides[i-off]
		case d == 1:
			st[i] = 0
		default:
			panic(fmt.Sprintf("tensor: cannot broadcast %v to %v", t.shape, s))
		}
	}
	return &Tensor{dtype: t.dtype, shape: s.Clone(), strides: st, offset: t.offset, data: t.data}
}

// Cast returns a contiguous copy converted to dtype d, as NumPy's astype:
// float → int truncates toward zero, integers narrow by wrap-around, bool
// becomes 0/1 and anything becomes bool as != 0.
func (t *Tensor) Cast(d DType) *Tensor {
	if d == t.dtype {
		return t.Clone()
	}
	out := New(d, t.shape...)
	if src, ok := t.data.([]float64); ok && d == Float32 {
		dst := out.F32()
		i := 0
		t.each(func(f int) { dst[i] = float32(src[f]); i++ })
		return out
	}
	i := 0
	if d != Bool && !d.IsFloat() {
		// To an integer type: go through int64 so int64 values beyond 2^53
		// stay exact, and narrow by two's-complement wrap-around as NumPy's
		// astype does (300 → uint8 44, -1 → uint8 255) on every platform.
		t.each(func(f int) { out.setInt(i, t.getInt(f)); i++ })
		return out
	}
	t.each(func(f int) { out.setFlat(i, t.getFlat(f)); i++ })
	return out
}

// copyStrided copies src into dst (same dtype and shape, any strides) element
// by element in the buffers' own type, so int64 values beyond 2^53 stay exact.
func copyStrided(dst, src *Tensor) {
	switch s := src.data.(type) {
	case []float32:
		copyTyped(dst, dst.data.([]float32), src, s)
	case []float64:
		copyTyped(dst, dst.data.([]float64), src, s)
	case []int64:
		copyTyped(dst, dst.data.([]int64), src, s)
	case []int32:
		copyTyped(dst, dst.data.([]int32), src, s)
	case []uint8:
		copyTyped(dst, dst.data.([]uint8), src, s)
	case []int8:
		copyTyped(dst, dst.data.([]int8), src, s)
	case []bool:
		copyTyped(dst, dst.data.([]bool), src, s)
	default:
		panic("tensor: bad buffer")
	}
}

func copyTyped[E Elem](dst *Tensor, d []E, src *Tensor, s []E) {
	n := src.Len()
	if src.IsContiguous() && dst.IsContiguous() {
		copy(d[dst.offset:dst.offset+n], s[src.offset:src.offset+n])
		return
	}
	if dst.IsContiguous() {
		copyRows(d[dst.offset:dst.offset+n], src, s)
		return
	}
	flats := make([]int, 0, n)
	dst.each(func(f int) { flats = append(flats, f) })
	i := 0
	src.each(func(f int) { d[flats[i]] = s[f]; i++ })
}

// copyRows copies the strided view src (buffer s) in row-major order into
// d (len src.Len()): a row of the last axis at a time, by copy when that
// axis is contiguous, rather than an index walk per element (a transposed
// view's copy, the transpose op).
func copyRows[E Elem](d []E, src *Tensor, s []E) {
	r := len(src.shape)
	if len(d) == 0 {
		return
	}
	if r == 0 {
		d[0] = s[src.offset]
		return
	}
	last, st := src.shape[r-1], src.strides[r-1]
	idx := make([]int, r-1)
	flat := src.offset
	for i := 0; i < len(d); i += last {
		row := d[i : i+last]
		if st == 1 {
			copy(row, s[flat:flat+last])
		} else {
			f := flat
			for j := range row {
				row[j] = s[f]
				f += st
			}
		}
		flat = step(idx, src.shape, src.strides, flat) // the next row's start
	}
}

// Rand returns a float tensor of uniform values in [lo, hi) drawn from r.
func Rand(r *rand.Rand, d DType, lo, hi float64, shape ...int) *Tensor {
	t := New(d, shape...)
	for i := range t.Len() {
		t.setFlat(i, lo+(hi-lo)*r.Float64())
	}
	return t
}

// Randn returns a float tensor of standard normal values (times std, plus mean) drawn from r.
func Randn(r *rand.Rand, d DType, mean, std float64, shape ...int) *Tensor {
	t := New(d, shape...)
	for i := range t.Len() {
		t.setFlat(i, mean+std*r.NormFloat64())
	}
	return t
}

// AllClose reports whether a and b have the same shape and |a-b| <= atol + rtol*|b| everywhere.
func AllClose(a, b *Tensor, rtol, atol float64) bool {
	_, ok := MaxDiff(a, b, rtol, atol)
	return ok
}

// MaxDiff returns the largest |a-b| and whether all elements satisfy |a-b| <= atol + rtol*|b|.
// Shapes must match; NaNs compare equal only to NaNs.
func MaxDiff(a, b *Tensor, rtol, atol float64) (float64, bool) {
	if !a.shape.Equal(b.shape) {
		return math.Inf(1), false
	}
	av, bv := a.Float64s(), b.Float64s()
	worst, ok := 0.0, true
	for i := range av {
		if math.IsNaN(av[i]) || math.IsNaN(bv[i]) {
			if !(math.IsNaN(av[i]) && math.IsNaN(bv[i])) {
				ok = false
				worst = math.Inf(1)
			}
			continue
		}
		d := math.Abs(av[i] - bv[i])
		worst = max(worst, d)
		if d > atol+rtol*math.Abs(bv[i]) {
			ok = false
		}
	}
	return worst, ok
}
