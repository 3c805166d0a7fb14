package op

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/tensor"
)

// pow with a float32 exponent 2 (the x·x path) is bitwise math.Pow rounded
// to float32: random values over the whole exponent range (overflow to
// +Inf, underflow to subnormals and 0), ±0, ±Inf and NaN; other exponents
// and shapes that broadcast x keep the general loop.
func TestPowSquareBitwise(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	xs := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-30, -1e-23, 1.5e19, -3e19, 1e-45}
	for range 20000 {
		xs = append(xs, math.Float32frombits(r.Uint32()))
	}
	x := tensor.FromSlice(xs, len(xs))
	got := Pow(x, tensor.FromSlice([]float32{2}, 1))
	for i, v := range xs {
		w := float32(math.Pow(float64(v), 2))
		if g := got.F32()[i]; math.Float32bits(g) != math.Float32bits(w) && !(g != g && w != w) {
			t.Fatalf("pow(%v, 2) = %v (%#x), want %v (%#x)", v, g, math.Float32bits(g), w, math.Float32bits(w))
		}
	}
	if square32(tensor.New(tensor.Float32, 3), tensor.FromSlice([]float32{1, 2, 3}, 3), tensor.FromSlice([]float32{3}, 1)) {
		t.Fatal("square32 took exponent 3")
	}
	b := Pow(tensor.FromSlice([]float32{2}, 1), tensor.FromSlice([]float32{2, 3}, 2)) // x broadcast
	if v := b.F32(); v[0] != 4 || v[1] != 8 {
		t.Fatalf("pow([2], [2 3]) = %v, want [4 8]", v)
	}
}
