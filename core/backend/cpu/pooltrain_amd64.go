//go:build amd64 && !purego

package cpu

import "unsafe"

// maxPool2x2GradAVX2: see pooltrain_amd64.s.
//
//go:noescape
func maxPool2x2GradAVX2(d0, d1, r0, r1, dy *float32, n int)

// maxPool2x2GradRows is op.MaxPool2x2GradRows32 at the avx2 and avx512
// levels: whole groups of 8 outputs in AVX2 assembly, the rest in Go.
func maxPool2x2GradRows(d0, d1, r0, r1, dy []float32) {
	n := len(dy)
	if n == 0 {
		return
	}
	d0, d1, r0, r1 = d0[:2*n], d1[:2*n], r0[:2*n], r1[:2*n]
	v := n &^ 7
	if v > 0 {
		maxPool2x2GradAVX2(unsafe.SliceData(d0), unsafe.SliceData(d1), unsafe.SliceData(r0), unsafe.SliceData(r1), unsafe.SliceData(dy), v)
	}
	maxPool2x2GradGo(d0[2*v:], d1[2*v:], r0[2*v:], r1[2*v:], dy[v:])
}

// maxPool2x2GradKernel returns the vector 2×2 max pooling backward rows,
// nil at generic.
func maxPool2x2GradKernel() func(d0, d1, r0, r1, dy []float32) {
	if curISA() < isaAVX2 {
		return nil
	}
	return maxPool2x2GradRows
}
