//go:build amd64 && !purego

package cpu

import "unsafe"

// stride2RowsAVX512: see im2col_amd64.s; stride2RowsAVX2: avx2_amd64.s.
//
//go:noescape
func stride2RowsAVX512(dst *float32, ldd int, src *float32, lds, n, rows int)

//go:noescape
func stride2RowsAVX2(dst *float32, ldd int, src *float32, lds, n, rows int)

// stride2Rows is op.Stride2Rows32 at the avx2 and avx512 levels:
// dst[r*ldd+i] = src[r*lds+2i] (the Go loop at generic).
func stride2Rows(dst []float32, ldd int, src []float32, lds, n, rows int) {
	if n <= 0 || rows <= 0 {
		return
	}
	_ = dst[(rows-1)*ldd+n-1]
	_ = src[(rows-1)*lds+2*n-2]
	switch curISA() {
	case isaAVX512:
		stride2RowsAVX512(unsafe.SliceData(dst), ldd, unsafe.SliceData(src), lds, n, rows)
	case isaAVX2:
		stride2RowsAVX2(unsafe.SliceData(dst), ldd, unsafe.SliceData(src), lds, n, rows)
	default:
		for r := range rows {
			d, s := dst[r*ldd:r*ldd+n], src[r*lds:]
			for i := range d {
				d[i] = s[2*i]
			}
		}
	}
}

// stride2RowsKernel returns the vector stride-2 row gather, nil at generic.
func stride2RowsKernel() func(dst []float32, ldd int, src []float32, lds, n, rows int) {
	if curISA() < isaAVX2 {
		return nil
	}
	return stride2Rows
}

// stride2AddAVX512: see im2col_amd64.s; stride2AddAVX2: avx2_amd64.s.
//
//go:noescape
func stride2AddAVX512(dst, src *float32, n int)

//go:noescape
func stride2AddAVX2(dst, src *float32, n int)

// stride2Add is op.Stride2Add32 at the avx2 and avx512 levels: dst[2i] +=
// src[i] (at avx2, whole groups of 8 but the last in assembly, the rest in
// Go, so that dst[2n-1] is never touched).
func stride2Add(dst, src []float32) {
	n := len(src)
	if n == 0 {
		return
	}
	_ = dst[2*n-2]
	v := 0
	switch curISA() {
	case isaAVX512:
		stride2AddAVX512(unsafe.SliceData(dst), unsafe.SliceData(src), n)
		return
	case isaAVX2:
		if v = (n - 1) &^ 7; v > 0 {
			stride2AddAVX2(unsafe.SliceData(dst), unsafe.SliceData(src), v)
		}
	}
	for i := v; i < n; i++ {
		dst[2*i] += src[i]
	}
}

// stride2AddKernel returns the vector stride-2 scatter-add, nil at generic.
func stride2AddKernel() func(dst, src []float32) {
	if curISA() < isaAVX2 {
		return nil
	}
	return stride2Add
}
