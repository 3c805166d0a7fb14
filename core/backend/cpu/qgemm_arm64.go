//go:build arm64 && !purego

package cpu

import (
	"encoding/binary"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// qgemmSDOT8x12 and qgemmSMLAL8x12 are the neon level's int8
// micro-kernels (qgemm_arm64.s, contract there): 8×12 int32 tiles in 24
// of the 32 V registers.
//
//go:noescape
func qgemmSDOT8x12(kp int, a, b *byte, c *int32, ldc int, accum, aSigned uint32)

//go:noescape
func qgemmSMLAL8x12(kp int, a, b *byte, c *int32, ldc int, accum uint32)

// qpackB4x12 and qpackB16x12 pack full 12-column B panels for the SDOT
// and the widening kernel (qgemm_arm64.s).
//
//go:noescape
func qpackB4x12(src *byte, ldb, groups int, flip uint32, dst *byte)

//go:noescape
func qpackB16x12(src *byte, ldb, rows int, signed uint32, dst *byte)

var (
	// qkernelSDOT multiplies bytes in groups of 4 k (the VNNI layouts) by
	// SDOT, signed × signed: the unsigned operand is packed less 128 (its
	// top bit flipped) and the kernel adds back 128·Σ of the signed one.
	qkernelSDOT = &qkernel{name: "neon-sdot", mr: 8, nr: 12, kg: 4, esize: 1,
		packA: flipUnsignedA(packA4(8), 8), packB: packB4Flip12,
		run: func(kp int, a, b []byte, c []int32, ldc int, accum, aSigned bool) {
			_, _ = a[8*kp-1], b[12*kp-1]
			qgemmSDOT8x12(kp, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc, b2u(accum), b2u(aSigned))
		}}
	// qkernelSMLAL is the kernel of processors without the dot product
	// (Cortex-A53, A72): operands widened to int16 while packing, one k
	// step after another, SMLAL/SMLAL2 by element into int32.
	qkernelSMLAL = &qkernel{name: "neon-smlal", mr: 8, nr: 12, kg: 2, esize: 2,
		packA: packA16(8), packB: packB16x12,
		run: func(kp int, a, b []byte, c []int32, ldc int, accum, _ bool) {
			_, _ = a[16*kp-1], b[24*kp-1]
			qgemmSMLAL8x12(kp, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc, b2u(accum))
		}}
	// qsdotOff makes processors with the dot product run the widening
	// kernel too (tests: both kernels on one processor).
	qsdotOff bool
)

// flip80 flips the top bit of every byte of s: uint8 v becomes the int8
// v−128.
func flip80(s []byte) {
	const top = 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		binary.LittleEndian.PutUint64(s[i:], binary.LittleEndian.Uint64(s[i:])^top)
	}
	for ; i < len(s); i++ {
		s[i] ^= 0x80
	}
}

// flipUnsignedA packs A by pack and, when A is unsigned, flips the whole
// panel's top bits. Padding (rows past m, k past kc) becomes −128 too; it
// meets B's zero padding or lands in rows that are dropped.
func flipUnsignedA(pack func(a []byte, lda int, signed bool, i0, rows, p0, kc, kcPad int, dst []byte), mr int) func(a []byte, lda int, signed bool, i0, rows, p0, kc, kcPad int, dst []byte) {
	return func(a []byte, lda int, signed bool, i0, rows, p0, kc, kcPad int, dst []byte) {
		pack(a, lda, signed, i0, rows, p0, kc, kcPad, dst)
		if !signed {
			flip80(dst[:mr*kcPad])
		}
	}
}

// flipByte is what packing xors an operand's bytes with: 0x80 (u − 128)
// for the unsigned one, 0 for the signed one.
func flipByte(signed bool) byte {
	if signed {
		return 0
	}
	return 0x80
}

// packB4Flip12 is packB4 for the SDOT kernel: 12 columns, unsigned bytes
// less 128; full panels by qpackB4x12. Its padding stays 0: it meets A's
// zero padding or lands in dropped columns.
var packB4Flip12 = packBGroups(12, 4, 1,
	func(src []byte, ldb, groups int, signed bool, dst []byte) {
		_ = src[(4*groups-1)*ldb+11]
		_ = dst[48*groups-1]
		qpackB4x12(unsafe.SliceData(src), ldb, groups, uint32(flipByte(signed)), unsafe.SliceData(dst))
	},
	func(src []byte, cols int, d []byte, signed bool) {
		x := flipByte(signed)
		for j, v := range src[:cols] {
			d[4*j] = v ^ x
		}
	})

// packA16 is the widening kernel's A layout: k step after k step, mr
// int16 (little-endian) each: element [p·mr + i] = A[i0+i, p0+p], zero
// past the rows and past kc.
func packA16(mr int) func(a []byte, lda int, signed bool, i0, rows, p0, kc, kcPad int, dst []byte) {
	return func(a []byte, lda int, signed bool, i0, rows, p0, kc, kcPad int, dst []byte) {
		clear(dst[:2*mr*kcPad])
		for i := range rows {
			for p, v := range a[(i0+i)*lda+p0:][:kc] {
				binary.LittleEndian.PutUint16(dst[2*(p*mr+i):], uint16(byteVal(v, signed)))
			}
		}
	}
}

// packB16x12 is the widening kernel's B layout: element [p·12 + j] =
// B[p0+p, j0+j] as int16; full panels by qpackB16x12, a run of evenly
// spaced rows at a time. What lies past cols or past kc is left as it
// was: it meets A's zero padding (packA16) or lands in dropped columns.
func packB16x12(b []byte, rows bRows, signed bool, p0, kc, kcPad, j0, cols int, dst []byte) {
	if cols == 12 {
		for p := 0; p < kc; {
			n, ld := rows.span(p0+p, kc-p)
			src := b[rows.at(p0+p)+j0:]
			_ = src[(n-1)*ld+11]
			_ = dst[24*(p+n)-1]
			qpackB16x12(unsafe.SliceData(src), ld, n, b2u(signed), &dst[24*p])
			p += n
		}
		return
	}
	for p := range kc {
		d := dst[24*p:][:2*cols]
		for j, v := range b[rows.at(p0+p)+j0:][:cols] {
			binary.LittleEndian.PutUint16(d[2*j:], uint16(byteVal(v, signed)))
		}
	}
}

// qkernelNarrow returns nil: SDOT and the widening kernel take any int8.
func qkernelNarrow(*qkernel) *qkernel { return nil }

// qkernelFor returns the int8 kernel of the instruction set is (nil: the
// generic Go loops): at neon, SDOT when the processor has the dot product
// (FEAT_DotProd, cpu.ARM64.HasASIMDDP), else the widening kernel.
func qkernelFor(is isa) *qkernel {
	switch {
	case is < isaNEON:
		return nil
	case cpu.ARM64.HasASIMDDP && !qsdotOff:
		return qkernelSDOT
	}
	return qkernelSMLAL
}

// QKernel names the int8 GEMM kernel of the active level.
func QKernel() string {
	if k := qkernelFor(curISA()); k != nil {
		return k.name
	}
	return "generic"
}

// interleave4Kernel returns nil: no vector 4-row byte interleave here
// (core/op's Go loop runs; no level here reads B grouped in place).
func interleave4Kernel() func(dst, src []byte, ld, n int) int { return nil }
