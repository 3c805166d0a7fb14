package vorbis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestIMDCTMatchesDirect checks the FFT-based inverse MDCT against the
// O(n²) definition it implements.
func TestIMDCTMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{64, 256, 2048} {
		x := make([]float32, n/2)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		got := make([]float32, n)
		newIMDCT(n).transform(x, got)
		var maxErr float64
		for i := range n {
			var want float64
			for k := range n / 2 {
				want += float64(x[k]) * math.Cos(2*math.Pi/float64(n)*(float64(i)+0.5+float64(n)/4)*(float64(k)+0.5))
			}
			maxErr = max(maxErr, math.Abs(want-float64(got[i])))
		}
		if maxErr > 1e-4 {
			t.Errorf("n=%d: max |fft - direct| = %g, want < 1e-4", n, maxErr)
		}
	}
}
