//go:build amd64 && !purego

#include "textflag.h"

// 2×2 stride-2 max pooling rows (maxpool_amd64.go). Hand-written.

// mpEven and mpOdd hold 0, 2, …, 30 and 1, 3, …, 31: VPERMI2PS picks the
// even and the odd lanes of two 16-lane vectors.
DATA mpEven<>+0(SB)/4, $0
DATA mpEven<>+4(SB)/4, $2
DATA mpEven<>+8(SB)/4, $4
DATA mpEven<>+12(SB)/4, $6
DATA mpEven<>+16(SB)/4, $8
DATA mpEven<>+20(SB)/4, $10
DATA mpEven<>+24(SB)/4, $12
DATA mpEven<>+28(SB)/4, $14
DATA mpEven<>+32(SB)/4, $16
DATA mpEven<>+36(SB)/4, $18
DATA mpEven<>+40(SB)/4, $20
DATA mpEven<>+44(SB)/4, $22
DATA mpEven<>+48(SB)/4, $24
DATA mpEven<>+52(SB)/4, $26
DATA mpEven<>+56(SB)/4, $28
DATA mpEven<>+60(SB)/4, $30
GLOBL mpEven<>(SB), RODATA|NOPTR, $64

DATA mpOdd<>+0(SB)/4, $1
DATA mpOdd<>+4(SB)/4, $3
DATA mpOdd<>+8(SB)/4, $5
DATA mpOdd<>+12(SB)/4, $7
DATA mpOdd<>+16(SB)/4, $9
DATA mpOdd<>+20(SB)/4, $11
DATA mpOdd<>+24(SB)/4, $13
DATA mpOdd<>+28(SB)/4, $15
DATA mpOdd<>+32(SB)/4, $17
DATA mpOdd<>+36(SB)/4, $19
DATA mpOdd<>+40(SB)/4, $21
DATA mpOdd<>+44(SB)/4, $23
DATA mpOdd<>+48(SB)/4, $25
DATA mpOdd<>+52(SB)/4, $27
DATA mpOdd<>+56(SB)/4, $29
DATA mpOdd<>+60(SB)/4, $31
GLOBL mpOdd<>(SB), RODATA|NOPTR, $64

// func maxPool2x2AVX512(dst, r0, r1 *float32, n int)
// dst[i] = the max of r0[2i], r0[2i+1], r1[2i], r1[2i+1] for i < n (n a
// multiple of 16), taken in that order as op's maxPool2x2 does: a later
// value v replaces the running max m when v > m or v is a NaN (so the last
// NaN wins and ties keep the first value).
TEXT ·maxPool2x2AVX512(SB), NOSPLIT, $0-32
	MOVQ    dst+0(FP), DI
	MOVQ    r0+8(FP), SI
	MOVQ    r1+16(FP), DX
	MOVQ    n+24(FP), CX
	VMOVUPS mpEven<>+0(SB), Z30
	VMOVUPS mpOdd<>+0(SB), Z31

loop:
	CMPQ      CX, $16
	JLT       done
	VMOVUPS   (SI), Z0
	VMOVUPS   64(SI), Z1
	VMOVUPS   (DX), Z2
	VMOVUPS   64(DX), Z3
	VMOVAPS   Z30, Z4
	VPERMI2PS Z1, Z0, Z4        // r0 even: the running max
	VMOVAPS   Z31, Z5
	VPERMI2PS Z1, Z0, Z5        // r0 odd
	VMOVAPS   Z30, Z6
	VPERMI2PS Z3, Z2, Z6        // r1 even
	VMOVAPS   Z31, Z7
	VPERMI2PS Z3, Z2, Z7        // r1 odd
	VCMPPS    $0x1e, Z4, Z5, K1 // v > m (ordered)
	VCMPPS    $0x03, Z5, Z5, K2 // v is a NaN
	KORW      K2, K1, K1
	VMOVAPS   Z5, K1, Z4
	VCMPPS    $0x1e, Z4, Z6, K1
	VCMPPS    $0x03, Z6, Z6, K2
	KORW      K2, K1, K1
	VMOVAPS   Z6, K1, Z4
	VCMPPS    $0x1e, Z4, Z7, K1
	VCMPPS    $0x03, Z7, Z7, K2
	KORW      K2, K1, K1
	VMOVAPS   Z7, K1, Z4
	VMOVUPS   Z4, (DI)
	ADDQ      $128, SI
	ADDQ      $128, DX
	ADDQ      $64, DI
	SUBQ      $16, CX
	JMP       loop

done:
	VZEROUPPER
	RET
