//go:build amd64 && !purego

package cpu

import "unsafe"

// packRowsAVX2: see packrows_amd64.s.
//
//go:noescape
func packRowsAVX2(src *float32, ld, k int, dst *float32, w, cols, whole int)

// copyRowsAVX2 is microKernel.packRows for the AVX2 kernel: A's rows when
// A is transposed (w = 6) and B's last, narrow panels (w = 16 or 8), which
// Go's copy and clear would otherwise take row by row, a call each for a
// few floats.
func copyRowsAVX2(src []float32, ld, k, cols, w int, dst []float32) {
	if k == 0 {
		return
	}
	if cols == 0 {
		clear(dst[:k*w])
		return
	}
	_ = src[(k-1)*ld+cols-1]
	_ = dst[k*w-1]
	v := 8 // the whole-vector store: row p's spans dst[p*w : p*w+v]
	if w > 8 {
		v = 16
	}
	whole := 0 // rows p with p*w+v <= k*w
	if k*w >= v {
		whole = min((k*w-v)/w+1, k)
	}
	packRowsAVX2(unsafe.SliceData(src), ld, k, unsafe.SliceData(dst), w, cols, whole)
}
