package cpu

import (
	"math"

	"paddle/core/op"
	"paddle/core/tensor"
)

// hardswishGo is the portable float32 hardswish, bitwise the op package's
// reference: y = x·min(max(x+3, 0), 6)/6, the clamp on the bits of x+3.
func hardswishGo(y, x []float32) {
	y = y[:len(x)]
	for i, v := range x {
		b := math.Float32bits(v + 3)
		b &^= uint32(int32(b) >> 31)
		b = min(b, 0x40c00000) // 6
		y[i] = v * math.Float32frombits(b) / 6
	}
}

// f32Pair returns the float32 data of a unary op's input and output, ok
// false for other dtypes or shapes (the reference kernel runs then).
func f32Pair(out, in []*op.T) (x, y []float32, ok bool) {
	if len(in) != 1 || len(out) != 1 || in[0].DType() != tensor.Float32 || out[0].DType() != tensor.Float32 ||
		!in[0].IsContiguous() || !out[0].IsContiguous() || in[0].Len() != out[0].Len() {
		return nil, nil, false
	}
	return in[0].F32(), out[0].F32(), true
}
