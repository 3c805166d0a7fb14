package tensor

import (
	"math/rand/v2"
	"testing"
)

func TestViews(t *testing.T) {
	x := FromSlice([]float32{0, 1, 2, 3, 4, 5}, 2, 3)
	tests := []struct {
		name string
		got  *Tensor
		want []float64
		dims Shape
	}{
		{"transpose", x.Transpose(), []float64{0, 3, 1, 4, 2, 5}, Shape{3, 2}},
		{"slice", x.Slice(1, 1, 3, 1), []float64{1, 2, 4, 5}, Shape{2, 2}},
		{"slice-step", x.Slice(1, 0, 3, 2), []float64{0, 2, 3, 5}, Shape{2, 2}},
		{"slice-neg", x.Slice(0, -1, 2, 1), []float64{3, 4, 5}, Shape{1, 3}},
		{"reshape", x.Reshape(3, -1), []float64{0, 1, 2, 3, 4, 5}, Shape{3, 2}},
		{"reshape-of-transpose", x.Transpose().Reshape(6), []float64{0, 3, 1, 4, 2, 5}, Shape{6}},
		{"broadcast", FromSlice([]float32{7, 8}, 2, 1).BroadcastTo(2, 3), []float64{7, 7, 7, 8, 8, 8}, Shape{2, 3}},
		{"cast", x.Transpose().Cast(Int64), []float64{0, 3, 1, 4, 2, 5}, Shape{3, 2}},
		{"clone", x.Transpose().Clone(), []float64{0, 3, 1, 4, 2, 5}, Shape{3, 2}},
		{"arange", Arange(Int32, 2, 9, 3), []float64{2, 5, 8}, Shape{3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.got.Shape().Equal(tt.dims) {
				t.Fatalf("shape %v, want %v", tt.got.Shape(), tt.dims)
			}
			got := tt.got.Float64s()
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
	if x.Transpose().IsContiguous() {
		t.Error("transpose of a 2x3 should not be contiguous")
	}
	if x.Transpose().At(2, 1) != 5 {
		t.Error("At on a transposed view")
	}
}

func TestBroadcastShapes(t *testing.T) {
	got, err := BroadcastShapes(Shape{4, 1, 3}, Shape{5, 1})
	if err != nil || !got.Equal(Shape{4, 5, 3}) {
		t.Fatalf("got %v %v", got, err)
	}
	if _, err := BroadcastShapes(Shape{2, 3}, Shape{4}); err == nil {
		t.Fatal("want error for (2,3) vs (4)")
	}
}

func TestRandDeterministic(t *testing.T) {
	a := Randn(rand.New(rand.NewPCG(1, 2)), Float32, 0, 1, 3, 4)
	b := Randn(rand.New(rand.NewPCG(1, 2)), Float32, 0, 1, 3, 4)
	if !AllClose(a, b, 0, 0) {
		t.Fatal("same seed must give same values")
	}
}

func TestString(t *testing.T) {
	got := FromSlice([]int64{1, 2, 3}, 3).String()
	if got != "tensor(int64, (3)) [1, 2, 3]" {
		t.Fatalf("String() = %q", got)
	}
}
