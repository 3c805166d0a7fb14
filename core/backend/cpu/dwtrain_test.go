package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// The vector 3-tap depthwise row is bitwise the Go loop (signed zeros,
// infinities and NaNs among the inputs; where two NaNs meet, which one
// comes out is the compiler's operand order, so any NaN passes for a NaN)
// at every length around the vector widths, and touches nothing past len(d).
func TestDWRow3Bitwise(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		f := dwRow3Kernel()
		if f == nil {
			t.Skip("no vector depthwise row at this level")
		}
		r := rand.New(rand.NewPCG(53, 54))
		special := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), math.Float32frombits(0x7fc00007)}
		val := func() float32 {
			if r.IntN(10) == 0 {
				return special[r.IntN(len(special))]
			}
			return float32(r.NormFloat64())
		}
		for n := 0; n <= 70; n++ {
			s := make([]float32, n+2)
			d, want := make([]float32, n+1), make([]float32, n)
			for i := range s {
				s[i] = val()
			}
			for i := range want {
				d[i] = val()
				want[i] = d[i]
			}
			d[n] = 99
			w0, w1, w2 := float32(r.NormFloat64()), float32(r.NormFloat64()), float32(r.NormFloat64())
			for i := range want {
				want[i] += w0*s[i] + w1*s[i+1] + w2*s[i+2]
			}
			f(d[:n], s, w0, w1, w2)
			if d[n] != 99 {
				t.Fatalf("n=%d: wrote past len(d)", n)
			}
			for i, w := range want {
				if math.Float32bits(d[i]) != math.Float32bits(w) && !(d[i] != d[i] && w != w) {
					t.Fatalf("n=%d [%d]: %#x, want %#x", n, i, math.Float32bits(d[i]), math.Float32bits(w))
				}
			}
		}
	})
}

// conv2d with one input channel per group (a 1-channel input, and a true
// depthwise conv) and conv_transpose2d, its data gradient, are bitwise the
// same with the vector row installed and without, at 1 and 2 threads.
func TestDepthwiseConvWithVectorRow(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		defer parallel.SetThreads(parallel.Threads())
		if op.Active().DWRow3x32 == nil {
			t.Skip("no vector depthwise row at this level")
		}
		r := rand.New(rand.NewPCG(55, 56))
		for _, c := range []struct {
			def          string
			x, w         []int
			groups, pads int
		}{
			{"conv2d", []int{2, 1, 9, 37}, []int{5, 1, 3, 3}, 1, 1},
			{"conv2d", []int{1, 4, 6, 20}, []int{4, 1, 3, 3}, 4, 0},
			{"conv_transpose2d", []int{2, 5, 9, 37}, []int{5, 1, 3, 3}, 1, 1},
			{"conv_transpose2d", []int{1, 4, 6, 29}, []int{4, 1, 3, 3}, 4, 1},
		} {
			a := op.Attrs{"pads": []int{c.pads, c.pads, c.pads, c.pads}, "groups": c.groups}
			x := tensor.Rand(r, tensor.Float32, -1, 1, c.x...)
			w := tensor.Rand(r, tensor.Float32, -1, 1, c.w...)
			def := op.Lookup(c.def)
			for _, th := range []int{1, 2} {
				parallel.SetThreads(th)
				got := op.Call(def, a, x, w)[0]
				saved := op.Active().DWRow3x32
				op.Active().DWRow3x32 = nil
				want := op.Call(def, a, x, w)[0]
				op.Active().DWRow3x32 = saved
				if !got.Shape().Equal(want.Shape()) {
					t.Fatalf("%s %v: shape %v, want %v", c.def, c.x, got.Shape(), want.Shape())
				}
				for i, v := range want.F32() {
					if g := got.F32()[i]; math.Float32bits(g) != math.Float32bits(v) {
						t.Fatalf("%s %v, %d threads: [%d] = %v, want %v", c.def, c.x, th, i, g, v)
					}
				}
			}
		}
	})
}
