package data

import (
	"strings"
	"testing"

	"paddle/core/tensor"
)

func TestStack(t *testing.T) {
	a := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)
	b := tensor.FromSlice([]float32{7, 8, 9, 10, 11, 12}, 3, 2).Transpose() // non-contiguous (2, 3)
	s, err := Stack([]*tensor.Tensor{a, b})
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{1, 2, 3, 4, 5, 6, 7, 9, 11, 8, 10, 12}
	if !s.Shape().Equal(tensor.Shape{2, 2, 3}) {
		t.Fatalf("shape %v", s.Shape())
	}
	for i, v := range s.F32() {
		if v != want[i] {
			t.Fatalf("Stack = %v, want %v", s.F32(), want)
		}
	}
	i64 := []*tensor.Tensor{tensor.Scalar(int64(3)), tensor.Scalar(int64(-4))}
	if s, err := Stack(i64); err != nil || !s.Shape().Equal(tensor.Shape{2}) || s.I64()[1] != -4 {
		t.Errorf("Stack of scalars = %v, %v", s, err)
	}
	if _, err := Stack([]*tensor.Tensor{a, tensor.New(tensor.Float32, 3, 2)}); err == nil || !strings.Contains(err.Error(), "tensor 1") {
		t.Errorf("shape mismatch: err = %v", err)
	}
	if _, err := Stack(nil); err == nil {
		t.Error("empty: no error")
	}
}
