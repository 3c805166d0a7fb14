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
const maxSpareBuffers = 1

// MaxSpareBytes bounds the bytes of recycled output buffers one Predictor
// keeps (beyond it the largest go). (A variable for tests.)
var MaxSpareBytes int64 = 16 << 20

// take returns a spare buffer of capacity n..2n cut to n, or nil.
func (s *spares) take(n int) []float32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.list.takeFree(n)
}

// give adds bufs, keeping the largest max buffers, then at most
// MaxSpareBytes (the largest go). Keeping the largest, not the latest,
// makes what a busy Predictor holds a function of the sizes it has seen,
// not of the order concurrent calls finished in (the largest fits every
// later output of more than half its size).
func (s *spares) give(bufs [][]float32, max int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range bufs {
		s.list.insertFree(b)
	}
	if extra := len(s.list.free) - max; extra > 0 {
		clear(s.list.free[:extra])
		s.list.free = s.list.free[extra:]
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

// Recycle gives back outputs of an earlier Run (its map, or part of it)
// that the caller no longer uses, nor any view of them, for later calls:
// a later output of a fitting size (n elements into a buffer of n..2n)
// takes one of their buffers, and so does an intermediate that finds no
// free buffer in its call's arena (the input of an output computed in
// place, which took that input's buffer: PP-OCRv4 rec's softmax over the
// logits, one 6.4 MB buffer at batch 6 instead of two). Either way the
// buffer is not allocated, zeroed and faulted in afresh. A Predictor keeps
// the largest buffer per output, at most MaxSpareBytes in all;
// Release drops them. Outputs that are a Run input, or come out of an If
// branch (which may hand back its input), are never taken. Safe for
// concurrent use.
func (p *Predictor) Recycle(out map[string]*tensor.Tensor) {
	var bufs [][]float32
	for i, name := range p.outNames {
		t := out[name]
		if t == nil || !p.recyclable[i] || t.DType() != tensor.Float32 || !t.IsContiguous() || t.Len() < minArena {
			continue
		}
		buf := t.F32()
		buf = buf[:cap(buf)]
		if !slices.ContainsFunc(bufs, func(b []float32) bool { return unsafe.SliceData(b) == unsafe.SliceData(buf) }) {
			bufs = append(bufs, buf)
		}
	}
	if len(bufs) > 0 {
		p.spares.give(bufs, maxSpareBuffers*len(p.outNames))
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
