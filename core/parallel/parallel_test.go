package parallel

import (
	"sync"
	"sync/atomic"
	"testing"
)

// For calls f on chunks that cover [0, n) exactly once, with fresh
// goroutines and with a runner.
func TestForCoversOnce(t *testing.T) {
	defer SetThreads(Threads())
	var runs atomic.Int64
	ran := func(parts int, f func(i int)) {
		runs.Add(1)
		var wg sync.WaitGroup
		for i := 1; i < parts; i++ {
			wg.Add(1)
			go func() { defer wg.Done(); f(i) }()
		}
		f(0)
		wg.Wait()
	}
	for _, r := range []func(int, func(int)){nil, ran} {
		SetRunner(r)
		for _, th := range []int{1, 2, 3, 8} {
			SetThreads(th)
			for _, n := range []int{1, 2, 7, 100, 1001} {
				for _, grain := range []int{0, 1, 3, 64} {
					hits := make([]atomic.Int32, n)
					For(n, grain, func(lo, hi int) {
						for i := lo; i < hi; i++ {
							hits[i].Add(1)
						}
					})
					for i := range hits {
						if h := hits[i].Load(); h != 1 {
							t.Fatalf("threads %d n %d grain %d: item %d run %d times", th, n, grain, i, h)
						}
					}
				}
			}
		}
	}
	SetRunner(nil)
	if runs.Load() == 0 {
		t.Fatal("For never used the runner")
	}
}
