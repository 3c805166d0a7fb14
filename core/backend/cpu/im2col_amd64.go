//go:build amd64 && !purego

package cpu

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// stride2AVX512: see im2col_amd64.s.
//
//go:noescape
func stride2AVX512(dst, src *float32, n int)

// stride2Copy is op.Stride2Copy32 on AVX-512: dst[i] = src[2i].
func stride2Copy(dst, src []float32) {
	n := len(dst)
	if n == 0 {
		return
	}
	_ = src[2*n-2]
	stride2AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), n)
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

// stride2Kernel returns the vector stride-2 copy, or nil without AVX-512.
func stride2Kernel() func(dst, src []float32) {
	if !cpu.X86.HasAVX512F {
		return nil
	}
	return stride2Copy
}
