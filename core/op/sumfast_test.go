package op

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/tensor"
)

// sumRows agrees with the plain index-mapping reduction on every axis pattern,
// including inputs large enough to take the parallel path.
func TestSumRowsMatchesIndexLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	cases := []struct {
		s    tensor.Shape
		axes []int
	}{
		{tensor.Shape{3, 4}, []int{0}}, {tensor.Shape{3, 4}, []int{1}}, {tensor.Shape{3, 4}, nil},
		{tensor.Shape{2, 3, 4, 5}, []int{0, 2, 3}}, {tensor.Shape{2, 3, 4, 5}, []int{1, 3}},
		{tensor.Shape{2, 1, 4}, []int{1}}, {tensor.Shape{1, 1}, []int{0}}, {tensor.Shape{}, nil},
		{tensor.Shape{0, 3}, []int{0}}, {tensor.Shape{64, 32, 40}, []int{0, 2}}, {tensor.Shape{300, 257}, []int{0}},
	}
	for _, c := range cases {
		x := tensor.Rand(r, tensor.Float64, -1, 1, c.s...)
		axes, _ := normAxes(Attrs{"axes": c.axes}, len(c.s))
		os, red := reduceShape(c.s, axes, false)
		want := make([]float64, os.NumElements())
		xv := x.F64()
		reduceIndex(c.s, red, func(i, o int) { want[o] += xv[i] })
		got := make([]float64, len(want))
		sumRows(got, xv, c.s, red)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-9 {
				t.Fatalf("%v axes %v: element %d = %v, want %v", c.s, c.axes, i, got[i], want[i])
			}
		}
	}
}

func BenchmarkSumBiasGrad(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x := tensor.Rand(r, tensor.Float32, -1, 1, 32, 64, 28, 28)
	for b.Loop() {
		Sum(x, []int{0, 2, 3}, false)
	}
}
