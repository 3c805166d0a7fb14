package op_test

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"paddle/core/op"
	"paddle/core/op/optest"
	"paddle/core/tensor"
)

// moveCase is one hand-computed forward value.
type moveCase struct {
	name  string
	run   func() *tensor.Tensor
	shape []int
	want  []float64
}

func checkMoveForward(t *testing.T, tests []moveCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.run()
			if !got.Shape().Equal(tt.shape) {
				t.Fatalf("shape %v, want %v", got.Shape(), tt.shape)
			}
			if g := got.Float64s(); !slices.Equal(g, tt.want) {
				t.Errorf("got %v, want %v", g, tt.want)
			}
		})
	}
}

// wantMoveShapeError runs f and checks it panics with *op.ShapeError.
func wantMoveShapeError(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		err, ok := r.(error)
		var se *op.ShapeError
		if !ok || !errors.As(err, &se) {
			t.Errorf("%s: recovered %v, want *op.ShapeError", name, r)
		}
	}()
	f()
}

func floats(v []float64, shape ...int) *tensor.Tensor { return tensor.FromSlice(v, shape...) }
func longs(v []int64, shape ...int) *tensor.Tensor    { return tensor.FromSlice(v, shape...) }

// ar returns 0, 1, ..., n-1 shaped.
func arangeOf(shape ...int) *tensor.Tensor {
	n := tensor.Shape(shape).NumElements()
	return tensor.Arange(tensor.Float64, 0, float64(n), 1).Reshape(shape...)
}

