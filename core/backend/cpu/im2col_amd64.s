//go:build amd64 && !purego

#include "textflag.h"

// Strided row copies for im2col (im2col_amd64.go). Hand-written.

// stride2idx holds 0, 2, …, 30: VPERMT2PS picks the even lanes of two
// 16-lane vectors.
DATA stride2idx<>+0(SB)/4, $0
DATA stride2idx<>+4(SB)/4, $2
DATA stride2idx<>+8(SB)/4, $4
DATA stride2idx<>+12(SB)/4, $6
DATA stride2idx<>+16(SB)/4, $8
DATA stride2idx<>+20(SB)/4, $10
DATA stride2idx<>+24(SB)/4, $12
DATA stride2idx<>+28(SB)/4, $14
DATA stride2idx<>+32(SB)/4, $16
DATA stride2idx<>+36(SB)/4, $18
DATA stride2idx<>+40(SB)/4, $20
DATA stride2idx<>+44(SB)/4, $22
DATA stride2idx<>+48(SB)/4, $24
DATA stride2idx<>+52(SB)/4, $26
DATA stride2idx<>+56(SB)/4, $28
DATA stride2idx<>+60(SB)/4, $30
GLOBL stride2idx<>(SB), RODATA|NOPTR, $64

// func stride2AVX512(dst, src *float32, n int)
// dst[i] = src[2i] for i < n (n ≥ 0); reads only src[0 .. 2n-2] (masked
// loads on the last group), writes only dst[0 .. n-1].
TEXT ·stride2AVX512(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VMOVDQU32 stride2idx<>(SB), Z0

loop:
	// a full group of 16 needs src[0..31]; the last one may have only 31
	CMPQ CX, $17
	JLT  tail
	VMOVUPS   (SI), Z1
	VMOVUPS   64(SI), Z2
	VPERMT2PS Z2, Z0, Z1
	VMOVUPS   Z1, (DI)
	ADDQ      $128, SI
	ADDQ      $64, DI
	SUBQ      $16, CX
	JMP       loop

tail:
	// 0 ≤ CX ≤ 16 outputs left, reading 2·CX-1 floats
	TESTQ CX, CX
	JZ    done
	MOVL  $1, AX
	SHLL  CX, AX
	DECL  AX
	KMOVW AX, K1                // store lanes < CX
	LEAQ  -1(CX)(CX*1), DX      // floats to read, 1..31
	MOVL  $0xffff, AX
	MOVL  $0, BX
	CMPQ  DX, $16
	JGE   two
	MOVQ  DX, CX
	MOVL  $1, AX
	SHLL  CX, AX
	DECL  AX                    // first vector: lanes < DX
	JMP   load

two:
	LEAQ -16(DX), CX
	MOVL $1, BX
	SHLL CX, BX
	DECL BX                     // second vector: lanes < DX-16

load:
	KMOVW     AX, K2
	KMOVW     BX, K3
	VMOVUPS.Z (SI), K2, Z1
	VMOVUPS.Z 64(SI), K3, Z2
	VPERMT2PS Z2, Z0, Z1
	VMOVUPS   Z1, K1, (DI)

done:
	VZEROUPPER
	RET
