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
	// lastIn is the number of input elements of the call that uses the
	// arena now, or last did (arenaPool.get).
	lastIn int64
	// spares, when set, are the Predictor's given-back outputs (Recycle),
	// which alloc takes from when no free buffer fits: an output computed
	// in place left with its input's buffer, and comes back there.
	spares *spares
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
// reusing a free buffer of capacity n..2n when d is float32. Uint8 and
// int8 tensors (the int8 ops' activations) live on float32 buffers too, a
// quarter of the elements, viewed as bytes, so that they and float32
// intermediates recycle each other's buffers.
func (a *arena) alloc(d tensor.DType, shape []int, zero bool) *tensor.Tensor {
	elems := tensor.Shape(shape).NumElements()
	n := elems
	bytes := d == tensor.Uint8 || d == tensor.Int8
	if bytes {
		n = (n + 3) / 4
	}
	if (d != tensor.Float32 && !bytes) || n < minArena {
		return tensor.New(d, shape...)
	}
	buf := a.takeFree(n)
	if buf == nil && a.spares != nil {
		buf = a.spares.take(n)
	}
	if buf == nil {
		buf = make([]float32, n)
	} else if zero {
		clear(buf)
	}
	if poisonArena && !zero {
		nan := float32(math.NaN())
		if bytes { // every byte 0xa5
			nan = math.Float32frombits(0xa5a5a5a5)
		}
		for i := range buf {
			buf[i] = nan
		}
	}
	a.used[unsafe.SliceData(buf)] = true
	var t *tensor.Tensor
	switch d {
	case tensor.Uint8:
		t = tensor.FromSlice(byteView[uint8](buf, elems), shape...)
	case tensor.Int8:
		t = tensor.FromSlice(byteView[int8](buf, elems), shape...)
	default:
		t = tensor.FromSlice(buf, shape...)
	}
	a.owned[t] = buf
	return t
}

// byteView returns the first n bytes of buf as a slice of T.
func byteView[T uint8 | int8](buf []float32, n int) []T {
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(buf))), n)
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
	a.insertFree(buf[:cap(buf)])
}

// takeFree takes the smallest free buffer of capacity n..2n off the free
// list and returns it cut to n, or nil when none fits.
func (a *arena) takeFree(n int) []float32 {
	i := sort.Search(len(a.free), func(i int) bool { return cap(a.free[i]) >= n })
	if i == len(a.free) || cap(a.free[i]) > 2*n {
		return nil
	}
	buf := a.free[i][:n]
	a.free = slices.Delete(a.free, i, i+1)
	return buf
}

