package workflow

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"paddle/core/ag"
	"paddle/core/data"
	"paddle/core/dist"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/tensor"
)

// sample is one toy regression point: y = 2a - 3b + 1 + noise.
type sample struct {
	x [2]float32
	y float32
}

// loaderTask fits Linear(2, 1) with momentum SGD on 48 shuffled samples
// read through a data.Loader of batch bs (so TrainOn can split it), with
// weights seeded by initSeed (ranks other than 0 get other weights, which
// the broadcast must replace).
func loaderTask(t *testing.T, bs int, initSeed uint64, onLoss func(step int) error) (*Task[[]sample], *nn.Linear) {
	t.Helper()
	lin, err := nn.NewLinear(nn.LinearOptions{In: 2, Out: 1}, rand.New(rand.NewPCG(initSeed, 2)))
	if err != nil {
		t.Fatal(err)
	}
	opt, err := optim.NewSGD(lin.Params(), optim.SGDOptions{LR: 0.1, Momentum: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	ds := make(data.SliceDataset[sample], 48)
	for i := range ds {
		a, b := float32(r.Float64()*2-1), float32(r.Float64()*2-1)
		ds[i] = sample{[2]float32{a, b}, 2*a - 3*b + 1 + 0.3*float32(r.NormFloat64())}
	}
	l := data.NewLoader(data.Dataset[sample](ds), data.LoaderOptions{BatchSize: bs, Shuffle: true, DropLast: true, Seed: 5},
		func(s []sample) ([]sample, error) { return s, nil })
	task := &Task[[]sample]{
		Model: lin, Optimizer: opt, Seed: 7,
		LR: func(int, float64) float64 { return 0.1 },
		Loss: func(b []sample, info StepInfo) (*ag.Var, error) {
			if onLoss != nil {
				if err := onLoss(info.Step); err != nil {
					return nil, err
				}
			}
			x := tensor.New(tensor.Float32, len(b), 2)
			y := tensor.New(tensor.Float32, len(b), 1)
			for i, s := range b {
				x.F32()[2*i], x.F32()[2*i+1] = s.x[0], s.x[1]
				y.F32()[i] = s.y
			}
			d := ag.Sub(lin.Forward(ag.Const(x), true), ag.Const(y))
			return ag.Mean(ag.Mul(d, d), nil, false), nil
		},
		Schedule: Schedule{Epochs: 3, LogEvery: 1000},
	}
	if err := TrainOn(task, l, bs, "toy.yaml", "batch_size"); err != nil {
		t.Fatal(err)
	}
	return task, lin
}

// trainRanks trains n ranks of loaderTask (batch bs each) as goroutines
// over a dist.Group and returns each rank's weights and error.
func trainRanks(t *testing.T, n, bs int, out string, resume string, onLoss func(rank, step int) error) ([][]float32, []error) {
	comms := dist.Group(n)
	w := make([][]float32, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		task, lin := loaderTask(t, bs, uint64(10+r), func(step int) error {
			if onLoss == nil {
				return nil
			}
			return onLoss(r, step)
		})
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = task.Train(context.Background(), Env{Output: out, Resume: resume, Comm: comms[r]}, []byte("Global: {}\n"))
			w[r] = append(lin.Params()[0].V.T.F32(), lin.Params()[1].V.T.F32()...)
		}()
	}
	wg.Wait()
	return w, errs
}

func relDiff(a, b []float32) float64 {
	var num, den float64
	for i := range a {
		num = max(num, math.Abs(float64(a[i]-b[i])))
		den = max(den, math.Abs(float64(b[i])))
	}
	return num / den
}

// TestDistributedMatchesOneProcess: 2 and 4 ranks of batch 12/n, started
// from different weights, end with one process's weights (batch 12, the
// same seed) within 1e-5, identical on every rank; rank 0 alone writes
// checkpoints, which record the number of ranks.
func TestDistributedMatchesOneProcess(t *testing.T) {
	one, lin := loaderTask(t, 12, 10, nil)
	if err := one.Train(context.Background(), Env{Output: t.TempDir()}, []byte("Global: {}\n")); err != nil {
		t.Fatal(err)
	}
	want := append(lin.Params()[0].V.T.F32(), lin.Params()[1].V.T.F32()...)
	for _, n := range []int{2, 4} {
		out := t.TempDir()
		w, errs := trainRanks(t, n, 12/n, out, "", nil)
		for r := range n {
			if errs[r] != nil {
				t.Fatalf("%d ranks: rank %d: %v", n, r, errs[r])
			}
			if d := relDiff(w[r], want); d > 1e-5 {
				t.Errorf("%d ranks: rank %d weights %v, one process %v (relative difference %.2g)", n, r, w[r], want, d)
			}
			if r > 0 && !slicesEqual(w[r], w[0]) {
				t.Errorf("%d ranks: rank %d weights %v differ from rank 0's %v", n, r, w[r], w[0])
			}
		}
		st, err := os.ReadFile(filepath.Join(out, LatestDir, "state.yaml"))
		if err != nil || !strings.Contains(string(st), "ranks: ") {
			t.Errorf("%d ranks: latest/state.yaml = %q, %v; want the ranks recorded", n, st, err)
		}
	}
}

// TestDistributedResumeOtherRanks: a run stopped mid-epoch by 2 ranks goes
// on with 3 from the same samples (the same global batch here, so the end
// matches one process's), and with 4 ranks of batch 6 (global 24: batch 1
// of 12 samples becomes batch 0, repeating 12).
func TestDistributedResumeOtherRanks(t *testing.T) {
	out := t.TempDir()
	// 2 ranks × batch 6 = 12 a step, 4 steps an epoch; stop after 5 steps (epoch 2, batch 1)
	_, errs := trainRanksSched(t, 2, 6, out, "", Schedule{Epochs: 3, MaxSteps: 5, LogEvery: 1000})
	if errors.Join(errs...) != nil {
		t.Fatal(errs)
	}
	st, _ := os.ReadFile(filepath.Join(out, LatestDir, "state.yaml"))
	if !strings.Contains(string(st), "batch: 1") || !strings.Contains(string(st), "ranks: 2") {
		t.Fatalf("state after 5 steps with 2 ranks:\n%s", st)
	}
	// 3 ranks × batch 4 = 12: batch 1 of 2 ranks is batch 1 of 3; the end must match one process's
	w3, errs := trainRanksSched(t, 3, 4, out, filepath.Join(out, LatestDir), Schedule{Epochs: 3, LogEvery: 1000})
	if errors.Join(errs...) != nil {
		t.Fatal(errs)
	}
	one, lin := loaderTask(t, 12, 10, nil)
	if err := one.Train(context.Background(), Env{Output: t.TempDir()}, []byte("Global: {}\n")); err != nil {
		t.Fatal(err)
	}
	want := append(lin.Params()[0].V.T.F32(), lin.Params()[1].V.T.F32()...)
	if d := relDiff(w3[0], want); d > 1e-5 {
		t.Errorf("2 ranks then 3: weights %v, one process %v (relative difference %.2g)", w3[0], want, d)
	}
	if _, errs := trainRanksSched(t, 4, 6, t.TempDir(), filepath.Join(out, "epoch_0_unused"), Schedule{Epochs: 3}); errs[0] == nil {
		t.Error("resume from a missing checkpoint: no error")
	}
}

func trainRanksSched(t *testing.T, n, bs int, out, resume string, sch Schedule) ([][]float32, []error) {
	comms := dist.Group(n)
	w := make([][]float32, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		task, lin := loaderTask(t, bs, uint64(10+r), nil)
		task.Schedule = sch
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = task.Train(context.Background(), Env{Output: out, Resume: resume, Comm: comms[r]}, []byte("Global: {}\n"))
			w[r] = append(lin.Params()[0].V.T.F32(), lin.Params()[1].V.T.F32()...)
		}()
	}
	wg.Wait()
	return w, errs
}

// TestDistributedRankFails: a rank whose loss fails aborts the job: every
// rank returns (none waits forever) and the checkpoint of the last epoch
// stays intact.
func TestDistributedRankFails(t *testing.T) {
	out := t.TempDir()
	boom := errors.New("boom")
	_, errs := trainRanks(t, 2, 6, out, "", func(rank, step int) error {
		if rank == 1 && step == 6 { // in the second epoch, after `latest` of the first
			return boom
		}
		return nil
	})
	if !errors.Is(errs[1], boom) {
		t.Errorf("rank 1: %v, want boom", errs[1])
	}
	if !errors.Is(errs[0], dist.ErrAborted) {
		t.Errorf("rank 0: %v, want aborted", errs[0])
	}
	_, lin := loaderTask(t, 6, 10, nil)
	st, err := LoadCheckpoint(filepath.Join(out, LatestDir), lin, nil)
	if err != nil || st.Epoch != 1 || st.Step != 4 {
		t.Errorf("latest after the failure: %+v, %v; want the first epoch's", st, err)
	}
}

func slicesEqual(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
