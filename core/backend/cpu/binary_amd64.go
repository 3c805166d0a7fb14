//go:build amd64 && !purego

package cpu

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The vector rows of binary_amd64.s.
//
//go:noescape
func addVVAVX512(o, a, b *float32, n int)

//go:noescape
func mulVVAVX512(o, a, b *float32, n int)

//go:noescape
func addVSAVX512(o, a *float32, n int, s float32)

//go:noescape
func mulVSAVX512(o, a *float32, n int, s float32)

// vecRow is op.VecRow32 on AVX-512: o = a + b or a · b with b a row (sb =
// 1) or one value repeated (sb = 0).
func vecRow(code byte, o, a, b []float32, sb int) bool {
	n := len(o)
	if n == 0 {
		return true
	}
	a = a[:n]
	po, pa := unsafe.SliceData(o), unsafe.SliceData(a)
	switch {
	case sb == 1 && code == '+':
		addVVAVX512(po, pa, unsafe.SliceData(b[:n]), n)
	case sb == 1 && code == '*':
		mulVVAVX512(po, pa, unsafe.SliceData(b[:n]), n)
	case sb == 0 && code == '+':
		addVSAVX512(po, pa, n, b[0])
	case sb == 0 && code == '*':
		mulVSAVX512(po, pa, n, b[0])
	default:
		return false
	}
	return true
}

// vecRowKernel returns the vector add/mul rows, or nil without AVX-512.
func vecRowKernel() func(code byte, o, a, b []float32, sb int) bool {
	if !cpu.X86.HasAVX512F || !cpu.X86.HasBMI2 {
		return nil
	}
	return vecRow
}
