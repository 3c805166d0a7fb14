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

// maxPool2x2NEON: see neon_arm64.s (n a multiple of 4).
//
//go:noescape
func maxPool2x2NEON(dst, r0, r1 *float32, n int)

// maxPool2x2Rows is op.MaxPool2x2Rows32 at the neon level: groups of 4
// outputs in assembly, the rest in Go (maxPool2x2's loop).
func maxPool2x2Rows(dst, r0, r1 []float32) {
	n := len(dst)
	if n == 0 {
		return
	}
	r0, r1 = r0[:2*n], r1[:2*n]
	v := 0
	if curISA() == isaNEON {
		if v = n &^ 3; v > 0 {
			maxPool2x2NEON(unsafe.SliceData(dst), unsafe.SliceData(r0), unsafe.SliceData(r1), v)
		}
	}
	for i := v; i < n; i++ {
		m := r0[2*i]
		for _, x := range [3]float32{r0[2*i+1], r1[2*i], r1[2*i+1]} {
			if x > m || x != x {
				m = x
			}
		}
		dst[i] = m
	}
}

// maxPool2x2Kernel returns the vector 2×2 max pooling rows, nil at generic.
func maxPool2x2Kernel() func(dst, r0, r1 []float32) {
	if curISA() != isaNEON {
		return nil
	}
	return maxPool2x2Rows
}
