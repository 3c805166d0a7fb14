//go:build arm64 && !purego

package cpu

import "unsafe"

// stride2RowsNEON: see neon_arm64.s (n a multiple of 4, src readable up to
// r*lds+2n-1).
//
//go:noescape
func stride2RowsNEON(dst *float32, ldd int, src *float32, lds, n, rows int)

// stride2Rows is op.Stride2Rows32 at the neon level: dst[r*ldd+i] =
// src[r*lds+2i], the groups of 4 outputs but the last in assembly (so that
// src[r*lds+2n-1] is never read), the rest in Go.
func stride2Rows(dst []float32, ldd int, src []float32, lds, n, rows int) {
	if n <= 0 || rows <= 0 {
		return
	}
	_ = dst[(rows-1)*ldd+n-1]
	_ = src[(rows-1)*lds+2*n-2]
	v := 0
	if curISA() == isaNEON {
		if v = (n - 1) &^ 3; v > 0 {
			stride2RowsNEON(unsafe.SliceData(dst), ldd, unsafe.SliceData(src), lds, v, rows)
		}
	}
	for r := range rows {
		d, s := dst[r*ldd+v:r*ldd+n], src[r*lds+2*v:]
		for i := range d {
			d[i] = s[2*i]
		}
	}
}

// stride2RowsKernel returns the vector stride-2 row gather, nil at generic.
func stride2RowsKernel() func(dst []float32, ldd int, src []float32, lds, n, rows int) {
	if curISA() != isaNEON {
		return nil
	}
	return stride2Rows
}

// stride2AddKernel: none on arm64 yet (col2im's Go loop runs).
func stride2AddKernel() func(dst, src []float32) { return nil }

// maxPool2x2Kernel: none on arm64 yet (pooling's Go loop runs).
func maxPool2x2Kernel() func(dst, r0, r1 []float32) { return nil }
