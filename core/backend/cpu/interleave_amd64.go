//go:build amd64 && !purego

package cpu

import "unsafe"

// interleave2AVX2 sets out[2i] = max(a[i]+bias, floor) and out[2i+1] =
// max(b[i]+bias, floor) for i < n (a multiple of 8), as Go's max (a NaN
// sum stays NaN, −0 against +0 gives +0): interleave_amd64.s.
//
//go:noescape
func interleave2AVX2(out, a, b *float32, n int, bias, floor float32)

// interleave2Row is op.Kernels.Interleave2Row32 at avx2 and avx512: the
// multiple-of-8 prefix of a on interleave2AVX2.
func interleave2Row(out, a, b []float32, bias, floor float32) int {
	n := len(a) &^ 7
	if n == 0 {
		return 0
	}
	_, _ = out[2*n-1], b[n-1]
	interleave2AVX2(unsafe.SliceData(out), unsafe.SliceData(a), unsafe.SliceData(b), n, bias, floor)
	return n
}

// interleave2Kernel returns the vector interleave of non-overlapping
// transposed convs' 2-tap rows, nil at generic.
func interleave2Kernel() func(out, a, b []float32, bias, floor float32) int {
	if curISA() < isaAVX2 {
		return nil
	}
	return interleave2Row
}
