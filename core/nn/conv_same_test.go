package nn

import (
	"testing"

	"paddle/core/ag"
	"paddle/core/tensor"
)

// ConvOptions.AutoPad gives the same result as the explicit padding worked
// out by hand: total = (ceil(in/s)-1)·s + (k-1)·d + 1 - in, split evenly
// with the odd pixel at the end (SAME_UPPER, Paddle's "same") or start.
func TestConvAutoPad(t *testing.T) {
	r := rng()
	x2 := ag.Const(tensor.Randn(r, tensor.Float64, 0, 1, 1, 2, 7, 7))
	x1 := ag.Const(tensor.Randn(r, tensor.Float64, 0, 1, 1, 2, 8))
	same := func(t *testing.T, name string, auto, explicit Layer, x *ag.Var) {
		t.Helper()
		copy(explicit.Params()[0].V.T.F64(), auto.Params()[0].V.T.F64())
		copy(explicit.Params()[1].V.T.F64(), auto.Params()[1].V.T.F64())
		a, e := auto.Forward(x, false), explicit.Forward(x, false)
		if !a.Shape().Equal(e.Shape()) || !tensor.AllClose(a.T, e.T, 1e-12, 1e-12) {
			t.Errorf("%s: auto_pad %v %v differs from explicit %v", name, a.Shape(), a.T, e.Shape())
		}
	}
	conv2 := func(o ConvOptions) Layer {
		o.InChannels, o.OutChannels = 2, 3
		c, err := NewConv2D(o, rng())
		if err != nil {
			t.Fatal(err)
		}
		ToDType(c, tensor.Float64)
		return c
	}
	conv1 := func(o ConvOptions) Layer {
		o.InChannels, o.OutChannels = 2, 3
		c, err := NewConv1D(o, rng())
		if err != nil {
			t.Fatal(err)
		}
		ToDType(c, tensor.Float64)
		return c
	}
	// 7, k3, s2: out 4, total (4-1)·2 + 3 - 7 = 2 → 1 each side
	same(t, "2d same s2", conv2(ConvOptions{KernelSize: []int{3}, Stride: []int{2}, AutoPad: "same"}),
		conv2(ConvOptions{KernelSize: []int{3}, Stride: []int{2}, Padding: []int{1}}), x2)
	// 7, k4, s1: total 3 → (top, left, bottom, right) = (1, 1, 2, 2) upper, (2, 2, 1, 1) lower
	same(t, "2d same_upper k4", conv2(ConvOptions{KernelSize: []int{4}, AutoPad: "SAME_UPPER"}),
		conv2(ConvOptions{KernelSize: []int{4}, Padding: []int{1, 1, 2, 2}}), x2)
	same(t, "2d same_lower k4", conv2(ConvOptions{KernelSize: []int{4}, AutoPad: "SAME_LOWER"}),
		conv2(ConvOptions{KernelSize: []int{4}, Padding: []int{2, 2, 1, 1}}), x2)
	same(t, "2d valid", conv2(ConvOptions{KernelSize: []int{3}, AutoPad: "VALID"}), conv2(ConvOptions{KernelSize: []int{3}}), x2)
	// 8, k4, s1, dilation 1: total 3 → (1, 2)
	same(t, "1d same", conv1(ConvOptions{KernelSize: []int{4}, AutoPad: "same"}),
		conv1(ConvOptions{KernelSize: []int{4}, Padding: []int{1, 2}}), x1)
	for name, o := range map[string]ConvOptions{
		"unknown":      {InChannels: 2, OutChannels: 3, KernelSize: []int{3}, AutoPad: "full"},
		"with padding": {InChannels: 2, OutChannels: 3, KernelSize: []int{3}, AutoPad: "same", Padding: []int{1}},
	} {
		if _, err := NewConv2D(o, rng()); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
	if _, err := NewConvTranspose2D(ConvOptions{InChannels: 2, OutChannels: 3, KernelSize: []int{3}, AutoPad: "same"}, rng()); err == nil {
		t.Error("ConvTranspose2D with auto_pad: want an error")
	}
}
