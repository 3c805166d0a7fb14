// Package scratch pools the temporary buffers of kernels (unrolled
// windows, padded planes, transform blocks) by size class, so that a
// stream of calls reuses the same memory instead of allocating it afresh
// each call. Fresh memory costs more than its zeroing: when the Go runtime
// has returned the pages to the OS, every 4 KiB faults on first touch
// (8–10 µs each on this project's VMs; 6 MB of per-call buffers made
// PP-OCRv4 det at 640 take 75 instead of 59 ms a call).
//
// A buffer is taken with Get and given back with Put; sizes fall in
// classes four to an octave (a buffer is at most 25 % larger than asked
// for), and each class has its own sync.Pool, so a small request never
// takes (and drops) a large buffer or the other way round.
package scratch

import (
	"math/bits"
	"sync"
)

// Elem is the element types the pools hold.
type Elem interface {
	float32 | float64 | int32 | byte
}

// classes covers every int size: four classes an octave.
const classes = 4 * 64

type pools [classes]sync.Pool

var f32, f64, i32, u8 pools

func poolsOf[E Elem]() *pools {
	switch any(*new(E)).(type) {
	case float32:
		return &f32
	case float64:
		return &f64
	case int32:
		return &i32
	}
	return &u8
}

// size is the capacity of class c's buffers: (4 + c%4) << (c/4).
func size(c int) int { return (4 + c%4) << (c / 4) }

// classOf returns the smallest class whose size is at least n (n ≥ 1).
func classOf(n int) int {
	if n <= 4 {
		return 0
	}
	e := bits.Len(uint(n-1)) - 3 // n-1 < 8<<e: n ≤ 8<<e
	q := (n + 1<<e - 1) >> e     // ceil(n / 2^e), in 5..8
	if q == 8 {
		return 4 * (e + 1)
	}
	return 4*e + q - 4
}

// classBelow returns the largest class whose size is at most n (n ≥ 4).
func classBelow(n int) int {
	e := bits.Len(uint(n)) - 3 // 4<<e ≤ n < 8<<e
	return 4*e + n>>e - 4
}

// Get returns a buffer of n elements (n ≥ 0), from its class's pool when
// one is there, else made; its contents are undefined unless zero is set
// (then all 0). Give it back with Put when done with it.
func Get[E Elem](n int, zero bool) *[]E {
	if n <= 0 {
		s := []E{}
		return &s
	}
	c := classOf(n)
	if p, ok := poolsOf[E]()[c].Get().(*[]E); ok {
		*p = (*p)[:n]
		if zero {
			clear(*p)
		}
		return p
	}
	s := make([]E, n, size(c))
	return &s
}

// Put gives p's buffer back for a later Get; the caller must not use it
// (or slices of it) afterwards. Buffers under 4 elements are dropped.
func Put[E Elem](p *[]E) {
	if p == nil || cap(*p) < 4 {
		return
	}
	*p = (*p)[:cap(*p)]
	poolsOf[E]()[classBelow(cap(*p))].Put(p)
}
