//go:build amd64 && !purego

package cpu

import (
	"unsafe"

	"paddle/core/op"
)

// The vector rows of the int8 ops' quantize and dequantize steps
// (op.Kernels.Quantize8 and DequantRow32), qquant_amd64.s.

//go:noescape
func quantRowAVX512(dst *byte, src *float32, n int, scale, zero, lo, hi float32)

//go:noescape
func quantRowAVX2(dst *byte, src *float32, n int, scale, zero, lo, hi float32)

//go:noescape
func requantRowAVX512(dst *byte, src *float32, n int, inv, zero, lo, hi float32)

//go:noescape
func requantRowAVX2(dst *byte, src *float32, n int, inv, zero, lo, hi float32)

//go:noescape
func dequantRowAVX512(v *float32, acc *int32, n int, ib int32, m, b, lo, hi float32)

//go:noescape
func dequantRowAVX2(v *float32, acc *int32, n int, ib int32, m, b, lo, hi float32)

//go:noescape
func dequantHSRowAVX512(v *float32, acc *int32, n int, ib int32, m, b float32)

//go:noescape
func dequantHSRowAVX2(v *float32, acc *int32, n int, ib int32, m, b float32)

// dequantCols*: op.Kernels.DequantCols32's rows (ib, b nil: none).
//
//go:noescape
func dequantColsAVX512(v *float32, acc, ib *int32, m, b *float32, n int)

//go:noescape
func dequantColsAVX2(v *float32, acc, ib *int32, m, b *float32, n int)

// dequantCols is op.Kernels.DequantCols32 at the avx2 and avx512 levels:
// the whole row at avx512 (its rows end under a mask), a multiple of 8
// at avx2.
func dequantCols(v []float32, acc, ib []int32, m, b []float32) int {
	n := min(len(v), len(acc), len(m))
	if ib != nil {
		n = min(n, len(ib))
	}
	if b != nil {
		n = min(n, len(b))
	}
	f := dequantColsAVX512
	if curISA() != isaAVX512 {
		f, n = dequantColsAVX2, n&^7
	}
	if n > 0 {
		f(unsafe.SliceData(v), unsafe.SliceData(acc), unsafe.SliceData(ib), unsafe.SliceData(m), unsafe.SliceData(b), n)
	}
	return n
}

// The fused requantizing epilogue rows (op.Kernels.QEpilogueRow8): with
// a clamp, and with hardswish on op.QEpilogue8.HardSwishFold's constants.
//
//go:noescape
func qepiRowAVX512(dst *byte, acc *int32, n int, ib int32, m, b, lo, hi, pm, pa, inv, z, qlo, qhi float32)

//go:noescape
func qepiRowAVX2(dst *byte, acc *int32, n int, ib int32, m, b, lo, hi, pm, pa, inv, z, qlo, qhi float32)

//go:noescape
func qepiHSRowAVX512(dst *byte, acc *int32, n int, m, b3, k, k3, pz, qlo, qhi float32)

//go:noescape
func qepiHSRowAVX2(dst *byte, acc *int32, n int, m, b3, k, k3, pz, qlo, qhi float32)

// qepiRow is op.Kernels.QEpilogueRow8 at the avx2 and avx512 levels:
// the whole row at avx512 (its rows end under a mask), a multiple of 16
// at avx2.
func qepiRow(dst []byte, acc []int32, p *op.QEpilogue8) int {
	avx512 := curISA() == isaAVX512
	if p.HardSwish {
		return qepiHSRow(dst, acc, p, avx512)
	}
	f, step := qepiRowAVX2, 16
	if avx512 {
		f, step = qepiRowAVX512, 1
		if !(smallInt(p.Zero) && smallInt(p.QLo) && smallInt(p.QHi)) {
			return 0 // the avx512 rows requantize in integers (EPI512_REQNA)
		}
	}
	n := min(len(dst), len(acc)) / step * step
	if n > 0 {
		f(unsafe.SliceData(dst), unsafe.SliceData(acc), n, p.IB, p.M, p.B, p.Lo, p.Hi, p.PostMul, p.PostAdd, p.Inv, p.Zero, p.QLo, p.QHi)
	}
	return n
}

