//go:build amd64 && !purego

#include "textflag.h"

// Max pooling's backward (pooltrain_amd64.go). Hand-written, AVX2 only
// (it runs at the avx2 and avx512 levels).

// func maxPool2x2GradAVX2(d0, d1, r0, r1, dy *float32, n int)
// For i < n (n a multiple of 8): the window r0[2i], r0[2i+1], r1[2i],
// r1[2i+1] is scanned in that order as op's maxPool2x2 does (a later value
// v wins when v > the running max or v is a NaN), and d0[2i], d0[2i+1],
// d1[2i], d1[2i+1] get 0+dy[i] at the winner and +0 elsewhere.
//
// Registers: Y0–Y3 the two rows' 16 inputs, Y4–Y7 their even/odd lanes a,
// b, c, d (outputs in the order 0 1 4 5 | 2 3 6 7 that VSHUFPS leaves),
// Y8/Y9/Y11 "b/c/d takes over" masks, Y10 the running max, Y12/Y13 the c
// and b winner masks, Y14 dy in the same lane order, Y15 zero.
TEXT ·maxPool2x2GradAVX2(SB), NOSPLIT, $0-48
	MOVQ   d0+0(FP), DI
	MOVQ   d1+8(FP), R8
	MOVQ   r0+16(FP), SI
	MOVQ   r1+24(FP), DX
	MOVQ   dy+32(FP), BX
	MOVQ   n+40(FP), CX
	VXORPS Y15, Y15, Y15

loop:
	CMPQ    CX, $8
	JLT     done
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS (DX), Y2
	VMOVUPS 32(DX), Y3
	VSHUFPS $0x88, Y1, Y0, Y4 // a = r0[2i]
	VSHUFPS $0xdd, Y1, Y0, Y5 // b = r0[2i+1]
	VSHUFPS $0x88, Y3, Y2, Y6 // c = r1[2i]
	VSHUFPS $0xdd, Y3, Y2, Y7 // d = r1[2i+1]

	VCMPPS    $0x1e, Y4, Y5, Y8 // t1 = b > a
	VCMPPS    $3, Y5, Y5, Y9    // or b is a NaN
	VORPS     Y9, Y8, Y8
	VBLENDVPS Y8, Y5, Y4, Y10   // m = t1 ? b : a
	VCMPPS    $0x1e, Y10, Y6, Y9 // t2 = c > m
	VCMPPS    $3, Y6, Y6, Y11
	VORPS     Y11, Y9, Y9
	VBLENDVPS Y9, Y6, Y10, Y10
	VCMPPS    $0x1e, Y10, Y7, Y11 // t3 = d > m: d wins
	VCMPPS    $3, Y7, Y7, Y12
	VORPS     Y12, Y11, Y11

	VANDNPS Y9, Y11, Y12 // c wins: t2 &^ t3
	VORPS   Y9, Y11, Y9  // t2 | t3
	VANDNPS Y8, Y9, Y13  // b wins: t1 &^ (t2|t3)
	VORPS   Y8, Y9, Y8   // a wins where none of t1, t2, t3

	VPERMPD $0xd8, (BX), Y14 // dy as 0 1 4 5 | 2 3 6 7
	VADDPS  Y15, Y14, Y14    // 0+dy, as the scalar dx[at] += dy on a cleared dx
	VANDNPS Y14, Y8, Y0
	VANDPS  Y14, Y13, Y1
	VANDPS  Y14, Y12, Y2
	VANDPS  Y14, Y11, Y3

	VUNPCKLPS Y1, Y0, Y4 // a b interleaved: r0's columns 0–7
	VUNPCKHPS Y1, Y0, Y5 // and 8–15
	VUNPCKLPS Y3, Y2, Y6
	VUNPCKHPS Y3, Y2, Y7
	VMOVUPS   Y4, (DI)
	VMOVUPS   Y5, 32(DI)
	VMOVUPS   Y6, (R8)
	VMOVUPS   Y7, 32(R8)

	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $64, DI
	ADDQ $64, R8
	ADDQ $32, BX
	SUBQ $8, CX
	JMP  loop

done:
	VZEROUPPER
	RET
