//go:build amd64 && !purego

#include "textflag.h"

// Strided row copies for im2col and col2im (im2col_amd64.go). Hand-written.

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

// stride2exp spreads 16 lanes over the even lanes of two vectors (lane
// 16 of the table pair is a zero vector's): 0, 16, 1, 16, …, 7, 16 then
// 8, 16, …, 15, 16.
DATA stride2exp<>+0(SB)/4, $0
DATA stride2exp<>+4(SB)/4, $16
DATA stride2exp<>+8(SB)/4, $1
DATA stride2exp<>+12(SB)/4, $16
DATA stride2exp<>+16(SB)/4, $2
DATA stride2exp<>+20(SB)/4, $16
DATA stride2exp<>+24(SB)/4, $3
DATA stride2exp<>+28(SB)/4, $16
DATA stride2exp<>+32(SB)/4, $4
DATA stride2exp<>+36(SB)/4, $16
DATA stride2exp<>+40(SB)/4, $5
DATA stride2exp<>+44(SB)/4, $16
DATA stride2exp<>+48(SB)/4, $6
DATA stride2exp<>+52(SB)/4, $16
DATA stride2exp<>+56(SB)/4, $7
DATA stride2exp<>+60(SB)/4, $16
DATA stride2exp<>+64(SB)/4, $8
DATA stride2exp<>+68(SB)/4, $16
DATA stride2exp<>+72(SB)/4, $9
DATA stride2exp<>+76(SB)/4, $16
DATA stride2exp<>+80(SB)/4, $10
DATA stride2exp<>+84(SB)/4, $16
DATA stride2exp<>+88(SB)/4, $11
DATA stride2exp<>+92(SB)/4, $16
DATA stride2exp<>+96(SB)/4, $12
DATA stride2exp<>+100(SB)/4, $16
DATA stride2exp<>+104(SB)/4, $13
DATA stride2exp<>+108(SB)/4, $16
DATA stride2exp<>+112(SB)/4, $14
DATA stride2exp<>+116(SB)/4, $16
DATA stride2exp<>+120(SB)/4, $15
DATA stride2exp<>+124(SB)/4, $16
GLOBL stride2exp<>(SB), RODATA|NOPTR, $128

// func stride2AddAVX512(dst, src *float32, n int)
// dst[2i] += src[i] for i < n (n ≥ 0); reads and writes only the even
// elements dst[0], dst[2], …, dst[2n-2] (masked stores), reads
// dst[0 .. 2n-2] and src[0 .. n-1].
TEXT ·stride2AddAVX512(SB), NOSPLIT, $0-24
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    n+16(FP), CX
	VMOVUPS stride2exp<>+0(SB), Z28
	VMOVUPS stride2exp<>+64(SB), Z29
	VXORPS  Z30, Z30, Z30
	MOVL    $0x5555, AX
	KMOVW   AX, K4              // even lanes

aloop:
	CMPQ      CX, $17
	JLT       atail
	VMOVUPS   (SI), Z1
	VMOVAPS   Z28, Z4
	VPERMI2PS Z30, Z1, Z4       // src 0..7 on even lanes
	VMOVAPS   Z29, Z5
	VPERMI2PS Z30, Z1, Z5       // src 8..15
	VMOVUPS   (DI), Z2
	VMOVUPS   64(DI), Z3
	VADDPS    Z4, Z2, Z2
	VADDPS    Z5, Z3, Z3
	VMOVUPS   Z2, K4, (DI)
	VMOVUPS   Z3, K4, 64(DI)
	ADDQ      $64, SI
	ADDQ      $128, DI
	SUBQ      $16, CX
	JMP       aloop

atail:
	// 0 ≤ CX ≤ 16 left: src lanes < CX, dst floats 2·CX-1
	TESTQ CX, CX
	JZ    adone
	MOVL  $1, AX
	SHLL  CX, AX
	DECL  AX
	KMOVW AX, K1                // src lanes < CX
	LEAQ  -1(CX)(CX*1), DX      // dst floats, 1..31
	MOVL  $0xffff, AX
	MOVL  $0, BX
	CMPQ  DX, $16
	JGE   atwo
	MOVQ  DX, CX
	MOVL  $1, AX
	SHLL  CX, AX
	DECL  AX
	JMP   aload

atwo:
	LEAQ -16(DX), CX
	MOVL $1, BX
	SHLL CX, BX
	DECL BX

aload:
	ANDL      $0x5555, AX
	ANDL      $0x5555, BX
	KMOVW     AX, K2
	KMOVW     BX, K3
	VMOVUPS.Z (SI), K1, Z1
	VMOVAPS   Z28, Z4
	VPERMI2PS Z30, Z1, Z4
	VMOVAPS   Z29, Z5
	VPERMI2PS Z30, Z1, Z5
	VMOVUPS.Z (DI), K2, Z2
	VMOVUPS.Z 64(DI), K3, Z3
	VADDPS    Z4, Z2, Z2
	VADDPS    Z5, Z3, Z3
	VMOVUPS   Z2, K2, (DI)
	VMOVUPS   Z3, K3, 64(DI)

adone:
	VZEROUPPER
	RET
