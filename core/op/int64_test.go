package op_test

import (
	"math"
	"slices"
	"testing"

	"paddle/core/op"
	"paddle/core/tensor"
)

// int64 values beyond 2^53 (and ONNX's MaxInt64 "to the end" sentinel) go
// through the integer ops unchanged: float64 would round them, and MaxInt64
// overflows the conversion back to int64.
func TestInt64UnaryAndSumExact(t *testing.T) {
	const big = 1<<53 + 1
	x := tensor.FromSlice([]int64{math.MaxInt64, -5, big, -big}, 4)
	for name, c := range map[string]struct {
		got  *tensor.Tensor
		want []int64
	}{
		"abs":   {op.Abs(x), []int64{math.MaxInt64, 5, big, big}},
		"neg":   {op.Neg(x), []int64{-math.MaxInt64, 5, -big, big}},
		"sign":  {op.Sign(x), []int64{1, -1, 1, -1}},
		"relu":  {op.Relu(x), []int64{math.MaxInt64, 0, big, 0}},
		"floor": {op.Floor(x), []int64{math.MaxInt64, -5, big, -big}},
		"ceil":  {op.Ceil(x), []int64{math.MaxInt64, -5, big, -big}},
		"round": {op.Round(x), []int64{math.MaxInt64, -5, big, -big}},
		"clip":  {op.Clip(x, -3, math.Inf(1)), []int64{math.MaxInt64, -3, big, -3}},
		"clip2": {op.Clip(x, math.Inf(-1), 7.5), []int64{7, -5, 7, -big}},
		"sum":   {op.Sum(tensor.FromSlice([]int64{big, 2, -1}, 3), nil, false), []int64{big + 1}},
		"sum0":  {op.Sum(tensor.FromSlice([]int64{big, 1, 2, 3}, 2, 2), []int{0}, false), []int64{big + 2, 4}},
		"max":   {op.Max(x, nil, false), []int64{math.MaxInt64}},
	} {
		if c.got.DType() != tensor.Int64 || !slices.Equal(c.got.I64(), c.want) {
			t.Errorf("%s = %v, want %v", name, c.got, c.want)
		}
	}
}
