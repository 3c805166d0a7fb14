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
	"paddle/core/zoo"
)

// bnRun is one rank's (or the single process's) result of a training
// forward and backward through a BatchNorm2D on x with loss sum(y·u).
type bnRun struct {
	dx              []float64
	dw, db          []float64
	runMean, runVar []float64
	y               []float64
}

func runBN(t *testing.T, x, u *tensor.Tensor, r nn.Reducer) bnRun {
	t.Helper()
	bn, err := nn.NewBatchNorm2D(nn.BatchNormOptions{NumFeatures: x.Shape()[1]})
	if err != nil {
		t.Fatal(err)
	}
	bn.Weight.T.CopyFrom(tensor.FromSlice([]float32{0.5, 1.5, -1}, 3))
	bn.Bias.T.CopyFrom(tensor.FromSlice([]float32{0.1, -0.2, 0.3}, 3))
	nn.ToDType(bn, x.DType())
	if got := nn.SyncBatchNorm(bn, r); r != nil && r.Size() > 1 && got != 1 {
		t.Fatalf("SyncBatchNorm changed %d layers, want 1", got)
	}
	xv := ag.Param(x)
	y := bn.Forward(xv, true)
	ag.Sum(ag.Mul(y, ag.Const(u)), nil, false).Backward()
	return bnRun{
		dx: xv.Grad.Float64s(), dw: bn.Weight.Grad.Float64s(), db: bn.Bias.Grad.Float64s(),
		runMean: bn.RunningMean.T.Float64s(), runVar: bn.RunningVar.T.Float64s(), y: y.T.Float64s(),
	}
}

// TestSyncBatchNormMatchesGlobalBatch: R ranks of batch 2 with synchronised
// batch norm give the single process's outputs, input gradients and running
// statistics on the batch of 2R, and (summed over ranks, as the loss is a
// sum) its weight gradients; per-rank statistics do not.
func TestSyncBatchNormMatchesGlobalBatch(t *testing.T) {
	for _, tc := range []struct {
		ranks int
		dt    tensor.DType
	}{{2, tensor.Float64}, {3, tensor.Float64}, {2, tensor.Float32}, {3, tensor.Float32}} {
		ranks := tc.ranks
		rng := rand.New(rand.NewPCG(1, uint64(ranks)))
		per := 2
		x := tensor.Randn(rng, tc.dt, 0.5, 2, ranks*per, 3, 4, 5)
		u := tensor.Randn(rng, tc.dt, 0, 1, ranks*per, 3, 4, 5)
		one := runBN(t, x, u, nil)
		rows := len(one.dx) / (ranks * per) * per
		check := func(synced bool) (worst float64, exact bool) {
			exact = true
			comms := dist.Group(ranks)
			res := make([]bnRun, ranks)
			var wg sync.WaitGroup
			for r := range ranks {
				wg.Go(func() {
					var red nn.Reducer
					if synced {
						red = comms[r]
					}
					xs := tensor.FromSlice(x.Float64s()[r*rows:(r+1)*rows], per, 3, 4, 5).Cast(tc.dt)
					us := tensor.FromSlice(u.Float64s()[r*rows:(r+1)*rows], per, 3, 4, 5).Cast(tc.dt)
					res[r] = runBN(t, xs, us, red)
				})
			}
			wg.Wait()
			diff := func(a, b float64) { worst = max(worst, math.Abs(a-b)/max(1, math.Abs(a))) }
			for r, rr := range res {
				for i := range rr.dx {
					diff(one.dx[r*rows+i], rr.dx[i])
					diff(one.y[r*rows+i], rr.y[i])
					if synced && (one.dx[r*rows+i] != rr.dx[i] || one.y[r*rows+i] != rr.y[i]) {
						exact = false
					}
				}
				for c := range 3 {
					diff(one.runMean[c], rr.runMean[c])
					diff(one.runVar[c], rr.runVar[c])
				}
			}
			for c := range 3 {
				var dw, db float64
				for _, rr := range res {
					dw += rr.dw[c]
					db += rr.db[c]
				}
				diff(one.dw[c], dw)
				diff(one.db[c], db)
			}
			return worst, exact
		}
		if w, exact := check(true); w > 1e-6 || (tc.dt == tensor.Float32 && !exact) { // float32: the float64 sums round alike
			t.Errorf("%d ranks %v, synchronised: worst relative difference %.3g from one process; outputs and input gradients bitwise equal: %v",
				ranks, tc.dt, w, exact)
		}
		if w, _ := check(false); w < 1e-3 {
			t.Errorf("%d ranks %v, per-rank statistics: difference %.3g, want a visible one (the test cannot tell)", ranks, tc.dt, w)
		}
	}
}

func TestSyncBatchNormWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	a, err := zoo.NewConvBN(3, 4, 3, 1, 1, "relu", rng)
	if err != nil {
		t.Fatal(err)
	}
	b, err := zoo.NewConvBN(4, 4, 3, 1, 1, "", rng)
	if err != nil {
		t.Fatal(err)
	}
	seq := nn.NewSequential(a, b)
	comms := dist.Group(2)
	if n := nn.SyncBatchNorm(seq, comms[0]); n != 2 {
		t.Errorf("synchronised %d layers, want 2", n)
	}
	if n := nn.SyncBatchNorm(seq, dist.Local{}); n != 2 {
		t.Errorf("un-synchronised %d layers, want 2", n)
	}
}