// insertFree adds buf to the free list.
func (a *arena) insertFree(buf []float32) {
	i := sort.Search(len(a.free), func(i int) bool { return cap(a.free[i]) >= cap(buf) })
	a.free = slices.Insert(a.free, i, buf)
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

// MaxIdleArenaBytes bounds the bytes of buffers that idle arenas keep
// between calls, all Predictors of the process together, except the arena
// put back last (MaxRetainedArenaBytes): when a call starts, the idle
// arenas of the other calls are trimmed to this budget (their largest
// buffers go first, the least recently used arenas before the others).
// One call of any size still gets what it needs; what stays allocated
// beside it is bounded, and one model's idle buffers do not sit beside the
// next model's working set (OCR detection, then recognition). (A variable
// for tests. 16 MiB keeps what small calls use, OCR's recognition of short
// lines and its angle classifier; a page's detection, about 90 MB at 960
// pixels, leaves 16 when recognition starts. Keeping more saved no
// measurable CPU time on OCR over pages or small images, and raised peak
// RSS: 10 pages in one process, 311 MiB with 16 MiB against 400 MiB with 64
// MiB; docs/BENCHMARKS.md.)
var MaxIdleArenaBytes int64 = 16 << 20

// MaxRetainedArenaBytes bounds the buffers the arena put back last keeps
// until the next call of any Predictor starts: the same model called again
// (a server or a folder of one model's inputs, `model run --bench`) then
// finds its whole working set instead of allocating and zeroing most of it
// afresh (PP-OCRv4 det at 960: about 10 % less CPU per call), and any other
// call first trims it to MaxIdleArenaBytes, so it never sits beside another
// model's working set. (A variable for tests.)
var MaxRetainedArenaBytes int64 = 128 << 20

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

// dropFree drops every free buffer.
func (a *arena) dropFree() {
	clear(a.free)
	a.free = a.free[:0]
}

// arenaPool is a Predictor's share of the idle arenas (idleArenas): a tag
// for its entries there.
type arenaPool struct{ _ byte } // not zero-sized: every pool has its own address

// idleArena is an idle arena, its pool and its size when put back.
type idleArena struct {
	pool *arenaPool
	a    *arena
	n    int64
}

// idleArenas is the process's idle arenas, least recently put back first,
// and their total size (at most MaxIdleArenaBytes, and the last one's).
var idleArenas struct {
	mu    sync.Mutex
	lru   []idleArena
	bytes int64
}

// get returns an idle arena of p (the most recently put back) or a new one,
// for a call whose inputs have in elements in all. An arena whose last call
// had larger inputs than this one by more than 2x, or smaller ones, is
// emptied first: its buffers would not fit this call's (the arena hands out
// a buffer of capacity n..2n for n elements), and dropped now they are not
// kept alive beside this call's own.
func (p *arenaPool) get(in int64) *arena {
	idleArenas.mu.Lock()
	var a *arena
	for i := len(idleArenas.lru) - 1; i >= 0; i-- {
		if e := idleArenas.lru[i]; e.pool == p {
			a = e.a
			idleArenas.bytes -= e.n
			idleArenas.lru = slices.Delete(idleArenas.lru, i, i+1)
			break
		}
	}
	fitIdle(nil)
	idleArenas.mu.Unlock()
	if a == nil {
		a = newArena()
	} else if in > a.lastIn || 2*in < a.lastIn {
		a.dropFree()
	}
	a.lastIn = in
	return a
}

// put makes a (reset) idle: it keeps up to MaxRetainedArenaBytes, and the
// other idle arenas are trimmed to MaxIdleArenaBytes.
func (p *arenaPool) put(a *arena) {
	a.trim(MaxRetainedArenaBytes)
	n := a.bytes()
	if n == 0 {
		return
	}
	idleArenas.mu.Lock()
	defer idleArenas.mu.Unlock()
	mine := 0
	for _, e := range idleArenas.lru {
		if e.pool == p {
			mine++
		}
	}
	if mine >= maxIdleArenas {
		return
	}
	idleArenas.lru = append(idleArenas.lru, idleArena{p, a, n})
	idleArenas.bytes += n
	fitIdle(a)
}

// fitIdle trims the idle arenas other than keep (nil: all of them) to
// MaxIdleArenaBytes together, the most recently put back kept first:
// beyond the budget an arena loses its largest buffers, or all of them.
// The caller holds idleArenas.mu.
func fitIdle(keep *arena) {
	room := MaxIdleArenaBytes
	for i := len(idleArenas.lru) - 1; i >= 0; i-- {
		e := &idleArenas.lru[i]
		if e.a == keep {
			continue
		}
		if e.n > room {
			e.a.trim(room)
			idleArenas.bytes -= e.n
			e.n = e.a.bytes()
			idleArenas.bytes += e.n
		}
		room -= e.n
	}
	idleArenas.lru = slices.DeleteFunc(idleArenas.lru, func(e idleArena) bool { return e.n == 0 })
}

// bytes is the size of p's idle arenas' buffers.
func (p *arenaPool) bytes() int64 {
	idleArenas.mu.Lock()
	defer idleArenas.mu.Unlock()
	n := int64(0)
	for _, e := range idleArenas.lru {
		if e.pool == p {
			n += e.n
		}
	}
	return n
}

// drain drops p's idle arenas.
func (p *arenaPool) drain() {
	idleArenas.mu.Lock()
	defer idleArenas.mu.Unlock()
	idleArenas.lru = slices.DeleteFunc(idleArenas.lru, func(e idleArena) bool {
		if e.pool == p {
			idleArenas.bytes -= e.n
			return true
		}
		return false
	})
}

// IdleArenaBytes returns the bytes all idle arenas of the process keep (at
// most MaxIdleArenaBytes, and the last one put back's MaxRetainedArenaBytes).
func IdleArenaBytes() int64 {
	idleArenas.mu.Lock()
	defer idleArenas.mu.Unlock()
	return idleArenas.bytes
}
