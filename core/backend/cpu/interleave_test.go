package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/tensor"
)

// TestInterleave2Row checks op.Kernels.Interleave2Row32 at every level
// that has it against the Go loop it replaces (interleaveTaps: max(v +
// bias, floor), Go's max), bitwise: lengths around the vector width,
// floor −Inf and 0, bias ±0 and not, NaN, ±Inf and ±0 sums, and that
// nothing past the prefix it reports is written.
func TestInterleave2Row(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		f := op.Active().Interleave2Row32
		if f == nil {
			t.Skip("no kernel at this level")
		}
		r := rand.New(rand.NewPCG(25, 26))
		nan, inf := float32(math.NaN()), float32(math.Inf(1))
		negZero := float32(math.Copysign(0, -1))
		special := []float32{nan, inf, -inf, 0, negZero, 1e-40, -1e-40, 3, -3}
		for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 240, 1000} {
			for _, floor := range []float32{float32(math.Inf(-1)), 0} {
				for _, bias := range []float32{0, negZero, 0.37} {
					a, b := make([]float32, n), make([]float32, n)
					for i := range a {
						a[i], b[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
						if r.IntN(4) == 0 {
							a[i] = special[r.IntN(len(special))]
						}
						if r.IntN(4) == 0 {
							b[i] = special[r.IntN(len(special))]
						}
					}
					out := make([]float32, 2*n+2)
					for i := range out {
						out[i] = 12345
					}
					k := f(out[:2*n], a, b, bias, floor)
					if k < 0 || k > n {
						t.Fatalf("n %d: prefix %d", n, k)
					}
					for i := range n {
						for j, src := range [][]float32{a, b} {
							want := float32(12345)
							if i < k {
								want = max(src[i]+bias, floor)
							}
							if got := out[2*i+j]; math.Float32bits(got) != math.Float32bits(want) {
								t.Fatalf("n %d floor %v bias %v: out[%d] = %v (%#x), want %v (%#x) from %v",
									n, floor, bias, 2*i+j, got, math.Float32bits(got), want, math.Float32bits(want), src[i])
							}
						}
					}
					if out[2*n] != 12345 || out[2*n+1] != 12345 {
						t.Fatalf("n %d: wrote past the row", n)
					}
					if n >= 8 && k == 0 {
						t.Fatalf("n %d: the kernel did nothing", n)
					}
				}
			}
		}
	})
}

// TestAddResizeDoubled runs add_resize with a nearest 2× resize (its
// rows doubled on Interleave2Row32 at the vector levels) at every level
// against core/op's loops, bitwise: widths around the vector width, ±0,
// ±Inf and NaN-free inputs, the resized addend first and second.
func TestAddResizeDoubled(t *testing.T) {
	d := op.Lookup("add_resize")
	forLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(27, 28))
		negZero := float32(math.Copysign(0, -1))
		special := []float32{0, negZero, float32(math.Inf(1)), float32(math.Inf(-1)), 1e-40}
		for _, w := range []int{1, 3, 4, 5, 8, 9, 16, 17, 45} {
			for resized := range 2 {
				a := op.Attrs{"resized": resized, "mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor", "scales": []float64{1, 1, 2, 2}}
				b := tensor.New(tensor.Float32, 1, 3, 2, w)
				x := tensor.New(tensor.Float32, 1, 3, 4, 2*w)
				for _, v := range [][]float32{b.F32(), x.F32()} {
					for i := range v {
						v[i] = float32(r.NormFloat64())
						if r.IntN(3) == 0 {
							v[i] = special[r.IntN(len(special))]
						}
					}
				}
				in := []*tensor.Tensor{x, b}
				if resized == 0 {
					in = []*tensor.Tensor{b, x}
				}
				got, want := op.Call(d, a, in...)[0], runRef(d, a, in...)
				for i, g := range got.F32() {
					if math.Float32bits(g) != math.Float32bits(want.F32()[i]) {
						t.Fatalf("w %d resized %d: element %d = %v, want %v", w, resized, i, g, want.F32()[i])
					}
				}
			}
		}
	})
}
