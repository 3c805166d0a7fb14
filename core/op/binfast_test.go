package op

import (
	"math/rand/v2"
	"testing"

	"paddle/core/tensor"
)

// The fast float paths give bitwise the generic kernel's results on every
// broadcast pattern.
func TestFastBinaryMatchesGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	pairs := [][2]tensor.Shape{
		{{3, 4}, {3, 4}}, {{3, 4}, {}}, {{}, {3, 4}}, {{2, 3, 4}, {4}}, {{2, 3, 4}, {3, 1}},
		{{2, 3, 4, 5}, {1, 3, 1, 1}}, {{2, 1, 4}, {1, 3, 1}}, {{1, 1}, {1}}, {{5, 1, 1}, {5, 6, 7}},
		{{2, 3, 1, 5}, {2, 1, 4, 5}}, {{0, 3}, {3}}, {{7}, {1}}, {{1, 7}, {6, 1}},
	}
	gen := []func(out, in []*T, a Attrs){
		binKernel(func(x, y float64) float64 { return x + y }), binKernel(func(x, y float64) float64 { return x - y }),
		binKernel(func(x, y float64) float64 { return x * y }), binKernel(func(x, y float64) float64 { return x / y }),
	}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		for _, p := range pairs {
			a, b := tensor.Rand(r, dt, -2, 2, p[0]...), tensor.Rand(r, dt, 0.5, 2, p[1]...)
			s, err := tensor.BroadcastShapes(p[0], p[1])
			if err != nil {
				t.Fatal(err)
			}
			for code, slow := range gen {
				want, got := tensor.New(dt, s...), tensor.New(dt, s...)
				slow([]*T{want}, []*T{a, b}, nil)
				fastBinary(code, nil)([]*T{got}, []*T{a, b}, nil)
				w, g := want.Float64s(), got.Float64s()
				for i := range w {
					if w[i] != g[i] {
						t.Fatalf("%v op %d %v ∘ %v: element %d = %v, want %v", dt, code, p[0], p[1], i, g[i], w[i])
					}
				}
			}
		}
	}
}

func BenchmarkAddBias(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x := tensor.Rand(r, tensor.Float32, -1, 1, 32, 64, 28, 28)
	c := tensor.Rand(r, tensor.Float32, -1, 1, 1, 64, 1, 1)
	for b.Loop() {
		Add(x, c)
	}
}

func BenchmarkMulSame(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x := tensor.Rand(r, tensor.Float32, -1, 1, 32, 64, 28, 28)
	for b.Loop() {
		Mul(x, x)
	}
}
