//go:build amd64 && !purego

#include "textflag.h"

// Strided row copies for im2col and col2im (im2col_amd64.go). Hand-written.

// stride2idx holds 0, 2, …, 30: VPERMT2PS picks the even lanes of two
// 16-lane vectors (stride2RowsAVX512).
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

// func stride2RowsAVX512(dst *float32, ldd int, src *float32, lds, n, rows int)
// dst[r*ldd + i] = src[r*lds + 2i] for r < rows, i < n (n ≥ 1): the
// stride2AVX512 copy row after row, reading only src[r*lds .. r*lds+2n-2].
TEXT ·stride2RowsAVX512(SB), NOSPLIT, $0-48
	MOVQ      dst+0(FP), DI
	MOVQ      ldd+8(FP), R8
	MOVQ      src+16(FP), SI
	MOVQ      lds+24(FP), R9
	MOVQ      n+32(FP), R10
	MOVQ      rows+40(FP), R11
	SHLQ      $2, R8
	SHLQ      $2, R9
	VMOVDQU32 stride2idx<>(SB), Z0

	// G = (n-1)/16 full groups, then a tail of r = n-16G in 1..16
	LEAQ -1(R10), R12
	SHRQ $4, R12
	MOVQ R12, CX
	SHLQ $4, CX
	SUBQ CX, R10                // r
	MOVQ R10, CX
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1                // store lanes < r
	LEAQ -1(R10)(R10*1), DX     // floats to read, 1..31
	MOVL $0xffff, AX
	MOVL $0, BX
	CMPQ DX, $16
	JGE  rtwo
	MOVQ DX, CX
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	JMP  rmasks

rtwo:
	LEAQ -16(DX), CX
	MOVL $1, BX
	SHLL CX, BX
	DECL BX

rmasks:
	KMOVW AX, K2
	KMOVW BX, K3
	TESTQ R11, R11
	JZ    rdone

rrow:
	MOVQ SI, AX
	MOVQ DI, BX
	MOVQ R12, CX

rgroup:
	TESTQ     CX, CX
	JZ        rtail
	VMOVUPS   (AX), Z1
	VMOVUPS   64(AX), Z2
	VPERMT2PS Z2, Z0, Z1
	VMOVUPS   Z1, (BX)
	ADDQ      $128, AX
	ADDQ      $64, BX
	DECQ      CX
	JMP       rgroup

rtail:
	VMOVUPS.Z (AX), K2, Z1
	VMOVUPS.Z 64(AX), K3, Z2
	VPERMT2PS Z2, Z0, Z1
	VMOVUPS   Z1, K1, (BX)
	ADDQ      R9, SI
	ADDQ      R8, DI
	DECQ      R11
	JNZ       rrow

rdone:
	VZEROUPPER
	RET
