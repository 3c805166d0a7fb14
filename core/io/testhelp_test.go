package io

import (
	"math/rand/v2"
	"testing"

	"paddle/core/tensor"
)

// sampleTensors returns one tensor of every dtype with distinctive values,
// including a scalar and an empty tensor.
func sampleTensors() map[string]*tensor.Tensor {
	r := rand.New(rand.NewPCG(1, 2))
	return map[string]*tensor.Tensor{
		"f32":          tensor.Randn(r, tensor.Float32, 0, 3, 2, 3, 4),
		"f64":          tensor.Randn(r, tensor.Float64, 0, 1e10, 5),
		"i64":          tensor.FromSlice([]int64{-1 << 62, -1, 0, 1, 1<<63 - 1}, 5),
		"i32":          tensor.FromSlice([]int32{-1 << 31, -7, 0, 1<<31 - 1}, 2, 2),
		"u8":           tensor.FromSlice([]uint8{0, 1, 127, 128, 255, 3}, 3, 2),
		"i8":           tensor.FromSlice([]int8{-128, -1, 0, 1, 127}, 5),
		"bool":         tensor.FromSlice([]bool{true, false, false, true}, 4, 1),
		"scalar":       tensor.Scalar(float32(2.5)),
		"empty":        tensor.New(tensor.Float32, 0, 3),
		"layer.weight": tensor.Randn(r, tensor.Float32, 0, 1, 3, 3).Transpose(), // non-contiguous view
	}
}

// sameTensor fails t unless got has want's dtype, shape and exact elements.
func sameTensor(t *testing.T, name string, got, want *tensor.Tensor) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: missing", name)
		return
	}
	if got.DType() != want.DType() || !got.Shape().Equal(want.Shape()) {
		t.Errorf("%s: got %v %v, want %v %v", name, got.DType(), got.Shape(), want.DType(), want.Shape())
		return
	}
	g, w := got.Float64s(), want.Float64s()
	for i := range w {
		if g[i] != w[i] {
			t.Errorf("%s: element %d = %v, want %v", name, i, g[i], w[i])
			return
		}
	}
	if got.DType() == tensor.Int64 { // float64 loses low bits of big int64s
		gi, wi := got.Contiguous().I64(), want.Contiguous().I64()
		for i := range wi {
			if gi[i] != wi[i] {
				t.Errorf("%s: element %d = %d, want %d", name, i, gi[i], wi[i])
				return
			}
		}
	}
}
