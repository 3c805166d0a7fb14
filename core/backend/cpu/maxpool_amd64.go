//go:build amd64 && !purego

package cpu

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// maxPool2x2AVX512: see maxpool_amd64.s.
//
//go:noescape
func maxPool2x2AVX512(dst, r0, r1 *float32, n int)

// maxPool2x2Rows is op.MaxPool2x2Rows32 on AVX-512: whole vectors in
// assembly, the last len(dst) mod 16 outputs in Go.
func maxPool2x2Rows(dst, r0, r1 []float32) {
	n := len(dst)
	if n == 0 {
		return
	}
	r0, r1 = r0[:2*n], r1[:2*n]
	v := n &^ 15
	if v > 0 {
		maxPool2x2AVX512(unsafe.SliceData(dst), unsafe.SliceData(r0), unsafe.SliceData(r1), v)
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

// maxPool2x2Kernel returns the vector 2×2 max pooling rows, or nil without
// AVX-512.
func maxPool2x2Kernel() func(dst, r0, r1 []float32) {
	if !cpu.X86.HasAVX512F {
		return nil
	}
	return maxPool2x2Rows
}