// qepiHSRow is qepiRow with hardswish, on the whole row at both levels:
// at avx2 the last 1–15 through a zero-padded block of 16 (core/op's loop
// would emulate its fused multiply-adds in float64). Its rows clamp with
// saturating packs, so they take only the output type's whole range (the
// int8 ops' epilogue always has it).
func qepiHSRow(dst []byte, acc []int32, p *op.QEpilogue8, avx512 bool) int {
	if !(p.QLo == 0 && p.QHi == 255 || p.QLo == -128 && p.QHi == 127) {
		return 0
	}
	f, step := qepiHSRowAVX2, 16
	if avx512 {
		f, step = qepiHSRowAVX512, 1
	}
	n := min(len(dst), len(acc))
	m, b3, k, k3, pz := p.HardSwishFold()
	if full := n / step * step; full > 0 {
		f(unsafe.SliceData(dst), unsafe.SliceData(acc), full, m, b3, k, k3, pz, p.QLo, p.QHi)
	}
	if r := n % step; r > 0 {
		var a [16]int32
		var d [16]byte
		copy(a[:], acc[n-r:n])
		f(&d[0], &a[0], 16, m, b3, k, k3, pz, p.QLo, p.QHi)
		copy(dst[n-r:n], d[:r])
	}
	return n
}

// smallInt reports whether x is an integer of magnitude at most 2¹⁶ (a
// zero point or a bound of an 8-bit type always is).
func smallInt(x float32) bool { return x == float32(int32(x)) && x >= -1<<16 && x <= 1<<16 }

// quantRow is op.Kernels.Quantize8 at the avx2 and avx512 levels (the
// whole row at avx512, whose rows end under a mask).
func quantRow(dst []byte, src []float32, scale, zero float32, signed bool) int {
	if curISA() != isaAVX512 {
		return quantRowWith(quantRowAVX2, 16, dst, src, scale, zero, signed)
	}
	return quantRowWith(quantRowAVX512, 1, dst, src, scale, zero, signed)
}

// requantRow is op.Kernels.Requantize8 at the avx2 and avx512 levels (the
// whole row at avx512).
func requantRow(dst []byte, src []float32, inv, zero float32, signed bool) int {
	if curISA() != isaAVX512 {
		return quantRowWith(requantRowAVX2, 16, dst, src, inv, zero, signed)
	}
	return quantRowWith(requantRowAVX512, 1, dst, src, inv, zero, signed)
}

// quantRowWith runs the row kernel f (step elements per iteration) on the
// longest prefix it takes and returns its length.
func quantRowWith(f func(dst *byte, src *float32, n int, s, zero, lo, hi float32), step int, dst []byte, src []float32, s, zero float32, signed bool) int {
	lo, hi := float32(0), float32(255)
	if signed {
		lo, hi = -128, 127
	}
	n := min(len(dst), len(src)) / step * step
	if n > 0 {
		f(unsafe.SliceData(dst), unsafe.SliceData(src), n, s, zero, lo, hi)
	}
	return n
}

// dequantRow is op.Kernels.DequantRow32 at the avx2 and avx512 levels.
func dequantRow(v []float32, acc []int32, ib int32, m, b, lo, hi float32, hardswish bool) int {
	avx512 := curISA() == isaAVX512
	step := 16
	if avx512 {
		step = 1 // its rows end under a mask
	}
	n := min(len(v), len(acc)) / step * step
	if n == 0 {
		return 0
	}
	pv, pa := unsafe.SliceData(v), unsafe.SliceData(acc)
	switch {
	case hardswish && avx512:
		dequantHSRowAVX512(pv, pa, n, ib, m, b)
	case hardswish:
		dequantHSRowAVX2(pv, pa, n, ib, m, b)
	case avx512:
		dequantRowAVX512(pv, pa, n, ib, m, b, lo, hi)
	default:
		dequantRowAVX2(pv, pa, n, ib, m, b, lo, hi)
	}
	return n
}

// quantKernels installs the quantize/dequantize rows (none at generic).
func quantKernels(k *op.Kernels) {
	if curISA() < isaAVX2 {
		return
	}
	k.Quantize8, k.Requantize8, k.DequantRow32, k.QEpilogueRow8 = quantRow, requantRow, dequantRow, qepiRow
	k.DequantCols32 = dequantCols
}
