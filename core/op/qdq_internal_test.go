package op

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/tensor"
)

// roundEven32 is math.RoundToEven on float32: ties, negatives, large and
// special values.
func TestRoundEven32(t *testing.T) {
	vals := []float32{0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 1 << 23, 1<<23 + 1, -(1 << 24), 3e9, -3e9,
		float32(math.Inf(1)), float32(math.Inf(-1)), 8388607.5, -8388607.5}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		vals = append(vals, float32(r.NormFloat64()*300), float32(r.IntN(2001)-1000)/2)
	}
	for _, v := range vals {
		if got, want := roundEven32(v), float32(math.RoundToEven(float64(v))); got != want {
			t.Fatalf("roundEven32(%v) = %v, want %v", v, got, want)
		}
	}
	if v := roundEven32(float32(math.NaN())); v == v {
		t.Errorf("roundEven32(NaN) = %v", v)
	}
}

// quantize_linear and dequantize_linear per axis against the formulas
// written out element by element.
func TestQDQPerAxis(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := tensor.Rand(r, tensor.Float32, -3, 3, 2, 3, 4, 5)
	scale, zero := []float64{0.02, 0.05, 0.013}, []int{-3, 0, 7}
	for _, d := range []tensor.DType{tensor.Int8, tensor.Uint8} {
		a := QDQAttrs(scale, zero, 1, d)
		q := tensor.New(d, 2, 3, 4, 5)
		Run(quantizeLinearDef, []*T{q}, []*T{x}, a)
		y := tensor.New(tensor.Float32, 2, 3, 4, 5)
		Run(dequantizeLinearDef, []*T{y}, []*T{q}, a)
		lo, hi := 0.0, 255.0
		if d == tensor.Int8 {
			lo, hi = -128, 127
		}
		for i, v := range x.F32() {
			c := i / 20 % 3
			want := min(max(math.RoundToEven(float64(v/float32(scale[c])))+float64(zero[c]), lo), hi)
			if got := q.Float64s()[i]; got != want {
				t.Fatalf("%v: q[%d] = %v, want %v", d, i, got, want)
			}
			if got := y.F32()[i]; got != float32(want-float64(zero[c]))*float32(scale[c]) {
				t.Fatalf("%v: dq[%d] = %v, want %v", d, i, got, float32(want-float64(zero[c]))*float32(scale[c]))
			}
		}
	}
}
