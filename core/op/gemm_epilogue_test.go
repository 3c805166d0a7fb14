package op

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/tensor"
)

// Conv2DEx (through whatever SGEMMEx is installed) is bitwise conv2d, then
// hardswish, then ·scale + shift, for im2col and pointwise convolutions,
// grouped or not, with and without bias; depthwise ones and float64 are
// declined.
func TestConv2DExBitwise(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, c := range []struct {
		x, w  []int
		attrs Attrs
		bias  bool
	}{
		{[]int{2, 6, 13, 11}, []int{10, 6, 3, 3}, Attrs{"pads": []int{1, 1, 1, 1}}, true},
		{[]int{1, 8, 9, 9}, []int{12, 4, 3, 3}, Attrs{"pads": []int{1, 0, 1, 0}, "strides": []int{2, 2}, "groups": 2}, true},
		{[]int{2, 16, 7, 5}, []int{40, 16, 1, 1}, Attrs{}, true},
		{[]int{1, 16, 7, 5}, []int{20, 16, 1, 1}, Attrs{}, false},
	} {
		x := tensor.Rand(r, tensor.Float32, -2, 2, c.x...)
		w := tensor.Rand(r, tensor.Float32, -1, 1, c.w...)
		in := []*T{x, w}
		if c.bias {
			in = append(in, tensor.Rand(r, tensor.Float32, -3, 3, c.w[0]))
		}
		for _, affine := range []bool{false, true} {
			want := Hardswish(Call(conv2dDef, c.attrs, in...)[0])
			if affine {
				want = Add(Mul(want, tensor.Scalar(float32(0.37))), tensor.Scalar(float32(-0.21)))
			}
			got := tensor.New(tensor.Float32, want.Shape()...)
			if !Conv2DEx([]*T{got}, in, c.attrs, GemmActHardSwish, affine, 0.37, -0.21) {
				t.Fatalf("%v: Conv2DEx declined", c.w)
			}
			wv, gv := want.F32(), got.F32()
			for i := range wv {
				if math.Float32bits(wv[i]) != math.Float32bits(gv[i]) {
					t.Fatalf("%v affine %v: y[%d] = %v, want %v", c.w, affine, i, gv[i], wv[i])
				}
			}
		}
	}
	dw := []*T{tensor.Rand(r, tensor.Float32, -1, 1, 1, 4, 5, 5), tensor.Rand(r, tensor.Float32, -1, 1, 4, 1, 3, 3)}
	if Conv2DEx([]*T{tensor.New(tensor.Float32, 1, 4, 3, 3)}, dw, Attrs{"groups": 4}, GemmActHardSwish, false, 1, 0) {
		t.Fatal("Conv2DEx took a depthwise convolution")
	}
	d64 := []*T{tensor.Rand(r, tensor.Float64, -1, 1, 1, 2, 3, 3), tensor.Rand(r, tensor.Float64, -1, 1, 2, 2, 1, 1)}
	if Conv2DEx([]*T{tensor.New(tensor.Float64, 1, 2, 3, 3)}, d64, Attrs{}, GemmActHardSwish, false, 1, 0) {
		t.Fatal("Conv2DEx took float64")
	}
}

// The default ApplyEpilogue is bitwise Hardswish, then ·scale + shift.
func TestApplyEpilogueBitwise(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	x := tensor.Rand(r, tensor.Float32, -8, 8, 3, 20001)
	want := Add(Mul(Hardswish(x), tensor.Scalar(float32(0.37))), tensor.Scalar(float32(-0.21)))
	got := x.Clone()
	ApplyEpilogue(got.F32(), &GemmEpilogue{Act: GemmActHardSwish, Affine: true, Scale: 0.37, Shift: -0.21})
	for i, w := range want.F32() {
		if g := got.F32()[i]; math.Float32bits(g) != math.Float32bits(w) {
			t.Fatalf("y[%d] = %v, want %v", i, g, w)
		}
	}
}
