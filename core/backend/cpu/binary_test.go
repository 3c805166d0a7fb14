package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// binSpecials: NaNs with different payloads (which operand's survives
// shows in the bits), zeros of both signs, infinities, subnormals.
var binSpecials = []float32{math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00002), 0, float32(math.Copysign(0, -1)),
	float32(math.Inf(1)), float32(math.Inf(-1)), 1e-45, -3e-39, 3e38, -2}

// The vector add and mul rows are bitwise the Go loops (a + b, a · b with
// a first), a row or a repeated b, every length around the vector widths.
func TestVecRowBitwise(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		f := vecRowKernel()
		if f == nil {
			t.Skip("no vector rows on this CPU/build")
		}
		r := rand.New(rand.NewPCG(47, 48))
		pick := func() float32 {
			if r.IntN(4) == 0 {
				return binSpecials[r.IntN(len(binSpecials))]
			}
			return float32(r.NormFloat64())
		}
		for n := 0; n <= 150; n++ {
			a, b := make([]float32, n), make([]float32, max(n, 1))
			for i := range a {
				a[i] = pick()
			}
			for i := range b {
				b[i] = pick()
			}
			for _, code := range []byte{'+', '*'} {
				for _, sb := range []int{1, 0} {
					got := make([]float32, n)
					if !f(code, got, a, b, sb) {
						t.Fatalf("%c sb=%d: not taken", code, sb)
					}
					for i := range got {
						bv := b[i*sb]
						w := a[i] + bv
						if code == '*' {
							w = a[i] * bv
						}
						if math.Float32bits(got[i]) != math.Float32bits(w) {
							t.Fatalf("n=%d %v %c %v = %#x, want %#x", n, a[i], code, bv, math.Float32bits(got[i]), math.Float32bits(w))
						}
					}
				}
			}
		}
	})
}

// add and mul through the op registry with the rows installed equal the
// Go loops (the hook removed), for an SE-style (N, C, 1, 1) scale and a
// residual add, at 1 and 2 threads.
func TestBinaryOpsWithVecRows(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		defer parallel.SetThreads(parallel.Threads())
		defer installKernels()
		installKernels()
		if op.Active().VecRow32 == nil {
			t.Skip("no vector rows on this CPU/build")
		}
		r := rand.New(rand.NewPCG(49, 50))
		x := tensor.Rand(r, tensor.Float32, -1, 1, 6, 88, 3, 96)
		s := tensor.Rand(r, tensor.Float32, -1, 1, 6, 88, 1, 1)
		y := tensor.Rand(r, tensor.Float32, -1, 1, 6, 88, 3, 96)
		for _, th := range []int{1, 2} {
			parallel.SetThreads(th)
			for _, c := range []struct {
				name string
				a, b *tensor.Tensor
			}{{"mul", x, s}, {"add", x, y}, {"mul", x, y}, {"add", x, s}} {
				def := op.Lookup(c.name)
				got := op.Call(def, nil, c.a, c.b)[0].F32()
				saved := op.Active().VecRow32
				op.Active().VecRow32 = nil
				want := op.Call(def, nil, c.a, c.b)[0].F32()
				op.Active().VecRow32 = saved
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%s %v %v, %d threads: [%d] = %v, want %v", c.name, c.a.Shape(), c.b.Shape(), th, i, got[i], want[i])
					}
				}
			}
		}
	})
}
