package tensor

import (
	"fmt"
	"math"
)

// Tensor is an n-dimensional array in host memory: a dtype, a shape, and a
// strided view (strides and offset in elements) of a typed buffer. Views
// (Reshape of a contiguous tensor, Transpose, Slice, BroadcastTo) share the
// buffer; everything else copies.
type Tensor struct {
	dtype   DType
	shape   Shape
	strides []int
	offset  int
	data    any // []float32 | []float64 | []int64 | []int32 | []uint8 | []int8 | []bool
}

// New returns a zero-filled contiguous tensor.
func New(d DType, shape ...int) *Tensor {
	s := Shape(shape).Clone()
	for _, v := range s {
		if v < 0 {
			panic(fmt.Sprintf("tensor: negative dimension in %v", s))
		}
	}
	return &Tensor{dtype: d, shape: s, strides: ContiguousStrides(s), data: makeSlice(d, s.NumElements())}
}

// FromSlice wraps data (not copied) as a contiguous tensor of the given shape.
func FromSlice[T Elem](data []T, shape ...int) *Tensor {
	s := Shape(shape).Clone()
	if len(shape) == 0 && len(data) != 1 {
		s = Shape{len(data)}
	}
	if s.NumElements() != len(data) {
		panic(fmt.Sprintf("tensor: %d elements do not fit shape %v", len(data), s))
	}
	return &Tensor{dtype: DTypeOf[T](), shape: s, strides: ContiguousStrides(s), data: data}
}

// Scalar returns a rank-0 tensor holding v.
func Scalar[T Elem](v T) *Tensor {
	return &Tensor{dtype: DTypeOf[T](), shape: Shape{}, strides: []int{}, data: []T{v}}
}

// Full returns a tensor of the given shape filled with v (converted to d).
func Full(d DType, v float64, shape ...int) *Tensor {
	t := New(d, shape...)
	t.fill(v)
	return t
}

// Zeros returns a float-or-other zero tensor; an alias of New kept for readability.
func Zeros(d DType, shape ...int) *Tensor { return New(d, shape...) }

// Ones returns a tensor of ones.
func Ones(d DType, shape ...int) *Tensor { return Full(d, 1, shape...) }

// ZerosLike returns a zero tensor with t's dtype and shape.
func ZerosLike(t *Tensor) *Tensor { return New(t.dtype, t.shape...) }

// OnesLike returns a tensor of ones with t's dtype and shape.
func OnesLike(t *Tensor) *Tensor { return Full(t.dtype, 1, t.shape...) }

// Arange returns [start, start+step, ...) below stop, like numpy.arange.
func Arange(d DType, start, stop, step float64) *Tensor {
	n := int(math.Ceil((stop - start) / step))
	n = max(n, 0)
	t := New(d, n)
	for i := range n {
		t.setFlat(i, start+float64(i)*step)
	}
	return t
}

func (t *Tensor) fill(v float64) {
	if s, ok := t.data.([]float32); ok && t.IsContiguous() {
		s = s[t.offset : t.offset+t.Len()]
		for i := range s {
			s[i] = float32(v)
		}
		return
	}
	t.each(func(flat int) { t.setFlat(flat, v) })
}

// Fill sets every element of t to v (converted to the dtype).
func (t *Tensor) Fill(v float64) { t.fill(v) }

// DType returns the element type.
func (t *Tensor) DType() DType { return t.dtype }

// Shape returns the shape. Callers must not modify it.
func (t *Tensor) Shape() Shape { return t.shape }

// Strides returns the strides in elements. Callers must not modify them.
func (t *Tensor) Strides() []int { return t.strides }

// Rank is the number of dimensions.
func (t *Tensor) Rank() int { return len(t.shape) }

// Dim returns the size of axis i (negative counts from the end).
func (t *Tensor) Dim(i int) int {
	if i < 0 {
		i += len(t.shape)
	}
	return t.shape[i]
}

// Len is the number of elements.
func (t *Tensor) Len() int { return t.shape.NumElements() }

