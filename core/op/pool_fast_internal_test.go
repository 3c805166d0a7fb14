package op

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// The float32 global_avg_pool kernel against mean's result: the float64
// sum of each plane rounded to float32 and divided by the plane size. Its
// eight partial sums may round the float64 sum differently, so the result
// may differ by one float32 ulp at most; plane sizes that do and do not
// fill the 8-wide steps, one and two threads.
func TestGlobalAvgPool32MatchesMean(t *testing.T) {
	defer parallel.SetThreads(parallel.Threads())
	r := rand.New(rand.NewPCG(11, 12))
	for _, threads := range []int{1, 2} {
		parallel.SetThreads(threads)
		for _, sp := range [][]int{{1, 1}, {1, 7}, {3, 3}, {4, 4}, {2, 96}, {17, 33}, {64, 64}} {
			shape := append([]int{3, 5}, sp...)
			x := tensor.Rand(r, tensor.Float32, -1, 1, shape...)
			got := GlobalAvgPool(x)
			want := Mean(x, []int{2, 3}, true)
			if !got.Shape().Equal(want.Shape()) {
				t.Fatalf("%v: shape %v, want %v", shape, got.Shape(), want.Shape())
			}
			g, w := got.F32(), want.F32()
			for i := range g {
				if d := math.Float32bits(g[i]) - math.Float32bits(w[i]); d+1 > 2 || math.Signbit(float64(g[i])) != math.Signbit(float64(w[i])) {
					t.Fatalf("%v, %d threads: plane %d = %v, mean %v", shape, threads, i, g[i], w[i])
				}
			}
		}
	}
	// rank 3 and 5 inputs reduce every axis after the second
	for _, shape := range [][]int{{2, 3, 5}, {2, 3, 2, 3, 4}} {
		x := tensor.Rand(r, tensor.Float32, -1, 1, shape...)
		want := Mean(x, spatialAxes(len(shape)), true)
		d, _ := tensor.MaxDiff(GlobalAvgPool(x), want, 0, 0)
		if d > 1e-7 {
			t.Fatalf("%v: max diff %g from mean", shape, d)
		}
	}
}
