package nn

import (
	"math"
	"testing"

	"paddle/core/ag"
	"paddle/core/tensor"
)

// SoftCrossEntropy by hand: softmax(0, ln 3) = (1/4, 3/4) against (1/2, 1/2)
// gives -(ln(1/4) + ln(3/4))/2; softmax(0, 0) against (1, 0) gives ln 2; the
// mean is their average. With targets summing to 1 the gradient is
// (softmax - target)/N. A one-hot target equals the hard-label loss.
func TestSoftCrossEntropyByHand(t *testing.T) {
	x := ag.Param(tensor.FromSlice([]float64{0, math.Log(3), 0, 0}, 2, 2))
	p := ag.Const(tensor.FromSlice([]float64{0.5, 0.5, 1, 0}, 2, 2))
	l := SoftCrossEntropy(x, p)
	want := (-(math.Log(0.25)+math.Log(0.75))/2 + math.Ln2) / 2
	if math.Abs(l.Item()-want) > 1e-12 {
		t.Fatalf("loss %.15g, want %.15g", l.Item(), want)
	}
	l.Backward()
	for i, w := range []float64{-0.125, 0.125, -0.25, 0.25} {
		if g := x.Grad.F64()[i]; math.Abs(g-w) > 1e-12 {
			t.Fatalf("grad %v, want [-0.125 0.125 -0.25 0.25]", x.Grad.F64())
		}
	}
	hard, err := CrossEntropy(ag.Const(x.T), tensor.FromSlice([]int64{1, 0}, 2), DefaultCrossEntropyOptions())
	if err != nil {
		t.Fatal(err)
	}
	soft := SoftCrossEntropy(ag.Const(x.T), ag.Const(tensor.FromSlice([]float64{0, 1, 1, 0}, 2, 2)))
	if math.Abs(hard.Item()-soft.Item()) > 1e-12 {
		t.Fatalf("one-hot soft loss %v, hard loss %v", soft.Item(), hard.Item())
	}
}
