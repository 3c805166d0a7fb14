package op_test

import (
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/op/optest"
	"paddle/core/tensor"
)

func TestResizeHandValues(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		x := convSeq(dt, 1, 1, 2, 2)
		// PP-OCRv4 det's FPN upsampling: nearest, asymmetric, floor, scale 2
		ocr := op.ResizeParams{Mode: "nearest", CoordMode: "asymmetric", NearestMode: "floor", Scales: []float64{2, 2}}
		convWant(t, "nearest x2", op.Resize(x, ocr), []float64{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, 1, 1, 4, 4)
		row := tensor.FromSlice([]float64{0, 1}, 1, 1, 1, 2).Cast(dt)
		convWant(t, "linear align_corners 2→3",
			op.Resize(row, op.ResizeParams{Mode: "linear", CoordMode: "align_corners", Sizes: []int{1, 3}}), []float64{0, 0.5, 1}, 1, 1, 1, 3)
		// half_pixel 2→4 samples -0.25, 0.25, 0.75, 1.25, clamped to [0, 1]
		convWant(t, "linear half_pixel 2→4",
			op.Resize(row, op.ResizeParams{Mode: "linear", Sizes: []int{1, 4}}), []float64{0, 0.25, 0.75, 1}, 1, 1, 1, 4)
		convWant(t, "linear asymmetric 2→4",
			op.Resize(row, op.ResizeParams{Mode: "linear", CoordMode: "asymmetric", Sizes: []int{1, 4}}), []float64{0, 0.5, 1, 1}, 1, 1, 1, 4)
		// 4→3 with half_pixel samples 1/6, 1.5, 17/6: the nearest modes differ at the tie 1.5
		four := tensor.FromSlice([]float64{10, 20, 30, 40}, 1, 1, 1, 4).Cast(dt)
		for mode, want := range map[string][]float64{
			"round_prefer_floor": {10, 20, 40}, "round_prefer_ceil": {10, 30, 40}, "floor": {10, 20, 30}, "ceil": {20, 30, 40},
		} {
			convWant(t, "nearest "+mode, op.Resize(four, op.ResizeParams{NearestMode: mode, Sizes: []int{1, 3}}), want, 1, 1, 1, 3)
		}
		// tf_half_pixel_for_nn 2→4 samples 0.25, 0.75, 1.25, 1.75 → 0, 1, 1, 1 (clamped)
		convWant(t, "nearest tf_half_pixel_for_nn",
			op.Resize(row, op.ResizeParams{CoordMode: "tf_half_pixel_for_nn", Sizes: []int{1, 4}}), []float64{0, 1, 1, 1}, 1, 1, 1, 4)
		// pytorch_half_pixel maps a one-pixel output to coordinate 0
		convWant(t, "linear pytorch_half_pixel to 1",
			op.Resize(four, op.ResizeParams{Mode: "linear", CoordMode: "pytorch_half_pixel", Sizes: []int{1, 1}}), []float64{10}, 1, 1, 1, 1)
		// ONNX-style 4-entry sizes and scales; half_pixel 2→1 samples 0.5, which round_prefer_floor takes to 0
		convWant(t, "sizes NCHW", op.Resize(x, op.ResizeParams{Sizes: []int{1, 1, 1, 1}}), []float64{1}, 1, 1, 1, 1)
		convWant(t, "scales NCHW", op.Resize(x, op.ResizeParams{CoordMode: "asymmetric", Scales: []float64{1, 1, 0.5, 0.5}}),
			[]float64{1}, 1, 1, 1, 1)
	}
}

func TestResizeGradientCases(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	cases := []struct {
		name  string
		shape []int
		p     op.ResizeParams
	}{
		{"nearest x2 (scatter)", []int{1, 2, 3, 2}, op.ResizeParams{Mode: "nearest", CoordMode: "asymmetric", NearestMode: "floor", Scales: []float64{2, 2}}},
		{"nearest down", []int{2, 1, 5, 4}, op.ResizeParams{Sizes: []int{3, 2}}},
		{"linear align_corners up", []int{1, 2, 3, 3}, op.ResizeParams{Mode: "linear", CoordMode: "align_corners", Sizes: []int{5, 4}}},
		{"linear asymmetric down", []int{1, 1, 6, 5}, op.ResizeParams{Mode: "linear", CoordMode: "asymmetric", Sizes: []int{4, 3}}},
		{"linear pytorch_half_pixel scales", []int{1, 1, 3, 4}, op.ResizeParams{Mode: "linear", CoordMode: "pytorch_half_pixel", Scales: []float64{1.5, 2.5}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := tensor.Rand(r, tensor.Float64, -1, 1, tc.shape...)
			optest.GradCheck(t, op.Lookup("resize"), []*tensor.Tensor{x}, tc.p.Attrs(), optest.Tol{Abs: 1e-6, Rel: 1e-5})
		})
	}
}

func TestResizeShapeErrors(t *testing.T) {
	x := tensor.New(tensor.Float32, 1, 2, 3, 3)
	for name, p := range map[string]op.ResizeParams{
		"cubic":       {Mode: "cubic", Sizes: []int{4, 4}},
		"no size":     {},
		"coord mode":  {CoordMode: "tf_crop_and_resize", Sizes: []int{4, 4}},
		"empty":       {Scales: []float64{0.1, 0.1}},
		"batch sizes": {Sizes: []int{2, 2, 4, 4}},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if _, ok := recover().(*op.ShapeError); !ok {
					t.Errorf("Resize(%+v): no ShapeError", p)
				}
			}()
			op.Resize(x, p)
		})
	}
}

// BenchmarkResizeNearest2x is PP-OCRv4 det's FPN upsampling at a 960 input:
// (1, 256, 60, 60) → (1, 256, 120, 120).
func BenchmarkResizeNearest2x(b *testing.B) {
	x := tensor.Rand(rand.New(rand.NewPCG(1, 1)), tensor.Float32, -1, 1, 1, 256, 60, 60)
	p := op.ResizeParams{Mode: "nearest", CoordMode: "asymmetric", NearestMode: "floor", Scales: []float64{2, 2}}
	b.SetBytes(int64(256 * 120 * 120 * 4))
	for range b.N {
		op.Resize(x, p)
	}
}
