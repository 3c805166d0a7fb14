//go:build amd64 && !purego

package cpu

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// stride2RowsAVX512: see im2col_amd64.s.
//
//go:noescape
func stride2RowsAVX512(dst *float32, ldd int, src *float32, lds, n, rows int)

// stride2Rows is op.Stride2Rows32 on AVX-512: dst[r*ldd+i] = src[r*lds+2i].
func stride2Rows(dst []float32, ldd int, src []float32, lds, n, rows int) {
	if n <= 0 || rows <= 0 {
		return
	}
	_ = dst[(rows-1)*ldd+n-1]
	_ = src[(rows-1)*lds+2*n-2]
	stride2RowsAVX512(unsafe.SliceData(dst), ldd, unsafe.SliceData(src), lds, n, rows)
}

// stride2RowsKernel returns the vector stride-2 row gather, or nil
// without AVX-512.
func stride2RowsKernel() func(dst []float32, ldd int, src []float32, lds, n, rows int) {
	if !cpu.X86.HasAVX512F {
		return nil
	}
	return stride2Rows
}

// stride2AddAVX512: see im2col_amd64.s.
//
//go:noescape
func stride2AddAVX512(dst, src *float32, n int)

// stride2Add is op.Stride2Add32 on AVX-512: dst[2i] += src[i].
func stride2Add(dst, src []float32) {
	n := len(src)
	if n == 0 {
		return
	}
	_ = dst[2*n-2]
	stride2AddAVX512(unsafe.SliceData(dst), unsafe.SliceData(src), n)
}

// stride2AddKernel returns the vector stride-2 scatter-add, or nil
// without AVX-512.
func stride2AddKernel() func(dst, src []float32) {
	if !cpu.X86.HasAVX512F {
		return nil
	}
	return stride2Add
}
