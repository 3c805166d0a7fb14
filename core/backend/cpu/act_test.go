package cpu

import (
	"math"
	"math/rand/v2"
	"testing"
)

// actInputs are random values plus the special ones: ±0, ±Inf, NaNs, the
// extremes, and values around the kinks at ±3 (and the edges of hardsigmoid).
func actInputs() []float32 {
	r := rand.New(rand.NewPCG(3, 4))
	x := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.Float32frombits(0xffc00001), math.MaxFloat32, -math.MaxFloat32,
		1e-30, -1e-30, math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32, -6, 6, 2.5, -2.5}
	for _, c := range []float32{-3, 3} {
		b := math.Float32bits(c)
		for d := uint32(0); d < 8; d++ {
			x = append(x, math.Float32frombits(b+d), math.Float32frombits(b-d))
		}
	}
	for range 50000 {
		x = append(x, float32(r.NormFloat64()*4))
	}
	return x
}

func sameBits(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
}

func TestHardswishVecBitwise(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		f := hardswishVec()
		if f == nil {
			t.Skip("no vector hardswish on this CPU")
		}
		x := actInputs()
		// every length up to 40 (tails), then the whole slice, also in place
		for n := 0; n <= len(x); n++ {
			if n > 40 && n != len(x) {
				continue
			}
			y := make([]float32, n+1)
			y[n] = 42
			f(y[:n], x[:n])
			for i, v := range x[:n] {
				want := v * min(max(v+3, 0), 6) / 6
				if !sameBits(y[i], want) {
					t.Fatalf("n=%d: hardswish(%g) = %g, want %g", n, v, y[i], want)
				}
			}
			if y[n] != 42 {
				t.Fatalf("n=%d: wrote past the end", n)
			}
		}
		in := append([]float32(nil), x...)
		f(in, in)
		ref := make([]float32, len(x))
		hardswishGo(ref, x)
		for i := range x {
			if !sameBits(in[i], ref[i]) {
				t.Fatalf("in place: hardswish(%g) = %g, want %g", x[i], in[i], ref[i])
			}
		}
	})
}

func TestHardsigmoidVecBitwise(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		f := hardsigmoidVec()
		if f == nil {
			t.Skip("no vector hardsigmoid on this CPU")
		}
		x := actInputs()
		for _, p := range [][2]float32{{0.2, 0.5}, {1.0 / 6, 0.5}, {-0.3, 0.1}} {
			for n := 0; n <= len(x); n++ {
				if n > 40 && n != len(x) {
					continue
				}
				y := make([]float32, n+1)
				y[n] = 42
				f(y[:n], x[:n], p[0], p[1])
				for i, v := range x[:n] {
					want := min(max(p[0]*v+p[1], 0), 1)
					if !sameBits(y[i], want) {
						t.Fatalf("alpha %g beta %g: hardsigmoid(%g) = %g, want %g", p[0], p[1], v, y[i], want)
					}
				}
				if y[n] != 42 {
					t.Fatalf("n=%d: wrote past the end", n)
				}
			}
		}
	})
}

func BenchmarkHardswish(b *testing.B) {
	x := actInputs()[:1<<14]
	y := make([]float32, len(x))
	f := hardswishVec()
	if f == nil {
		f = hardswishGo
	}
	b.SetBytes(int64(4 * len(x)))
	for b.Loop() {
		f(y, x)
	}
}

func BenchmarkHardswishGo(b *testing.B) {
	x := actInputs()[:1<<14]
	y := make([]float32, len(x))
	b.SetBytes(int64(4 * len(x)))
	for b.Loop() {
		hardswishGo(y, x)
	}
}
