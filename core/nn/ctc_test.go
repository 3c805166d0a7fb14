package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/ag"
	"paddle/core/op/optest"
	"paddle/core/tensor"
)

func TestCTCGradCheck(t *testing.T) {
	in, attrs := ctcDef.Sample(rand.New(rand.NewPCG(1, 2)))
	optest.GradCheck(t, ctcDef, in, attrs, optest.Tol{Abs: 1e-6, Rel: 1e-5})
	// concatenated targets and zero_infinity over an impossible sequence
	lp := tensor.Rand(rand.New(rand.NewPCG(4, 4)), tensor.Float64, -2, -0.2, 4, 3, 3)
	tg := tensor.FromSlice([]int64{1, 1, 2, 1, 1, 1, 2, 2}, 8)
	il := tensor.FromSlice([]int64{4, 3, 4}, 3)
	tl := tensor.FromSlice([]int64{2, 3, 3}, 3) // sample 1 needs 5 frames for 1,1,1: infinite
	optest.GradCheck(t, ctcDef, []*tensor.Tensor{lp, tg, il, tl}, map[string]any{"zero_infinity": true}, optest.Tol{Abs: 1e-6, Rel: 1e-5})
	for _, zi := range []bool{false, true} {
		x := ag.Param(lp)
		l := CTCLoss(x, tg, il, tl, CTCOptions{Reduction: ReduceNone, ZeroInfinity: zi})
		v := l.T.Float64s()
		if zi != (v[1] == 0) || zi == math.IsInf(v[1], 1) || math.IsInf(v[0], 0) || v[0] <= 0 {
			t.Fatalf("zero_infinity=%v: per-sample losses %v", zi, v)
		}
		if zi {
			ag.Sum(l, nil, false).Backward()
			for tt := range 4 {
				for k := range 3 {
					if g := x.Grad.At(tt, 1, k); g != 0 {
						t.Fatalf("zeroed sample has gradient %v at (%d, %d)", g, tt, k)
					}
				}
			}
		}
	}
}

// A hand-checked case: T=2, one class besides blank, target "1".
// Paths: (1,1), (b,1), (1,b) → p = y1(1)y2(1) + y1(b)y2(1) + y1(1)y2(b).
func TestCTCByHand(t *testing.T) {
	y := [][]float64{{0.6, 0.4}, {0.3, 0.7}} // (t, class) probabilities, blank = 0
	lp := tensor.New(tensor.Float64, 2, 1, 2)
	for tt := range 2 {
		for k := range 2 {
			lp.SetAt(math.Log(y[tt][k]), tt, 0, k)
		}
	}
	p := y[0][1]*y[1][1] + y[0][0]*y[1][1] + y[0][1]*y[1][0]
	got := CTCLoss(ag.Const(lp), tensor.FromSlice([]int64{1}, 1, 1), tensor.FromSlice([]int64{2}, 1),
		tensor.FromSlice([]int64{1}, 1), CTCOptions{Reduction: ReduceNone})
	if math.Abs(got.Item()+math.Log(p)) > 1e-12 {
		t.Fatalf("nll %v, want %v", got.Item(), -math.Log(p))
	}
}
