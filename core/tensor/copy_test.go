package tensor

import (
	"math/rand/v2"
	"testing"
)

// CopyFrom of strided views (transposes, slices with steps, broadcasts,
// their combinations, a scalar) into a contiguous tensor gives every
// element at its row-major place, for float32 and int64 buffers: the
// row-at-a-time copy (copyRows) against At, element by element.
func TestCopyFromStridedViews(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	x := Rand(r, Float32, -1, 1, 6, 40, 3, 8, 15)
	xi := x.Cast(Int64)
	views := []func(*Tensor) *Tensor{
		func(v *Tensor) *Tensor { return v.Transpose(2, 0, 3, 1, 4) }, // rec's attention split
		func(v *Tensor) *Tensor { return v.Transpose(4, 3, 2, 1, 0) },
		func(v *Tensor) *Tensor { return v.Transpose(0, 1, 2, 4, 3) },
		func(v *Tensor) *Tensor { return v.Slice(1, 3, 37, 5).Transpose(1, 0, 2, 4, 3) },
		func(v *Tensor) *Tensor { return v.Slice(4, 1, 14, 3) },
		func(v *Tensor) *Tensor { return v.Slice(0, 2, 3, 1).Slice(3, 0, 1, 1).BroadcastTo(4, 1, 40, 3, 2, 15) },
		func(v *Tensor) *Tensor { return v.Slice(4, 0, 0, 1) },
	}
	for _, src := range []*Tensor{x, xi} {
		for vi, view := range views {
			v := view(src)
			got := New(v.DType(), v.Shape()...)
			got.CopyFrom(v)
			idx := make([]int, v.Rank())
			for n := 0; n < v.Len(); n++ {
				rem := n
				for ax := v.Rank() - 1; ax >= 0; ax-- {
					idx[ax] = rem % v.Shape()[ax]
					rem /= v.Shape()[ax]
				}
				if g, w := got.At(idx...), v.At(idx...); g != w {
					t.Fatalf("%v view %d at %v: %v, want %v", src.DType(), vi, idx, g, w)
				}
			}
		}
	}
	s := Scalar(float32(2.5))
	got := New(Float32)
	got.CopyFrom(s.BroadcastTo())
	if got.At() != 2.5 {
		t.Fatalf("scalar copy: %v", got.At())
	}
}
