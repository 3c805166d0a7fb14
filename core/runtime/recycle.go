package runtime

import (
	"slices"
	"sync"
	"unsafe"

	"paddle/core/tensor"
)

// spares are the float32 buffers of outputs that callers gave back
// (Predictor.Recycle), for later calls' outputs: ONNX Runtime's and Paddle
// Inference's allocators reuse an output's memory once the caller frees it,
// while a fresh Go buffer of several megabytes often lands on pages the
// runtime has returned to the OS, and faults every 4 KiB of them in again
// (PP-OCRv4 rec at batch 6: a 6.4 MB output, about 1,600 faults, 20–30 ms
// of a 105 ms call in half the calls).
type spares struct {
	mu   sync.Mutex
	list arena // its free list only
}

// maxSpareBuffers bounds the buffers a Predictor keeps per output;
// MaxSpareBytes bounds their bytes.
const maxSpareBuffers = 2

// MaxSpareBytes bounds the bytes of recycled output buffers one Predictor
// keeps (beyond it the largest go). (A variable for tests.)
var MaxSpareBytes int64 = 16 << 20

// take returns a spare buffer of capacity n..2n cut to n, or nil.
func (s *spares) take(n int) []float32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.list.takeFree(n)
}

// give adds bufs, keeping at most max buffers and MaxSpareBytes (the
// largest go first).
func (s *spares) give(bufs [][]float32, max int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range bufs {
		s.list.insertFree(b)
	}
	if len(s.list.free) > max {
		clear(s.list.free[max:])
		s.list.free = s.list.free[:max]
	}
	s.list.trim(MaxSpareBytes)
}

// drop empties s.
func (s *spares) drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.list.dropFree()
}

// bytes is the size of s's buffers.
func (s *spares) bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.list.bytes()
}

// recycleTo is where Recycle puts an output's buffer.
type recycleTo uint8

const (
	recycleNone  recycleTo = iota // a Run input, or an If branch's output (which may be its input)
	recycleSpare                  // the spares, for the same output next call (newOutput)
	// recycleArena: an idle arena of the Predictor's, whose free list it
	// came from: the output was computed in place over its input's buffer
	// (PP-OCRv4 rec's softmax over the logits, one 6.4 MB buffer at batch
	// 6 instead of two), and the next call's input takes it again
	recycleArena
)

// Recycle gives back outputs of an earlier Run (its map, or part of it)
// that the caller no longer uses, nor any view of them, for later calls:
// an output computed in place goes back to the call arenas' free list,
// where its input's buffer came from; any other waits for a later output
// of a fitting size (n elements into a buffer of n..2n), up to two buffers
// per output and MaxSpareBytes in all. Either way the buffer is not
// allocated, zeroed and faulted in afresh. Release drops them. Outputs
// that are a Run input, or come out of an If branch (which may hand back
// its input), are never taken. Safe for concurrent use.
func (p *Predictor) Recycle(out map[string]*tensor.Tensor) {
	var spare, arena [][]float32
	for i, name := range p.outNames {
		t := out[name]
		if t == nil || p.recycle[i] == recycleNone || t.DType() != tensor.Float32 || !t.IsContiguous() || t.Len() < minArena {
			continue
		}
		buf := t.F32()
		buf = buf[:cap(buf)]
		same := func(b []float32) bool { return unsafe.SliceData(b) == unsafe.SliceData(buf) }
		if slices.ContainsFunc(spare, same) || slices.ContainsFunc(arena, same) {
			continue
		}
		if p.recycle[i] == recycleArena {
			arena = append(arena, buf)
		} else {
			spare = append(spare, buf)
		}
	}
	if len(spare) > 0 {
		p.spares.give(spare, maxSpareBuffers*len(p.outNames))
	}
	if len(arena) > 0 {
		p.arenas.give(arena)
	}
}

// newOutput returns a zeroed (or, when zero is false, uninitialised)
// tensor for a graph output, on a recycled buffer when one fits.
func (p *Predictor) newOutput(d tensor.DType, shape []int, zero bool) *tensor.Tensor {
	n := tensor.Shape(shape).NumElements()
	if d != tensor.Float32 || n < minArena {
		return tensor.New(d, shape...)
	}
	buf := p.spares.take(n)
	if buf == nil {
		return tensor.New(d, shape...)
	}
	if zero {
		clear(buf)
	}
	return tensor.FromSlice(buf, shape...)
}
