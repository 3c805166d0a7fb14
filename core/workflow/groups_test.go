package workflow

import (
	"context"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"testing"

	"paddle/core/ag"
	"paddle/core/dist"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/tensor"
)

// seqSample is a toy sequence: per token y = 2x - 1 + noise; sequences
// differ in length, so a mean over tokens is not a mean over samples.
type seqSample struct{ x, y []float32 }

// groupsTask fits Linear(1, 1) per token with momentum SGD on n sequences
// of 1–9 tokens bucketed by length as the nlp tagger does (an epoch's
// permutation sorted by length, cut into batches, the batches shuffled),
// through TrainGroups with batch bs. The loss is the mean over the
// tokens, summed over the ranks (nn.SumAcross) unless perRank.
func groupsTask(t *testing.T, n, bs int, initSeed uint64, perRank bool) (*Task[[]seqSample], *nn.Linear) {
	t.Helper()
	lin, err := nn.NewLinear(nn.LinearOptions{In: 1, Out: 1}, rand.New(rand.NewPCG(initSeed, 2)))
	if err != nil {
		t.Fatal(err)
	}
	opt, err := optim.NewSGD(lin.Params(), optim.SGDOptions{LR: 0.05, Momentum: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	set := make([]seqSample, n)
	for i := range set {
		l := 1 + r.IntN(9)
		for range l {
			x := float32(r.Float64()*2 - 1)
			set[i].x = append(set[i].x, x)
			set[i].y = append(set[i].y, 2*x-1+0.3*float32(r.NormFloat64()))
		}
	}
	groups := func(epoch, size int) [][]int {
		p := rand.New(rand.NewPCG(9, uint64(epoch))).Perm(n)
		sort.SliceStable(p, func(i, j int) bool { return len(set[p[i]].x) < len(set[p[j]].x) })
		var gs [][]int
		for lo := 0; lo < n; lo += size {
			gs = append(gs, p[lo:min(lo+size, n)])
		}
		rand.New(rand.NewPCG(10, uint64(epoch))).Shuffle(len(gs), func(i, j int) { gs[i], gs[j] = gs[j], gs[i] })
		return gs
	}
	batch := func(_ context.Context, _ int, g []int) ([]seqSample, error) {
		out := make([]seqSample, len(g))
		for k, i := range g {
			out[k] = set[i]
		}
		return out, nil
	}
	task := &Task[[]seqSample]{
		Model: lin, Optimizer: opt, Seed: 7,
		LR: func(int, float64) float64 { return 0.05 },
		Loss: func(b []seqSample, info StepInfo) (*ag.Var, error) {
			var xs, ys []float32
			for _, s := range b {
				xs, ys = append(xs, s.x...), append(ys, s.y...)
			}
			x, y := tensor.FromSlice(xs, len(xs), 1), tensor.FromSlice(ys, len(ys), 1)
			d := ag.Sub(lin.Forward(ag.Const(x), true), ag.Const(y))
			sum := ag.Sum(ag.Mul(d, d), nil, false)
			var across nn.Reducer
			if info.Comm != nil && !perRank {
				across = info.Comm
			}
			g := nn.SumAcross(across, sum, ag.Scalar(sum, float64(len(xs))))
			return ag.Div(g[0], g[1]), nil
		},
		Schedule: Schedule{Epochs: 3, LogEvery: 1000},
	}
	if err := TrainGroups(task, bs, groups, batch, "toy.yaml", "batch_size"); err != nil {
		t.Fatal(err)
	}
	return task, lin
}

// TestTrainGroupsDistributed: 2, 3 and 4 ranks of length-bucketed batches
// of 12/n, started from different weights, end with one process's weights
// (batch 12) within 1e-5 when the token mean is summed over the ranks, and
// visibly elsewhere when each rank takes its own token mean; with 50
// sequences (the last global batch of 2 padded) every rank makes the same
// number of steps and they end equal.
func TestTrainGroupsDistributed(t *testing.T) {
	weights := func(lin *nn.Linear) []float32 {
		return append(slices.Clone(lin.Params()[0].V.T.F32()), lin.Params()[1].V.T.F32()...)
	}
	train := func(n, ranks, bs int, perRank bool) [][]float32 {
		comms := dist.Group(ranks)
		w := make([][]float32, ranks)
		var wg sync.WaitGroup
		for r := range ranks {
			task, lin := groupsTask(t, n, bs, uint64(10+r), perRank)
			wg.Go(func() {
				if err := task.Train(context.Background(), Env{Output: t.TempDir(), Comm: comms[r]}, []byte("Global: {}\n")); err != nil {
					t.Errorf("rank %d: %v", r, err)
				}
				w[r] = weights(lin)
			})
		}
		wg.Wait()
		return w
	}
	one, lin := groupsTask(t, 48, 12, 10, false)
	if err := one.Train(context.Background(), Env{Output: t.TempDir()}, []byte("Global: {}\n")); err != nil {
		t.Fatal(err)
	}
	want := weights(lin)
	for _, n := range []int{2, 3, 4} {
		w := train(48, n, 12/n, false)
		for r := range w {
			if d := relDiff(w[r], want); d > 1e-5 {
				t.Errorf("%d ranks, rank %d: relative difference %.3g from one process", n, r, d)
			}
		}
		if d := relDiff(train(48, n, 12/n, true)[0], want); d < 1e-3 {
			t.Errorf("%d ranks with per-rank token means: %.3g from one process, want a visible difference", n, d)
		}
	}
	w := train(50, 4, 3, false)
	for r := range w {
		if d := relDiff(w[r], w[0]); d != 0 {
			t.Errorf("50 sequences, rank %d differs from rank 0 by %.3g", r, d)
		}
	}
}
