package serve

import (
	"errors"
	"sync"
)

// bodyBudget bounds the bytes of request bodies a server holds at once, all
// kits together: a body counts from its first byte until its request is
// answered (or, when the prediction outlives a timed-out request, until the
// prediction ends). A request that declares its length reserves it all before
// reading a byte; a body without a declared length (chunked) reserves as it
// arrives, in steps of holdStep. A body that does not fit is answered 503
// at once (errBodiesFull) instead of waiting for room.
type bodyBudget struct {
	mu        sync.Mutex
	max, held int64
}

// holdStep is how much more a body of unknown length reserves at a time.
const holdStep = 64 << 10

// errBodiesFull is a body's read error when the budget has no room for it.
var errBodiesFull = errors.New("request bodies budget full")

// take reserves n more bytes; false (nothing reserved) when they do not fit.
func (b *bodyBudget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held+n > b.max {
		return false
	}
	b.held += n
	return true
}

// give returns n reserved bytes.
func (b *bodyBudget) give(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held -= n
}

// inUse is the bytes reserved now.
func (b *bodyBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held
}

// bodyHold is one request's reservation.
type bodyHold struct {
	b *bodyBudget
	n int64 // bytes reserved
}

// grow reserves up to total bytes in all; false when they do not fit (the
// reservation stays as it was).
func (h *bodyHold) grow(total int64) bool {
	if total <= h.n {
		return true
	}
	if !h.b.take(total - h.n) {
		return false
	}
	h.n = total
	return true
}

// release gives the whole reservation back; a second call does nothing.
func (h *bodyHold) release() {
	if h.n > 0 {
		h.b.give(h.n)
		h.n = 0
	}
}