func TestMovementForward(t *testing.T) {
	x3 := floats([]float64{1, 2, 3}, 3)
	checkMoveForward(t, []moveCase{
		{"concat last axis", func() *tensor.Tensor {
			return op.Concat(-1, floats([]float64{1, 2, 3, 4}, 2, 2), floats([]float64{5, 6}, 2, 1))
		}, []int{2, 3}, []float64{1, 2, 5, 3, 4, 6}},
		{"concat int64", func() *tensor.Tensor { return op.Concat(0, longs([]int64{1, 2}, 2), longs([]int64{3}, 1)) },
			[]int{3}, []float64{1, 2, 3}},
		{"concat bool", func() *tensor.Tensor {
			return op.Concat(0, tensor.FromSlice([]bool{true}, 1), tensor.FromSlice([]bool{false, true}, 2))
		}, []int{3}, []float64{1, 0, 1}},
		{"split second", func() *tensor.Tensor { return op.Split(arangeOf(2, 3), 1, 1, 2)[1] }, []int{2, 2}, []float64{1, 2, 4, 5}},
		{"split first", func() *tensor.Tensor { return op.Split(arangeOf(2, 3), -1, 1, 2)[0] }, []int{2, 1}, []float64{0, 3}},
		{"split num_outputs last", func() *tensor.Tensor {
			return op.Call(op.Lookup("split"), op.Attrs{"axis": 0, "num_outputs": 3}, arangeOf(7))[2]
		}, []int{1}, []float64{6}},
		{"stack axis 1", func() *tensor.Tensor { return op.Stack(1, floats([]float64{1, 2}, 2), floats([]float64{3, 4}, 2)) },
			[]int{2, 2}, []float64{1, 3, 2, 4}},
		{"stack axis -1 == 1", func() *tensor.Tensor { return op.Stack(-1, floats([]float64{1, 2}, 2), floats([]float64{3, 4}, 2)) },
			[]int{2, 2}, []float64{1, 3, 2, 4}},
		{"stack axis 0", func() *tensor.Tensor { return op.Stack(0, floats([]float64{1, 2}, 2), floats([]float64{3, 4}, 2)) },
			[]int{2, 2}, []float64{1, 2, 3, 4}},
		{"slice negative step to the start", func() *tensor.Tensor { return op.Slice(arangeOf(10), []int{-1}, []int{-1 << 62}, nil, []int{-3}) },
			[]int{4}, []float64{9, 6, 3, 0}},
		{"slice negative step", func() *tensor.Tensor { return op.Slice(arangeOf(10), []int{8}, []int{2}, nil, []int{-2}) },
			[]int{3}, []float64{8, 6, 4}},
		{"slice end clamped", func() *tensor.Tensor { return op.Slice(arangeOf(10), []int{7}, []int{100}, nil, nil) },
			[]int{3}, []float64{7, 8, 9}},
		{"slice negative start and end", func() *tensor.Tensor { return op.Slice(arangeOf(10), []int{-3}, []int{-1}, nil, nil) },
			[]int{2}, []float64{7, 8}},
		{"slice empty", func() *tensor.Tensor { return op.Slice(arangeOf(10), []int{5}, []int{2}, nil, nil) },
			[]int{0}, []float64{}},
		{"slice 2-D axes and steps", func() *tensor.Tensor {
			return op.Slice(arangeOf(3, 4), []int{0, -1}, []int{3, 0}, []int{0, 1}, []int{2, -1})
		}, []int{2, 3}, []float64{3, 2, 1, 11, 10, 9}},
		{"slice only axis 1", func() *tensor.Tensor { return op.Slice(arangeOf(2, 4), []int{1}, []int{3}, []int{-1}, nil) },
			[]int{2, 2}, []float64{1, 2, 5, 6}},
		{"pad reflect", func() *tensor.Tensor { return op.Pad(x3, []int{2, 2}, "reflect", 0) },
			[]int{7}, []float64{3, 2, 1, 2, 3, 2, 1}},
		{"pad reflect wider than the axis", func() *tensor.Tensor { return op.Pad(x3, []int{4, 0}, "reflect", 0) },
			[]int{7}, []float64{1, 2, 3, 2, 1, 2, 3}},
		{"pad edge", func() *tensor.Tensor { return op.Pad(x3, []int{2, 2}, "edge", 0) },
			[]int{7}, []float64{1, 1, 1, 2, 3, 3, 3}},
		{"pad wrap", func() *tensor.Tensor { return op.Pad(x3, []int{2, 2}, "wrap", 0) },
			[]int{7}, []float64{2, 3, 1, 2, 3, 1, 2}},
		{"pad constant", func() *tensor.Tensor { return op.Pad(x3, []int{2, 2}, "constant", 9) },
			[]int{7}, []float64{9, 9, 1, 2, 3, 9, 9}},
		{"pad negative crops", func() *tensor.Tensor { return op.Pad(x3, []int{-1, 1}, "constant", 0) },
			[]int{3}, []float64{2, 3, 0}},
		{"pad reflect 2-D", func() *tensor.Tensor {
			return op.Pad(floats([]float64{1, 2, 3, 4, 5, 6}, 2, 3), []int{1, 1, 0, 0}, "reflect", 0)
		}, []int{3, 4}, []float64{5, 4, 5, 6, 2, 1, 2, 3, 5, 4, 5, 6}},
		{"pad uint8 edge", func() *tensor.Tensor {
			return op.Pad(tensor.FromSlice([]uint8{7, 200}, 2), []int{1, 1}, "edge", 0)
		}, []int{4}, []float64{7, 7, 200, 200}},
		{"pad only axis 1", func() *tensor.Tensor {
			return op.Call(op.Lookup("pad"), op.Attrs{"pads": []int{1, 0}, "axes": []int{-1}, "value": -1.0}, arangeOf(2, 2))[0]
		}, []int{2, 3}, []float64{-1, 0, 1, -1, 2, 3}},
		{"squeeze all", func() *tensor.Tensor { return op.Squeeze(arangeOf(1, 3, 1)) }, []int{3}, []float64{0, 1, 2}},
		{"squeeze -1", func() *tensor.Tensor { return op.Squeeze(arangeOf(1, 3, 1), -1) }, []int{1, 3}, []float64{0, 1, 2}},
		{"unsqueeze 0 and -1", func() *tensor.Tensor { return op.Unsqueeze(arangeOf(3), 0, -1) }, []int{1, 3, 1}, []float64{0, 1, 2}},
		{"unsqueeze middle", func() *tensor.Tensor { return op.Unsqueeze(arangeOf(2, 2), 1) }, []int{2, 1, 2}, []float64{0, 1, 2, 3}},
		{"flatten 0", func() *tensor.Tensor { return op.Flatten(arangeOf(2, 3, 4), 0) }, []int{1, 24}, arangeOf(24).Float64s()},
		{"flatten -1", func() *tensor.Tensor { return op.Flatten(arangeOf(2, 3, 4), -1) }, []int{6, 4}, arangeOf(24).Float64s()},
		{"flatten rank", func() *tensor.Tensor { return op.Flatten(arangeOf(2, 3, 4), 3) }, []int{24, 1}, arangeOf(24).Float64s()},
		{"tile", func() *tensor.Tensor { return op.Tile(floats([]float64{1, 2}, 1, 2), 2, 2) },
			[]int{2, 4}, []float64{1, 2, 1, 2, 1, 2, 1, 2}},
		{"tile int64 zero repeat", func() *tensor.Tensor { return op.Tile(longs([]int64{1, 2}, 2), 0) }, []int{0}, []float64{}},
		{"tile float32 3-D", func() *tensor.Tensor { return op.Tile(arangeOf(2, 1, 2).Cast(tensor.Float32), 1, 2, 1) },
			[]int{2, 2, 2}, []float64{0, 1, 0, 1, 2, 3, 2, 3}},
	})
}