// Dims2 returns the two dimensions of a rank-2 tensor.
func (t *Tensor) Dims2() (int, int) { t.mustRank(2); return t.shape[0], t.shape[1] }

// Dims3 returns the three dimensions of a rank-3 tensor.
func (t *Tensor) Dims3() (int, int, int) { t.mustRank(3); return t.shape[0], t.shape[1], t.shape[2] }

// Dims4 returns the four dimensions of a rank-4 tensor, e.g. n, c, h, w.
func (t *Tensor) Dims4() (int, int, int, int) {
	t.mustRank(4)
	return t.shape[0], t.shape[1], t.shape[2], t.shape[3]
}

func (t *Tensor) mustRank(r int) {
	if len(t.shape) != r {
		panic(fmt.Sprintf("tensor: want rank %d, have shape %v", r, t.shape))
	}
}

// IsContiguous reports whether t is a dense row-major view starting at its offset.
func (t *Tensor) IsContiguous() bool {
	acc := 1
	for i := len(t.shape) - 1; i >= 0; i-- {
		if t.shape[i] != 1 && t.strides[i] != acc {
			return false
		}
		acc *= t.shape[i]
	}
	return true
}

// Contiguous returns t if it is contiguous, else a contiguous copy.
func (t *Tensor) Contiguous() *Tensor {
	if t.IsContiguous() {
		return t
	}
	return t.Clone()
}

// Clone returns a contiguous copy with its own buffer.
func (t *Tensor) Clone() *Tensor {
	out := New(t.dtype, t.shape...)
	copyStrided(out, t)
	return out
}

// CopyFrom copies src (same shape and dtype, any strides) into t's elements.
func (t *Tensor) CopyFrom(src *Tensor) {
	if !t.shape.Equal(src.shape) || t.dtype != src.dtype {
		panic(fmt.Sprintf("tensor: CopyFrom %v %v into %v %v", src.dtype, src.shape, t.dtype, t.shape))
	}
	copyStrided(t, src)
}

// data accessors ---------------------------------------------------------

func dataOf[T Elem](t *Tensor) []T {
	s, ok := t.data.([]T)
	if !ok {
		panic(fmt.Sprintf("tensor: element access as %v on a %v tensor", DTypeOf[T](), t.dtype))
	}
	if !t.IsContiguous() {
		panic(fmt.Sprintf("tensor: raw access to a non-contiguous %v view; call Contiguous first", t.shape))
	}
	return s[t.offset : t.offset+t.Len()]
}

// Data returns the elements of a contiguous tensor as a []T sharing its buffer.
// It panics if T does not match the dtype or t is not contiguous.
func Data[T Elem](t *Tensor) []T { return dataOf[T](t) }

// F32 returns the float32 elements of a contiguous tensor (shared, not copied).
func (t *Tensor) F32() []float32 { return dataOf[float32](t) }

// F64 returns the float64 elements of a contiguous tensor (shared).
func (t *Tensor) F64() []float64 { return dataOf[float64](t) }

// I64 returns the int64 elements of a contiguous tensor (shared).
func (t *Tensor) I64() []int64 { return dataOf[int64](t) }

// I32 returns the int32 elements of a contiguous tensor (shared).
func (t *Tensor) I32() []int32 { return dataOf[int32](t) }

// U8 returns the uint8 elements of a contiguous tensor (shared).
func (t *Tensor) U8() []uint8 { return dataOf[uint8](t) }

// I8 returns the int8 elements of a contiguous tensor (shared).
func (t *Tensor) I8() []int8 { return dataOf[int8](t) }

// Bools returns the bool elements of a contiguous tensor (shared).
func (t *Tensor) Bools() []bool { return dataOf[bool](t) }

// Float64s returns a copy of all elements converted to float64, in row-major order.
func (t *Tensor) Float64s() []float64 {
	out := make([]float64, t.Len())
	i := 0
	t.each(func(flat int) {
		out[i] = t.getFlat(flat)
		i++
	})
	return out
}

