package op_test

import (
	"math"
	"slices"
	"testing"

	"paddle/core/op"
	"paddle/core/tensor"
)

// Comparisons, by hand: every dtype they take, broadcasting, NaN (every
// comparison with NaN is false, as IEEE 754 and NumPy), int64 beyond 2^53,
// and a dtype mismatch as a shape error.
func TestComparisonsForward(t *testing.T) {
	fns := map[string]func(a, b *tensor.Tensor) *tensor.Tensor{
		"greater": op.Greater, "greater_equal": op.GreaterEqual,
		"less": op.Less, "less_equal": op.LessEqual, "equal": op.Equal,
	}
	nan := math.NaN()
	type tc struct {
		a, b *tensor.Tensor
		want map[string][]bool
	}
	tests := map[string]tc{
		"float32_nan": {tensor.FromSlice([]float32{1, 2, float32(nan)}, 3), tensor.FromSlice([]float32{2, 2, 0}, 3), map[string][]bool{
			"greater": {false, false, false}, "greater_equal": {false, true, false},
			"less": {true, false, false}, "less_equal": {true, true, false}, "equal": {false, true, false}}},
		"float64_broadcast": {tensor.FromSlice([]float64{0, 1}, 2, 1), tensor.FromSlice([]float64{0, 1, 2}, 3), map[string][]bool{
			"greater": {false, false, false, true, false, false}, "greater_equal": {true, false, false, true, true, false},
			"less": {false, true, true, false, false, true}, "less_equal": {true, true, true, false, true, true},
			"equal": {true, false, false, false, true, false}}},
		"int64_beyond_2^53": {tensor.FromSlice([]int64{1<<53 + 1, -5}, 2), tensor.FromSlice([]int64{1 << 53, -5}, 2), map[string][]bool{
			"greater": {true, false}, "greater_equal": {true, true}, "less": {false, false},
			"less_equal": {false, true}, "equal": {false, true}}},
		"int32": {tensor.FromSlice([]int32{-7, 3}, 2), tensor.Scalar(int32(3)), map[string][]bool{
			"greater": {false, false}, "greater_equal": {false, true}, "less": {true, false},
			"less_equal": {true, true}, "equal": {false, true}}},
		"uint8": {tensor.FromSlice([]uint8{0, 255}, 2), tensor.FromSlice([]uint8{255, 0}, 2), map[string][]bool{
			"greater": {false, true}, "greater_equal": {false, true}, "less": {true, false},
			"less_equal": {true, false}, "equal": {false, false}}},
		"int8": {tensor.FromSlice([]int8{-128, 127}, 2), tensor.FromSlice([]int8{-128, -1}, 2), map[string][]bool{
			"greater": {false, true}, "greater_equal": {true, true}, "less": {false, false},
			"less_equal": {true, false}, "equal": {true, false}}},
	}
	for name, c := range tests {
		for cmpName, f := range fns {
			got := f(c.a, c.b)
			if got.DType() != tensor.Bool || !slices.Equal(got.Bools(), c.want[cmpName]) {
				t.Errorf("%s %s: %v, want %v", name, cmpName, got, c.want[cmpName])
			}
		}
	}
	mustMathShapeError(t, "greater of float32 and float64", func() {
		op.Greater(tensor.FromSlice([]float32{1}, 1), tensor.FromSlice([]float64{1}, 1))
	})
}
