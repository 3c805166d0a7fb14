package op_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/op/optest"
	"paddle/core/tensor"
)

// convSeq returns 1, 2, ... in the given shape.
func convSeq(dt tensor.DType, shape ...int) *tensor.Tensor {
	n := tensor.Shape(shape).NumElements()
	return tensor.Arange(dt, 1, float64(n)+1, 1).Reshape(shape...)
}

func convWant(t *testing.T, what string, got *tensor.Tensor, want []float64, shape ...int) {
	t.Helper()
	w := tensor.FromSlice(want, shape...)
	if d, ok := tensor.MaxDiff(got.Cast(tensor.Float64), w, 1e-6, 1e-6); !ok {
		t.Errorf("%s = %v (shape %v), want %v (max diff %g)", what, got, got.Shape(), w, d)
	}
}

// Hand-computed windows over x = 1..16 in a 4x4 plane.
func TestPoolHandValues(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		x := convSeq(dt, 1, 1, 4, 4)
		k2s2 := op.PoolParams{Kernel: []int{2, 2}, Strides: []int{2, 2}}
		convWant(t, "MaxPool2D k2 s2", op.MaxPool2D(x, k2s2), []float64{6, 8, 14, 16}, 1, 1, 2, 2)
		convWant(t, "AvgPool2D k2 s2", op.AvgPool2D(x, k2s2), []float64{3.5, 5.5, 11.5, 13.5}, 1, 1, 2, 2)
		pad := op.PoolParams{Kernel: []int{2, 2}, Strides: []int{2, 2}, Pads: []int{1, 1, 1, 1}}
		convWant(t, "MaxPool2D pad1", op.MaxPool2D(x, pad), []float64{1, 3, 4, 9, 11, 12, 13, 15, 16}, 1, 1, 3, 3)
		// corners see one pixel, edges two: divided by 1 and 2 without the padding...
		convWant(t, "AvgPool2D pad1 exclude", op.AvgPool2D(x, pad),
			[]float64{1, 2.5, 4, 7, 8.5, 10, 13, 14.5, 16}, 1, 1, 3, 3)
		// ...and by 4 with it
		pad.CountIncludePad = true
		convWant(t, "AvgPool2D pad1 include", op.AvgPool2D(x, pad),
			[]float64{0.25, 1.25, 1, 3.5, 8.5, 5, 3.25, 7.25, 4}, 1, 1, 3, 3)
		// dilation 2: the window {0, 2} x {0, 2}
		dil := op.PoolParams{Kernel: []int{2, 2}, Dilations: []int{2, 2}}
		convWant(t, "MaxPool2D dilation2", op.MaxPool2D(x, dil), []float64{11, 12, 15, 16}, 1, 1, 2, 2)
		// ceil mode: 3x3 windows at stride 2 over 4 → 2 (the second hangs over the edge)
		ceil := op.PoolParams{Kernel: []int{3, 3}, Strides: []int{2, 2}, CeilMode: true}
		convWant(t, "MaxPool2D ceil", op.MaxPool2D(x, ceil), []float64{11, 12, 15, 16}, 1, 1, 2, 2)
		convWant(t, "AvgPool2D ceil", op.AvgPool2D(x, ceil), []float64{6, 7.5, 12, 13.5}, 1, 1, 2, 2)
		convWant(t, "GlobalAvgPool", op.GlobalAvgPool(x), []float64{8.5}, 1, 1, 1, 1)
		convWant(t, "GlobalMaxPool", op.GlobalMaxPool(x), []float64{16}, 1, 1, 1, 1)
		// bins [0,2) [1,3) [2,4) on each axis
		convWant(t, "AdaptiveAvgPool2D 3x3", op.AdaptiveAvgPool2D(x, 3, 3),
			[]float64{3.5, 4.5, 5.5, 7.5, 8.5, 9.5, 11.5, 12.5, 13.5}, 1, 1, 3, 3)
		convWant(t, "AdaptiveAvgPool2D 1x2", op.AdaptiveAvgPool2D(x, 1, 2), []float64{7.5, 9.5}, 1, 1, 1, 2)
	}
}

