package op

import (
	"bytes"
	"sync"
	"unsafe"

	"paddle/core/tensor"
)

// The int8 weights' derived forms, cached per weight buffer: qconv2d's
// per-channel sums (x's zero point folded into the bias) and its weights
// packed for the backend's GEMM (QPackA8) as they are and in qshifted's
// tap-major order, qgemm's column sums. An
// inference graph's weights are constants, and these were remade on every
// call (~9 % of int8 PP-OCRv4 rec b6's CPU time). An entry keeps a copy of
// the bytes it was made from and is used only while the buffer still holds
// exactly them (a memory compare); packed forms are kept per kernel set, so
// changing the level packs again. Results never depend on the cache.

// qwEntry is one weight buffer's derived forms.
type qwEntry struct {
	w       []byte // the bytes it was made from
	rowSums []int32
	colSums []int32
	kern    *Kernels // the kernel set packed was made for
	packed  []any    // QPackA8 of each group's rows
	// qshifted's tap-major weights and their packing (qwShifted)
	shiftKern     *Kernels
	shifted       []byte
	shiftedPacked any
}

// qwKey is a weight buffer's address and extent (the cache must not keep
// buffers alive) and its layout: rows × cols, int8 or uint8.
type qwKey struct {
	addr       uintptr
	rows, cols int
	signed     bool
}

var qwCache struct {
	sync.Mutex
	m     map[qwKey]*qwEntry
	bytes int
}

// qwCacheBytes caps the cache (copies and packed forms); past it the cache
// starts over.
const qwCacheBytes = 64 << 20

// qweights returns the entry of w viewed as a rows×cols matrix (a conv's
// (OC, K) or qgemm's (K, N)), made or remade as needed; the caller fills
// the forms it needs under the entry's lock (qwFill).
func qweights(w *T, rows, cols int) *qwEntry {
	b := rawBytesOf(w)[:rows*cols]
	key := qwKey{uintptr(unsafe.Pointer(unsafe.SliceData(b))), rows, cols, w.DType() == tensor.Int8}
	qwCache.Lock()
	defer qwCache.Unlock()
	if e := qwCache.m[key]; e != nil && bytes.Equal(e.w, b) {
		return e
	}
	e := &qwEntry{w: append([]byte(nil), b...)}
	if qwCache.m == nil || qwCache.bytes+2*len(b) > qwCacheBytes {
		qwCache.m, qwCache.bytes = map[qwKey]*qwEntry{}, 0
	}
	qwCache.m[key] = e
	qwCache.bytes += 2 * len(b) // the copy and about as much packed
	return e
}

// qwSums returns Σ over each row (rows true) or each column of the
// rows×cols weights w: int8 or uint8 values, wrapping in int32 as the
// accumulators do.
func qwSums(w *T, rows, cols int, byRow bool) []int32 {
	e := qweights(w, rows, cols)
	qwCache.Lock()
	s := e.rowSums
	if !byRow {
		s = e.colSums
	}
	qwCache.Unlock()
	if s != nil {
		return s
	}
	b, signed := e.w, w.DType() == tensor.Int8
	val := func(v byte) int32 {
		if signed {
			return int32(int8(v))
		}
		return int32(v)
	}
	if byRow {
		s = make([]int32, rows)
		for c := range rows {
			for _, v := range b[c*cols : (c+1)*cols] {
				s[c] += val(v)
			}
		}
	} else {
		s = make([]int32, cols)
		for p := range rows {
			for j, v := range b[p*cols : (p+1)*cols] {
				s[j] += val(v)
			}
		}
	}
	qwCache.Lock()
	if byRow {
		e.rowSums = s
	} else {
		e.colSums = s
	}
	qwCache.Unlock()
	return s
}

// qwPacked returns the rows×cols weights w packed by pack (the active
// kernel set's QPackA8) in groups of rows/groups rows.
func qwPacked(w *T, rows, cols, groups int, kern *Kernels, pack func(m, k int, a []byte, lda int, aSigned bool) any) []any {
	e := qweights(w, rows, cols)
	qwCache.Lock()
	if e.kern == kern && len(e.packed) == groups {
		p := e.packed
		qwCache.Unlock()
		return p
	}
	qwCache.Unlock()
	rg := rows / groups
	packed := make([]any, groups)
	for gi := range groups {
		packed[gi] = pack(rg, cols, e.w[gi*rg*cols:], cols, w.DType() == tensor.Int8)
	}
	qwCache.Lock()
	e.kern, e.packed = kern, packed
	qwCache.Unlock()
	return packed
}

// qwShifted returns qshifted's weights for the (OC, C, KH, KW) weights w
// (taps = KH·KW): wt[o, t·cp + ci] = w[o, ci, t] with cp = C rounded up to
// a multiple of 4 (zero weights between), and wt packed by pack.
func qwShifted(w *T, oc, c, taps int, kern *Kernels, pack func(m, k int, a []byte, lda int, aSigned bool) any) ([]byte, any) {
	e := qweights(w, oc, c*taps)
	qwCache.Lock()
	if e.shiftKern == kern && e.shifted != nil {
		wt, pa := e.shifted, e.shiftedPacked
		qwCache.Unlock()
		return wt, pa
	}
	qwCache.Unlock()
	cp := (c + 3) &^ 3
	k := taps * cp
	wt := make([]byte, oc*k)
	for o := range oc {
		for ci := range c {
			for t, v := range e.w[(o*c+ci)*taps:][:taps] {
				wt[o*k+t*cp+ci] = v
			}
		}
	}
	pa := pack(oc, k, wt, k, w.DType() == tensor.Int8)
	qwCache.Lock()
	e.shiftKern, e.shifted, e.shiftedPacked = kern, wt, pa
	qwCache.Unlock()
	return wt, pa
}
