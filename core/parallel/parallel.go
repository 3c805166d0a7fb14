// Package parallel runs loops over the cores paddle may use (--threads).
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

var threads atomic.Int64

func init() { threads.Store(int64(runtime.NumCPU())) }

// SetThreads sets how many goroutines kernels may use (n < 1 means all cores).
func SetThreads(n int) {
	if n < 1 {
		n = runtime.NumCPU()
	}
	threads.Store(int64(n))
}

// Threads returns the number of goroutines kernels may use.
func Threads() int { return int(threads.Load()) }

// For splits [0, n) into at most Threads() contiguous chunks of at least grain
// items and calls f(lo, hi) for each, concurrently; it returns when all are done.
func For(n, grain int, f func(lo, hi int)) {
	if n <= 0 {
		return
	}
	grain = max(grain, 1)
	parts := min(Threads(), (n+grain-1)/grain)
	if parts <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	chunk := (n + parts - 1) / parts
	for lo := chunk; lo < n; lo += chunk {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			f(lo, hi)
		}(lo, min(lo+chunk, n))
	}
	f(0, min(chunk, n))
	wg.Wait()
}
