package op_test

import (
	"math"
	"slices"
	"testing"

	"paddle/core/op"
	"paddle/core/tensor"
)

// The binary arithmetic primitives and exp/log/neg, by hand: values with
// broadcasting (2,1) ∘ (3), float32 and float64 alike, and the integer
// semantics (division truncates toward zero, as documented on Div; int64
// exact beyond 2^53; division by zero gives 0, as NumPy, not a panic).
func TestBinaryForwardTable(t *testing.T) {
	a := []float64{2, -3}      // (2, 1)
	b := []float64{1, 0.5, -2} // (3)
	cases := []struct {
		name string
		f    func(x, y *tensor.Tensor) *tensor.Tensor
		want []float64
	}{
		{"add", op.Add, []float64{3, 2.5, 0, -2, -2.5, -5}},
		{"sub", op.Sub, []float64{1, 1.5, 4, -4, -3.5, -1}},
		{"mul", op.Mul, []float64{2, 1, -4, -3, -1.5, 6}},
		{"div", op.Div, []float64{2, 4, -1, -3, -6, 1.5}},
		{"pow", op.Pow, []float64{2, math.Sqrt2, 0.25, -3, math.NaN(), 1.0 / 9}},
		{"maximum", op.Maximum, []float64{2, 2, 2, 1, 0.5, -2}},
		{"minimum", op.Minimum, []float64{1, 0.5, -2, -3, -3, -3}},
	}
	for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
		x := tensor.FromSlice(a, 2, 1).Cast(dt)
		y := tensor.FromSlice(b, 3).Cast(dt)
		for _, c := range cases {
			got := c.f(x, y)
			if got.DType() != dt || !got.Shape().Equal(tensor.Shape{2, 3}) {
				t.Fatalf("%s %v: got %v %v", c.name, dt, got.DType(), got.Shape())
			}
			wantMath(t, c.name+" "+dt.String(), got, c.want, 1e-6)
		}
	}
	x := mf64(0, 1, -2)
	wantMath(t, "exp", op.Exp(x), []float64{1, math.E, math.Exp(-2)}, 1e-15)
	wantMath(t, "log", op.Log(mf64(1, math.E, 0, -1)), []float64{0, 1, math.Inf(-1), math.NaN()}, 1e-15)
	wantMath(t, "neg", op.Neg(x), []float64{0, -1, 2}, 0)

	i := tensor.FromSlice([]int64{7, -7, 6}, 3)
	j := tensor.FromSlice([]int64{2, 2, -4}, 3)
	if got := op.Div(i, j).I64(); !slices.Equal(got, []int64{3, -3, -1}) {
		t.Errorf("int64 div = %v, want truncation [3 -3 -1]", got)
	}
	if got := op.Mul(i, j).I64(); !slices.Equal(got, []int64{14, -14, -24}) {
		t.Errorf("int64 mul = %v", got)
	}
	if got := op.Maximum(tensor.FromSlice([]int32{1, -5}, 2), tensor.Scalar(int32(0))).I32(); !slices.Equal(got, []int32{1, 0}) {
		t.Errorf("int32 maximum = %v", got)
	}
	if got := op.Add(tensor.FromSlice([]uint8{200, 3}, 2), tensor.FromSlice([]uint8{50, 4}, 2)).U8(); !slices.Equal(got, []uint8{250, 7}) {
		t.Errorf("uint8 add = %v", got)
	}
	// int64 stays exact beyond 2^53 (float64 would round 2^53+1 to 2^53)
	big := tensor.FromSlice([]int64{1<<53 + 1, 1 << 62, -(1<<53 + 3)}, 3)
	one := tensor.Scalar(int64(1))
	for name, c := range map[string]struct {
		got  *tensor.Tensor
		want []int64
	}{
		"add":  {op.Add(big, one), []int64{1<<53 + 2, 1<<62 + 1, -(1<<53 + 2)}},
		"sub":  {op.Sub(big, one), []int64{1 << 53, 1<<62 - 1, -(1<<53 + 4)}},
		"mul":  {op.Mul(big, tensor.Scalar(int64(-1))), []int64{-(1<<53 + 1), -(1 << 62), 1<<53 + 3}},
		"div":  {op.Div(big, tensor.Scalar(int64(3))), []int64{(1<<53 + 1) / 3, (1 << 62) / 3, -(1<<53 + 3) / 3}},
		"max":  {op.Maximum(big, tensor.Scalar(int64(1<<53))), []int64{1<<53 + 1, 1 << 62, 1 << 53}},
		"min":  {op.Minimum(big, tensor.Scalar(int64(1<<53+2))), []int64{1<<53 + 1, 1<<53 + 2, -(1<<53 + 3)}},
		"div0": {op.Div(big, tensor.Scalar(int64(0))), []int64{0, 0, 0}},
	} {
		if !slices.Equal(c.got.I64(), c.want) {
			t.Errorf("int64 %s = %v, want %v", name, c.got.I64(), c.want)
		}
	}
	mustMathShapeError(t, "add of int64 and float64", func() { op.Add(i, mf64(1, 2, 3)) })
	mustMathShapeError(t, "add of (2) and (3)", func() { op.Add(mf64(1, 2), mf64(1, 2, 3)) })
}
