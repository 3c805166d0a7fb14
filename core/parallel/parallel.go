// Package parallel runs loops over the cores paddle may use (--threads).
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

var threads atomic.Int64

// runner, when set, runs For's parts instead of fresh goroutines.
var runner atomic.Pointer[func(parts int, f func(i int))]

// SetRunner makes For run its parts with r, which must call f(i) for every
// i in [0, parts), concurrently, and return when all calls have returned
// (f(0) may run on the caller's goroutine); nil restores fresh goroutines.
// A backend with persistent workers installs one: waking a parked thread
// for a fresh goroutine costs tens to hundreds of µs on a VM, as much as
// a small op's whole work.
func SetRunner(r func(parts int, f func(i int))) {
	if r == nil {
		runner.Store(nil)
		return
	}
	runner.Store(&r)
}

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
	chunk := (n + parts - 1) / parts
	if r := runner.Load(); r != nil {
		(*r)((n+chunk-1)/chunk, func(i int) { f(i*chunk, min((i+1)*chunk, n)) })
		return
	}
	var wg sync.WaitGroup
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
