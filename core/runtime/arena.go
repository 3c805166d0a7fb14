package runtime

import (
	"math"
	"slices"
	"sort"
	"sync"
	"unsafe"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// arena recycles the float32 buffers of one Run call: when the liveness
// analysis (step.free) drops an intermediate that the call allocated, its
// buffer goes back to the arena, and a later output of a fitting size takes
// it instead of a fresh allocation. A call's working set is then about its
// peak of live intermediates, and the allocator (its zeroing, page faults
// and GC work) is mostly out of the loop.
//
// Between calls a Predictor keeps up to maxIdleArenas arenas: an arena
// keeps only the buffers its last call used, so it holds about one call's
// working set, and a steady stream of same-sized calls allocates little.
// (Not a sync.Pool: the GC empties it about every other call here, and the
// dropped arena, still unswept, plus the next call's fresh one raised the
// peak RSS of det at 960² from ~340 MB to ~520 MB in half the runs.)
type arena struct {
	free  [][]float32 // by capacity, ascending
	owned map[*tensor.Tensor][]float32
	used  map[*float32]bool // the buffers this call used, by data pointer
}

// poisonArena (tests only) fills the buffers handed out without clearing
// with NaN, so an op marked op.Def.Overwrites that leaves an element unwritten shows.
var poisonArena bool

// PoisonArena is a debugging aid for kernels (a backend's tests): while on,
// every recycled buffer that Run hands to an op marked as writing all its
// output elements is filled with NaN first, so a kernel that skips one
// shows as NaN in the outputs. Not safe while Run calls are in flight.
func PoisonArena(on bool) { poisonArena = on }

// minArena is the smallest buffer (in elements) worth recycling.
const minArena = 1024

func newArena() *arena {
	return &arena{owned: map[*tensor.Tensor][]float32{}, used: map[*float32]bool{}}
}

// alloc returns a zeroed contiguous tensor of dtype d and the given shape,
// reusing a free buffer of capacity n..2n when d is float32.
func (a *arena) alloc(d tensor.DType, shape []int, zero bool) *tensor.Tensor {
	n := tensor.Shape(shape).NumElements()
	if d != tensor.Float32 || n < minArena {
		return tensor.New(d, shape...)
	}
	i := sort.Search(len(a.free), func(i int) bool { return cap(a.free[i]) >= n })
	var buf []float32
	if i < len(a.free) && cap(a.free[i]) <= 2*n {
		buf = a.free[i][:n]
		a.free = append(a.free[:i], a.free[i+1:]...)
		if zero {
			clear(buf)
		}
	} else {
		buf = make([]float32, n)
	}
	if poisonArena && !zero {
		for i := range buf {
			buf[i] = float32(math.NaN())
		}
	}
	a.used[unsafe.SliceData(buf)] = true
	t := tensor.FromSlice(buf, shape...)
	a.owned[t] = buf
	return t
}

// handOver returns a tensor of meta m on the buffer of x, which this arena
// allocated and which its caller gives up (x's last use), and makes the
// arena own it through the new tensor; nil (nothing changed) when x's
// buffer is not the arena's or m is not a float32 of x's element count.
func (a *arena) handOver(x *tensor.Tensor, m op.Meta) *tensor.Tensor {
	buf, ok := a.owned[x]
	if !ok || m.DType != tensor.Float32 || x.DType() != tensor.Float32 || !x.IsContiguous() ||
		m.Shape.NumElements() != len(buf) || x.Len() != len(buf) || !graph.KnownShape(m.Shape) {
		return nil
	}
	t := tensor.FromSlice(buf, m.Shape...)
	delete(a.owned, x)
	a.owned[t] = buf
	return t
}

// release gives t's buffer back if this arena allocated it.
func (a *arena) release(t *tensor.Tensor) {
	buf, ok := a.owned[t]
	if !ok {
		return
	}
	delete(a.owned, t)
	buf = buf[:cap(buf)]
	i := sort.Search(len(a.free), func(i int) bool { return cap(a.free[i]) >= cap(buf) })
	a.free = append(a.free, nil)
	copy(a.free[i+1:], a.free[i:])
	a.free[i] = buf
}

// reset prepares a for the next call: every buffer this call used, except
// those of the tensors in out (handed to the caller), becomes free; free
// buffers this call did not use are dropped. (Each buffer is either free
// or owned by one tensor, never both.)
func (a *arena) reset(out map[string]*tensor.Tensor) {
	for _, t := range out {
		delete(a.owned, t)
	}
	free := a.free[:0]
	for _, buf := range a.free {
		if a.used[unsafe.SliceData(buf)] {
			free = append(free, buf)
		}
	}
	clear(a.free[len(free):])
	for _, buf := range a.owned {
		free = append(free, buf[:cap(buf)])
	}
	slices.SortFunc(free, func(x, y []float32) int { return cap(x) - cap(y) })
	a.free = free
	clear(a.owned)
	clear(a.used)
}

// maxIdleArenas bounds the arenas a Predictor keeps between calls (more
// concurrent calls make their own and drop them after).
const maxIdleArenas = 2

// MaxIdleArenaBytes bounds the bytes of buffers a Predictor's idle arenas
// keep between calls, all together: an arena returned over the budget
// drops its largest buffers until it fits. One call of any size still
// gets what it needs; what stays allocated after it is bounded. (A
// variable for tests; 256 MiB holds the working set of OCR detection at
// about 1600² pixels.)
var MaxIdleArenaBytes int64 = 256 << 20

// bytes is the size of a's free buffers.
func (a *arena) bytes() int64 {
	var n int64
	for _, b := range a.free {
		n += int64(cap(b)) * 4
	}
	return n
}

// trim drops a's largest free buffers until they total at most budget bytes.
func (a *arena) trim(budget int64) {
	n := a.bytes()
	for len(a.free) > 0 && n > budget {
		last := len(a.free) - 1
		n -= int64(cap(a.free[last])) * 4
		a.free[last] = nil
		a.free = a.free[:last]
	}
}

// arenaPool is a Predictor's idle arenas.
type arenaPool struct {
	mu   sync.Mutex
	idle []*arena
}

func (p *arenaPool) get() *arena {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.idle); n > 0 {
		a := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		return a
	}
	return newArena()
}

func (p *arenaPool) put(a *arena) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) >= maxIdleArenas {
		return
	}
	held := int64(0)
	for _, b := range p.idle {
		held += b.bytes()
	}
	a.trim(max(MaxIdleArenaBytes-held, 0))
	if len(a.free) > 0 {
		p.idle = append(p.idle, a)
	}
}

// bytes is the size of the idle arenas' buffers.
func (p *arenaPool) bytes() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := int64(0)
	for _, a := range p.idle {
		n += a.bytes()
	}
	return n
}

// drain drops every idle arena.
func (p *arenaPool) drain() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.idle)
	p.idle = p.idle[:0]
}