// The max-pool gradient goes to the first maximum of each window only.
func TestMaxPoolGradientTies(t *testing.T) {
	x := tensor.FromSlice([]float64{1, 5, 5, 2}, 1, 1, 2, 2)
	dx := op.Call(op.Lookup("max_pool2d_grad"), op.PoolParams{Kernel: []int{2, 2}}.Attrs(), x, tensor.Full(tensor.Float64, 3, 1, 1, 1, 1))[0]
	convWant(t, "max_pool2d_grad", dx, []float64{0, 3, 0, 0}, 1, 1, 2, 2)
}

func TestMaxPoolPropagatesNaN(t *testing.T) {
	x := tensor.FromSlice([]float32{1, float32(math.NaN()), 3, 2}, 1, 1, 1, 4)
	y := op.MaxPool2D(x, op.PoolParams{Kernel: []int{1, 2}, Strides: []int{1, 2}}).F32()
	if !math.IsNaN(float64(y[0])) || y[1] != 3 {
		t.Errorf("MaxPool2D = %v, want [NaN 3]", y)
	}
}

func TestPoolGradientCases(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	cases := []struct {
		name  string
		op    string
		shape []int
		a     op.Attrs
	}{
		{"max same_upper", "max_pool2d", []int{1, 2, 5, 6}, op.Attrs{"kernel_shape": []int{3, 3}, "strides": []int{2, 2}, "auto_pad": "SAME_UPPER"}},
		{"max overlapping 3x3 s1", "max_pool2d", []int{2, 1, 4, 5}, op.Attrs{"kernel_shape": []int{3, 3}, "pads": []int{1, 1, 1, 1}}},
		{"avg include asym pads", "avg_pool2d", []int{1, 2, 5, 6}, op.Attrs{"kernel_shape": []int{3, 2}, "strides": []int{2, 1}, "pads": []int{1, 0, 2, 1}, "count_include_pad": true}},
		{"avg ceil exclude", "avg_pool2d", []int{2, 1, 5, 5}, op.Attrs{"kernel_shape": []int{2, 2}, "strides": []int{2, 2}, "ceil_mode": 1}},
		{"adaptive upsample", "adaptive_avg_pool2d", []int{1, 2, 3, 2}, op.Attrs{"output_size": []int{5, 3}}},
		{"global avg rank 3", "global_avg_pool", []int{2, 3, 5}, nil},
		{"global max rank 5", "global_max_pool", []int{1, 2, 2, 3, 2}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := tensor.Rand(r, tensor.Float64, -1, 1, tc.shape...)
			if tc.op == "max_pool2d" || tc.op == "global_max_pool" {
				// a permutation keeps every window's maximum unique
				v := x.F64()
				for i, p := range r.Perm(len(v)) {
					v[i] = float64(p) * 0.1
				}
			}
			optest.GradCheck(t, op.Lookup(tc.op), []*tensor.Tensor{x}, tc.a, optest.Tol{Abs: 1e-6, Rel: 1e-5})
		})
	}
}

func TestPoolShapeErrors(t *testing.T) {
	x := tensor.New(tensor.Float32, 1, 2, 3, 3)
	cases := []struct {
		name string
		f    func()
	}{
		{"no kernel", func() { op.MaxPool2D(x, op.PoolParams{}) }},
		{"kernel too big", func() { op.AvgPool2D(x, op.PoolParams{Kernel: []int{4, 4}}) }},
		{"rank 3", func() { op.MaxPool2D(tensor.New(tensor.Float32, 2, 3, 3), op.PoolParams{Kernel: []int{2, 2}}) }},
		{"bad auto_pad", func() { op.MaxPool2D(x, op.PoolParams{Kernel: []int{2, 2}, AutoPad: "SAME"}) }},
		{"adaptive size 0", func() { op.AdaptiveAvgPool2D(x, 0, 2) }},
		{"global rank 2", func() { op.GlobalAvgPool(tensor.New(tensor.Float32, 2, 3)) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if _, ok := recover().(*op.ShapeError); !ok {
					t.Errorf("%s: no ShapeError", tc.name)
				}
			}()
			tc.f()
		})
	}
}
