package cpu

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"paddle/core/parallel"
)

// A persistent pool of worker goroutines for SGEMM. Starting a goroutine on
// an idle core costs 50–300 µs on a virtual machine (the idle vCPU has to be
// woken), as long as a 256³ GEMM takes; so workers spin for a while after
// each job (as OpenMP and OpenBLAS threads do) and only then park.

// spinFor is how long an idle worker keeps polling before it parks.
const spinFor = 200 * time.Microsecond

type worker struct {
	busy atomic.Bool            // claimed by a dispatcher
	job  atomic.Pointer[func()] // the job to run, set after claiming
	park chan struct{}          // wakes a parked worker (buffered, 1)
}

var (
	poolMu  sync.Mutex
	workers []*worker
)

// claimWorkers returns up to n idle workers, claimed, starting new ones up
// to limit workers in all.
func claimWorkers(n, limit int) []*worker {
	var got []*worker
	poolMu.Lock()
	defer poolMu.Unlock()
	for _, w := range workers {
		if len(got) == n {
			return got
		}
		if w.busy.CompareAndSwap(false, true) {
			got = append(got, w)
		}
	}
	for len(got) < n && len(workers) < limit {
		w := &worker{park: make(chan struct{}, 1)}
		w.busy.Store(true)
		workers = append(workers, w)
		go w.loop()
		got = append(got, w)
	}
	return got
}

// start hands f to a claimed worker and leaves a wake-up token (unless one
// is there already), whether or not the worker is parked: a worker blocks
// only on an empty channel, so it cannot sleep through a job. (Sending only
// to a worker flagged idle relied on the flag and the job being seen in
// order across the two goroutines; under qemu-user on amd64 a worker once
// slept with a job for nine minutes. The worker takes the token back
// after the job; one that arrives later only wakes it once for nothing.)
func (w *worker) start(f func()) {
	w.job.Store(&f)
	select {
	case w.park <- struct{}{}:
	default:
	}
}

func (w *worker) loop() {
	for {
		deadline := time.Now().Add(spinFor)
		for spins := 0; ; spins++ {
			if f := w.job.Swap(nil); f != nil {
				(*f)()
				// the token start left for this job, if it came (before
				// busy is cleared: no other job's token can be there)
				select {
				case <-w.park:
				default:
				}
				w.busy.Store(false)
				deadline = time.Now().Add(spinFor)
				continue
			}
			if spins%64 == 63 {
				if time.Now().After(deadline) {
					break
				}
				runtime.Gosched()
			}
		}
		if w.job.Load() == nil {
			<-w.park
		}
	}
}

// group runs jobs on claimed workers and waits for them by spinning (the
// jobs are balanced tiles of one GEMM, so the wait is short).
type group struct{ pending atomic.Int64 }

func (g *group) goOn(w *worker, f func()) {
	g.pending.Add(1)
	w.start(func() {
		defer g.pending.Add(-1)
		f()
	})
}

func (g *group) goNew(f func()) {
	g.pending.Add(1)
	go func() {
		defer g.pending.Add(-1)
		f()
	}()
}

func (g *group) wait() {
	for spins := 0; g.pending.Load() != 0; spins++ {
		if spins%16 == 15 {
			runtime.Gosched()
		}
	}
}

// runParts is parallel.For's runner (parallel.SetRunner) on this pool: the
// caller and up to parts-1 claimed workers (fresh goroutines where none is
// idle) take parts from a shared counter, so a worker that is slow to get
// a core leaves its part to the others instead of making them wait.
func runParts(parts int, f func(i int)) {
	var next atomic.Int64
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= parts {
				return
			}
			f(i)
		}
	}
	fanOut(parts, work)
}

// fanOut runs work on the caller and n-1 claimed workers (fresh goroutines
// where none is idle) and waits for all of them.
func fanOut(n int, work func()) {
	if m := busyMeter; m != nil {
		outer := m.depth.Add(1) == 1
		defer m.depth.Add(-1)
		if outer {
			inner := work
			work = func() {
				t := time.Now()
				inner()
				m.busy.Add(int64(time.Since(t)))
			}
			t0 := time.Now()
			defer func() { m.wall.Add(int64(time.Since(t0))) }()
		}
	}
	var grp group
	ws := claimWorkers(n-1, parallel.Threads())
	for _, w := range ws {
		grp.goOn(w, work)
	}
	for range n - 1 - len(ws) {
		grp.goNew(work)
	}
	work()
	grp.wait()
}

// meter sums, over the outermost parallel regions (fanOut calls not nested
// in another), their wall time and the time their participants spent in
// work: busy/wall is how many threads a region kept busy on average.
type meter struct {
	depth, wall, busy atomic.Int64
}

// busyMeter, when set (tests, before any kernel runs), meters fanOut.
var busyMeter *meter
