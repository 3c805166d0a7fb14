package op

import (
	"math"
	"math/rand/v2"
	"testing"
)

// hardswish32 (bit clamp) is bitwise the float min/max form, specials included.
func TestHardswish32Bitwise(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	x := []float32{0, float32(math.Copysign(0, -1)), -3, 3, -6, 6, 1e-30, -1e-30, 3.0000002, -2.9999998,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), -float32(math.NaN()), math.MaxFloat32, -math.MaxFloat32}
	for range 100000 {
		x = append(x, float32(r.NormFloat64()*4))
	}
	got := make([]float32, len(x))
	hardswish32(got, x)
	for i, v := range x {
		want := v * min(max(v+3, 0), 6) / 6
		if math.Float32bits(got[i]) != math.Float32bits(want) && !(want != want && got[i] != got[i]) {
			t.Fatalf("hardswish(%g) = %g, want %g", v, got[i], want)
		}
	}
}
