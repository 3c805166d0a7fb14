package tensor

import (
	"fmt"
	"strconv"
	"strings"
)

// Shape is the size of each dimension, outermost first. A scalar has an empty Shape.
type Shape []int

// NumElements is the product of the dimensions (1 for a scalar).
func (s Shape) NumElements() int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// Equal reports whether two shapes are identical.
func (s Shape) Equal(o Shape) bool {
	if len(s) != len(o) {
		return false
	}
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}

// Clone returns a copy of s.
func (s Shape) Clone() Shape { return append(Shape(nil), s...) }

// String formats the shape as (2, 3, 4).
func (s Shape) String() string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = strconv.Itoa(d)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// ContiguousStrides returns row-major strides (in elements) for s.
func ContiguousStrides(s Shape) []int {
	st := make([]int, len(s))
	acc := 1
	for i := len(s) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= s[i]
	}
	return st
}

// NormAxis maps a possibly negative axis into [0, rank) or returns an error.
func NormAxis(axis, rank int) (int, error) {
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		return 0, fmt.Errorf("axis %d out of range for rank %d", axis, rank)
	}
	return axis, nil
}

// BroadcastShapes returns the NumPy broadcast of a and b.
func BroadcastShapes(a, b Shape) (Shape, error) {
	n := max(len(a), len(b))
	out := make(Shape, n)
	for i := range n {
		da, db := 1, 1
		if j := len(a) - n + i; j >= 0 {
			da = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			db = b[j]
		}
		switch {
		case da == db:
			out[i] = da
		case da == 1:
			out[i] = db
		case db == 1:
			out[i] = da
		default:
			return nil, fmt.Errorf("shapes %v and %v do not broadcast", a, b)
		}
	}
	return out, nil
}

// InferReshape resolves one -1 entry in shape so that it holds n elements.
func InferReshape(shape []int, n int) (Shape, error) {
	out := make(Shape, len(shape))
	known, neg := 1, -1
	for i, d := range shape {
		switch {
		case d == -1:
			if neg >= 0 {
				return nil, fmt.Errorf("reshape %v: more than one -1", shape)
			}
			neg = i
		case d < 0:
			return nil, fmt.Errorf("reshape %v: negative dimension", shape)
		default:
			known *= d
		}
		out[i] = d
	}
	if neg >= 0 {
		if known == 0 || n%known != 0 {
			return nil, fmt.Errorf("cannot reshape %d elements into %v", n, shape)
		}
		out[neg] = n / known
	} else if known != n {
		return nil, fmt.Errorf("cannot reshape %d elements into %v", n, shape)
	}
	return out, nil
}