// Item returns the single element of a one-element tensor as float64.
func (t *Tensor) Item() float64 {
	if t.Len() != 1 {
		panic(fmt.Sprintf("tensor: Item of a tensor with shape %v", t.shape))
	}
	return t.getFlat(t.offset)
}

// At returns the element at the given index as float64.
func (t *Tensor) At(idx ...int) float64 { return t.getFlat(t.flatIndex(idx)) }

// SetAt sets the element at the given index (v converted to the dtype).
func (t *Tensor) SetAt(v float64, idx ...int) { t.setFlat(t.flatIndex(idx), v) }

func (t *Tensor) flatIndex(idx []int) int {
	if len(idx) != len(t.shape) {
		panic(fmt.Sprintf("tensor: index %v for shape %v", idx, t.shape))
	}
	f := t.offset
	for i, v := range idx {
		if v < 0 || v >= t.shape[i] {
			panic(fmt.Sprintf("tensor: index %v out of range for shape %v", idx, t.shape))
		}
		f += v * t.strides[i]
	}
	return f
}

func (t *Tensor) getFlat(i int) float64 {
	switch s := t.data.(type) {
	case []float32:
		return float64(s[i])
	case []float64:
		return s[i]
	case []int64:
		return float64(s[i])
	case []int32:
		return float64(s[i])
	case []uint8:
		return float64(s[i])
	case []int8:
		return float64(s[i])
	case []bool:
		if s[i] {
			return 1
		}
		return 0
	}
	panic("tensor: bad buffer")
}

func (t *Tensor) setFlat(i int, v float64) {
	switch s := t.data.(type) {
	case []float32:
		s[i] = float32(v)
	case []float64:
		s[i] = v
	case []int64:
		s[i] = int64(v)
	case []int32:
		s[i] = int32(v)
	case []uint8:
		s[i] = uint8(v)
	case []int8:
		s[i] = int8(v)
	case []bool:
		s[i] = v != 0
	default:
		panic("tensor: bad buffer")
	}
}

// getInt returns element i as an int64: exact for integer buffers, truncated
// toward zero for floats (out-of-range floats give an unspecified value).
func (t *Tensor) getInt(i int) int64 {
	switch s := t.data.(type) {
	case []float32:
		return int64(s[i])
	case []float64:
		return int64(s[i])
	case []int64:
		return s[i]
	case []int32:
		return int64(s[i])
	case []uint8:
		return int64(s[i])
	case []int8:
		return int64(s[i])
	case []bool:
		if s[i] {
			return 1
		}
		return 0
	}
	panic("tensor: bad buffer")
}

// setInt stores v at element i of an integer buffer, wrapping it to the
// element width (two's complement), like a C or NumPy integer cast.
func (t *Tensor) setInt(i int, v int64) {
	switch s := t.data.(type) {
	case []int64:
		s[i] = v
	case []int32:
		s[i] = int32(v)
	case []uint8:
		s[i] = uint8(v)
	case []int8:
		s[i] = int8(v)
	default:
		t.setFlat(i, float64(v))
	}
}

// each calls f with the buffer index of every element in row-major order.
func (t *Tensor) each(f func(flat int)) {
	n := t.Len()
	if n == 0 {
		return
	}
	if t.IsContiguous() {
		for i := range n {
			f(t.offset + i)
		}
		return
	}
	idx := make([]int, len(t.shape))
	flat := t.offset
	for range n {
		f(flat)
		flat = step(idx, t.shape, t.strides, flat)
	}
}

// step advances the row-major index idx (over the first len(idx) axes of
// shape) by one, last axis fastest, and returns the buffer index flat
// moved with it by strides.
func step(idx, shape, strides []int, flat int) int {
	for ax := len(idx) - 1; ax >= 0; ax-- {
		idx[ax]++
		flat += strides[ax]
		if idx[ax] < shape[ax] {
			break
		}
		flat -= idx[ax] * strides[ax]
		idx[ax] = 0
	}
	return flat
}
