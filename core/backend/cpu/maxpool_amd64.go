//go:build amd64 && !purego

package cpu

import "unsafe"

// maxPool2x2AVX512: see maxpool_amd64.s; maxPool2x2AVX2: avx2_amd64.s.
//
//go:noescape
func maxPool2x2AVX512(dst, r0, r1 *float32, n int)

//go:noescape
func maxPool2x2AVX2(dst, r0, r1 *float32, n int)

// maxPool2x2Rows is op.MaxPool2x2Rows32 at the avx2 and avx512 levels:
// whole vectors in assembly (16 or 8 outputs), the rest in Go.
func maxPool2x2Rows(dst, r0, r1 []float32) {
	n := len(dst)
	if n == 0 {
		return
	}
	r0, r1 = r0[:2*n], r1[:2*n]
	v := 0
	switch curISA() {
	case isaAVX512:
		if v = n &^ 15; v > 0 {
			maxPool2x2AVX512(unsafe.SliceData(dst), unsafe.SliceData(r0), unsafe.SliceData(r1), v)
		}
	case isaAVX2:
		if v = n &^ 7; v > 0 {
			maxPool2x2AVX2(unsafe.SliceData(dst), unsafe.SliceData(r0), unsafe.SliceData(r1), v)
		}
	}
	for i := v; i < n; i++ {
		m := r0[2*i]
		if x := r0[2*i+1]; x > m || x != x {
			m = x
		}
		if x := r1[2*i]; x > m || x != x {
			m = x
		}
		if x := r1[2*i+1]; x > m || x != x {
			m = x
		}
		dst[i] = m
	}
}

// maxPool2x2Kernel returns the vector 2×2 max pooling rows, nil at generic.
func maxPool2x2Kernel() func(dst, r0, r1 []float32) {
	if curISA() < isaAVX2 {
		return nil
	}
	return maxPool2x2Rows
}
