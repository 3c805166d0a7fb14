package op

import (
	"math/rand/v2"
	"testing"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// Tiling the im2col matrix by output rows must not change any result:
// compare one-tile runs with one-row tiles for conv2d's forward, input
// gradient (tiles overlap in dx) and filter gradient.
func TestConvTilesMatchWholeImage(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	x := tensor.Rand(r, tensor.Float64, -1, 1, 2, 4, 9, 7)
	w := tensor.Rand(r, tensor.Float64, -1, 1, 6, 2, 3, 3)
	b := tensor.Rand(r, tensor.Float64, -1, 1, 6)
	a := Attrs{"strides": []int{2, 1}, "pads": []int{1, 1, 2, 1}, "dilations": []int{2, 1}, "groups": 2}
	run := func() []*T {
		y := Call(conv2dDef, a, x, w, b)[0]
		dy := tensor.Rand(rand.New(rand.NewPCG(1, 1)), tensor.Float64, -1, 1, y.Shape()...)
		g := conv2dDef.VJP(&VJPCtx{In: []*T{x, w, b}, Out: []*T{y}, GradOut: []*T{dy}, Attrs: a})
		return append([]*T{y}, g...)
	}
	whole := run()
	defer func(old int) { colBudget = old }(colBudget)
	colBudget = 1
	tiled := run()
	for i := range whole {
		if d, ok := tensor.MaxDiff(tiled[i], whole[i], 1e-12, 1e-12); !ok {
			t.Errorf("result %d differs by %g with one-row tiles", i, d)
		}
	}
}

// The active kernel set's SGEMM is the one the float32 conv kernels call.
func TestSGEMMIsUsedByConv(t *testing.T) {
	calls := 0
	old := Active()
	k := *old
	k.SGEMM = func(ta, tb bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
		calls++
		Use(old) // the second conv runs on the original
		SGEMM(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
	Use(&k)
	defer Use(old)
	r := rand.New(rand.NewPCG(23, 24))
	x := tensor.Rand(r, tensor.Float32, -1, 1, 1, 3, 5, 5)
	w := tensor.Rand(r, tensor.Float32, -1, 1, 2, 3, 3, 3)
	got := Conv2D(x, w, nil, ConvParams{})
	want := Conv2D(x, w, nil, ConvParams{})
	if calls != 1 || !tensor.AllClose(got, want, 0, 0) {
		t.Errorf("installed GEMM called %d times (want 1); results equal: %v", calls, tensor.AllClose(got, want, 0, 0))
	}
}

// The float32 im2col/GEMM loops announce their tasks to the kernel set's
// GemmLoop (so the backend's SGEMM does not split each task's GEMM again)
// when the tasks fill the threads evenly, and end every announcement; results do not
// change.
func TestConvAnnouncesGemmLoop(t *testing.T) {
	defer func(old int) { parallel.SetThreads(old) }(parallel.Threads())
	k := *Active()
	defer Use(Use(&k))
	r := rand.New(rand.NewPCG(27, 28))
	x := tensor.Rand(r, tensor.Float32, -1, 1, 6, 6, 9, 8) // 6 tasks in each loop
	w := tensor.Rand(r, tensor.Float32, -1, 1, 4, 6, 3, 3)
	p := ConvParams{Strides: []int{2, 2}, Pads: []int{1, 1, 1, 1}}
	run := func() []*T {
		y := Conv2D(x, w, nil, p)
		dy := tensor.Rand(rand.New(rand.NewPCG(1, 1)), tensor.Float32, -1, 1, y.Shape()...)
		return append([]*T{y}, conv2dDef.VJP(&VJPCtx{In: []*T{x, w}, Out: []*T{y}, GradOut: []*T{dy}, Attrs: p.Attrs()})...)
	}
	parallel.SetThreads(1)
	k.GemmLoop = nil
	want := run()
	for _, threads := range []int{1, 2, 3, 4} { // 4: 6 tasks leave threads idle, no announcement
		parallel.SetThreads(threads)
		var open, calls int
		k.GemmLoop = func(tasks int) func() {
			if tasks != threads {
				t.Errorf("threads %d: announced %d tasks", threads, tasks)
			}
			open++
			calls++
			return func() { open-- }
		}
		got := run()
		if want := map[int]int{1: 0, 2: 3, 3: 3, 4: 0}[threads]; calls != want || open != 0 {
			t.Errorf("threads %d: %d announcements (want %d), %d not ended", threads, calls, want, open)
		}
		for i := range got {
			if d, ok := tensor.MaxDiff(got[i], want[i], 1e-5, 1e-5); !ok {
				t.Errorf("threads %d: result %d differs by %g", threads, i, d)
			}
		}
	}
}