func TestMovementShapeErrors(t *testing.T) {
	wantMoveShapeError(t, "concat ranks", func() { op.Concat(0, arangeOf(2), arangeOf(2, 1)) })
	wantMoveShapeError(t, "concat dims", func() { op.Concat(0, arangeOf(2, 3), arangeOf(2, 2)) })
	wantMoveShapeError(t, "concat dtypes", func() { op.Concat(0, arangeOf(2), longs([]int64{1}, 1)) })
	wantMoveShapeError(t, "split sizes", func() { op.Split(arangeOf(5), 0, 2, 2) })
	wantMoveShapeError(t, "slice step 0", func() { op.Slice(arangeOf(5), []int{0}, []int{3}, nil, []int{0}) })
	wantMoveShapeError(t, "pad count", func() { op.Pad(arangeOf(2, 2), []int{1, 1}, "constant", 0) })
	wantMoveShapeError(t, "pad mode", func() { op.Pad(arangeOf(2), []int{1, 1}, "mirror", 0) })
	wantMoveShapeError(t, "pad crops below zero", func() { op.Pad(arangeOf(2), []int{-2, -1}, "constant", 0) })
	wantMoveShapeError(t, "squeeze non-1", func() { op.Squeeze(arangeOf(2, 3), 1) })
	wantMoveShapeError(t, "unsqueeze axis", func() { op.Unsqueeze(arangeOf(2), 3) })
	wantMoveShapeError(t, "tile repeats", func() { op.Tile(arangeOf(2, 3), 2) })
	wantMoveShapeError(t, "flatten axis", func() { op.Flatten(arangeOf(2, 3), 3) })
}

// TestMovementGradientVariants checks the backward paths the Samples do not reach.
func TestMovementGradientVariants(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	x := func(shape ...int) *tensor.Tensor { return tensor.Rand(r, tensor.Float64, -1, 1, shape...) }
	tests := []struct {
		name  string
		op    string
		in    []*tensor.Tensor
		attrs op.Attrs
	}{
		{"pad edge", "pad", []*tensor.Tensor{x(3, 2)}, op.Attrs{"pads": []int{2, 1, 1, 3}, "mode": "edge"}},
		{"pad wrap", "pad", []*tensor.Tensor{x(3, 2)}, op.Attrs{"pads": []int{4, 0, 1, 2}, "mode": "wrap"}},
		{"pad constant with crop", "pad", []*tensor.Tensor{x(3, 4)}, op.Attrs{"pads": []int{1, -1, -1, 2}, "value": 2.5}},
		{"pad reflect axes", "pad", []*tensor.Tensor{x(2, 4)}, op.Attrs{"pads": []int{3, 2}, "axes": []int{1}, "mode": "reflect"}},
		{"slice positive steps", "slice", []*tensor.Tensor{x(5, 4)}, op.Attrs{"starts": []int{1, 0}, "ends": []int{5, 4}, "steps": []int{2, 3}}},
		{"split num_outputs", "split", []*tensor.Tensor{x(7, 2)}, op.Attrs{"num_outputs": 3}},
		{"tile 3-D", "tile", []*tensor.Tensor{x(2, 1, 3)}, op.Attrs{"repeats": []int{1, 3, 2}}},
		{"gather scalar index", "gather", []*tensor.Tensor{x(3, 4), longs([]int64{-2}, []int{}...)}, op.Attrs{"axis": 0}},
		{"gather last axis", "gather", []*tensor.Tensor{x(2, 4), longs([]int64{3, 3, 0}, 3)}, op.Attrs{"axis": -1}},
		{"scatter_add smaller index", "scatter_add", []*tensor.Tensor{x(3, 4), longs([]int64{3, 3, 0, -1}, 2, 2), x(2, 2)}, op.Attrs{"axis": 1}},
		{"embedding no padding", "embedding", []*tensor.Tensor{longs([]int64{0, 0, 4}, 3), x(5, 2)}, nil},
		{"segment_max 1-D", "segment_max", []*tensor.Tensor{x(6), longs([]int64{1, 1, 0, 2, 1, 0}, 6)}, op.Attrs{"num_segments": 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			optest.GradCheck(t, op.Lookup(tt.op), tt.in, tt.attrs, optest.Tol{Abs: 1e-6, Rel: 1e-5})
		})
	}
}

func TestMovementFloat32MatchesFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x := tensor.Rand(r, tensor.Float64, -1, 1, 3, 5, 4)
	runs := []func(x *tensor.Tensor) *tensor.Tensor{
		func(x *tensor.Tensor) *tensor.Tensor { return op.Pad(x, []int{0, 2, 1, 0, 3, 2}, "reflect", 0) },
		func(x *tensor.Tensor) *tensor.Tensor {
			return op.Slice(x, []int{-1, 4}, []int{0, -100}, []int{1, 2}, []int{-2, -1})
		},
		func(x *tensor.Tensor) *tensor.Tensor { return op.Concat(1, x, x) },
		func(x *tensor.Tensor) *tensor.Tensor { return op.Tile(x, 2, 1, 2) },
		func(x *tensor.Tensor) *tensor.Tensor { return op.Gather(x, longs([]int64{2, 0, -1}, 3), 1) },
	}
	for i, f := range runs {
		a, b := f(x), f(x.Cast(tensor.Float32))
		if b.DType() != tensor.Float32 || !tensor.AllClose(b, a, 1e-6, 1e-6) {
			t.Errorf("run %d: float32 result differs from float64", i)
		}
	}
}
