package nn_test

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"paddle/core/ag"
	"paddle/core/dist"
	"paddle/core/nn"
	"paddle/core/tensor"
)

// TestCrossEntropyAcrossRanks: the weighted mean cross-entropy of R ranks'
// shares of a batch, with Across set, has on every rank the value one
// process gets for the whole batch, and each rank's logits gradient is R ×
// the one-process gradient of its rows (the training loop divides by R when
// it averages); the per-rank mean differs, as the ranks hold different
// shares of ignored labels.
func TestCrossEntropyAcrossRanks(t *testing.T) {
	const per, c, hw, ignore = 2, 3, 6, 255
	for _, ranks := range []int{2, 3} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			rng := rand.New(rand.NewPCG(3, uint64(ranks)))
			n := ranks * per
			x := tensor.Randn(rng, dt, 0, 1, n, c, 2, 3)
			lab := make([]int64, n*hw)
			for i := range lab {
				lab[i] = int64(rng.IntN(c))
				if i < hw+2 || rng.IntN(5) == 0 { // rank 0 holds most ignored labels
					lab[i] = ignore
				}
			}
			o := nn.CrossEntropyOptions{Weight: []float64{0.5, 1, 2}, IgnoreIndex: nn.Ignore(ignore), Reduction: nn.ReduceMean}
			run := func(x *tensor.Tensor, lab []int64, o nn.CrossEntropyOptions) (float64, []float64) {
				xv := ag.Param(x)
				l, err := nn.CrossEntropy(xv, tensor.FromSlice(lab, len(lab)/hw, 2, 3), o)
				if err != nil {
					t.Error(err)
					return 0, nil
				}
				l.Backward()
				return l.Item(), xv.Grad.Float64s()
			}
			want, wantG := run(x, lab, o)
			for _, across := range []bool{true, false} {
				comms := dist.Group(ranks)
				vals := make([]float64, ranks)
				grads := make([][]float64, ranks)
				var wg sync.WaitGroup
				for r := range ranks {
					wg.Go(func() {
						ro := o
						if across {
							ro.Across = comms[r]
						}
						xs := tensor.FromSlice(x.Float64s()[r*per*c*hw:(r+1)*per*c*hw], per, c, 2, 3).Cast(dt)
						vals[r], grads[r] = run(xs, lab[r*per*hw:(r+1)*per*hw], ro)
					})
				}
				wg.Wait()
				worst := 0.0
				for r := range ranks {
					worst = max(worst, math.Abs(vals[r]-want)/math.Abs(want))
					mean := 0.0 // what the ranks' losses average to, without Across
					for _, v := range vals {
						mean += v / float64(ranks)
					}
					if !across {
						worst = max(worst, math.Abs(mean-want)/math.Abs(want))
					}
					for k, g := range grads[r] {
						scale := float64(ranks)
						if !across {
							scale = 1
						}
						worst = max(worst, math.Abs(g/scale-wantG[r*per*c*hw+k])/max(1e-3, math.Abs(wantG[r*per*c*hw+k])))
					}
				}
				tol := 1e-6
				if dt == tensor.Float64 {
					tol = 1e-12
				}
				if across && worst > tol {
					t.Errorf("%d ranks %v: worst relative difference %.2g from one process, want ≤ %g", ranks, dt, worst, tol)
				}
				if !across && worst < 1e-2 {
					t.Errorf("%d ranks %v: per-rank means within %.2g of one process; the test data should tell them apart", ranks, dt, worst)
				}
			}
		}
	}
}
