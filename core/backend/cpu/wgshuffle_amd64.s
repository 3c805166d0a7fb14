//go:build amd64 && !purego

#include "textflag.h"

// Stride-4 (de)interleaves for the Winograd tile transforms
// (winograd_shuffle.go). Hand-written. Lanes are picked from pairs of
// vectors by VPERMI2PS with four index vectors: E = 0, 2, …, 30 (even
// lanes), O = 1, 3, …, 31 (odd lanes), L = 0, 16, 1, 17, …, 7, 23 and
// H = 8, 24, …, 15, 31 (the lanes of the first and second halves,
// alternating between the two vectors).

DATA wgshuf<>+0(SB)/4, $0
DATA wgshuf<>+4(SB)/4, $2
DATA wgshuf<>+8(SB)/4, $4
DATA wgshuf<>+12(SB)/4, $6
DATA wgshuf<>+16(SB)/4, $8
DATA wgshuf<>+20(SB)/4, $10
DATA wgshuf<>+24(SB)/4, $12
DATA wgshuf<>+28(SB)/4, $14
DATA wgshuf<>+32(SB)/4, $16
DATA wgshuf<>+36(SB)/4, $18
DATA wgshuf<>+40(SB)/4, $20
DATA wgshuf<>+44(SB)/4, $22
DATA wgshuf<>+48(SB)/4, $24
DATA wgshuf<>+52(SB)/4, $26
DATA wgshuf<>+56(SB)/4, $28
DATA wgshuf<>+60(SB)/4, $30
DATA wgshuf<>+64(SB)/4, $1
DATA wgshuf<>+68(SB)/4, $3
DATA wgshuf<>+72(SB)/4, $5
DATA wgshuf<>+76(SB)/4, $7
DATA wgshuf<>+80(SB)/4, $9
DATA wgshuf<>+84(SB)/4, $11
DATA wgshuf<>+88(SB)/4, $13
DATA wgshuf<>+92(SB)/4, $15
DATA wgshuf<>+96(SB)/4, $17
DATA wgshuf<>+100(SB)/4, $19
DATA wgshuf<>+104(SB)/4, $21
DATA wgshuf<>+108(SB)/4, $23
DATA wgshuf<>+112(SB)/4, $25
DATA wgshuf<>+116(SB)/4, $27
DATA wgshuf<>+120(SB)/4, $29
DATA wgshuf<>+124(SB)/4, $31
DATA wgshuf<>+128(SB)/4, $0
DATA wgshuf<>+132(SB)/4, $16
DATA wgshuf<>+136(SB)/4, $1
DATA wgshuf<>+140(SB)/4, $17
DATA wgshuf<>+144(SB)/4, $2
DATA wgshuf<>+148(SB)/4, $18
DATA wgshuf<>+152(SB)/4, $3
DATA wgshuf<>+156(SB)/4, $19
DATA wgshuf<>+160(SB)/4, $4
DATA wgshuf<>+164(SB)/4, $20
DATA wgshuf<>+168(SB)/4, $5
DATA wgshuf<>+172(SB)/4, $21
DATA wgshuf<>+176(SB)/4, $6
DATA wgshuf<>+180(SB)/4, $22
DATA wgshuf<>+184(SB)/4, $7
DATA wgshuf<>+188(SB)/4, $23
DATA wgshuf<>+192(SB)/4, $8
DATA wgshuf<>+196(SB)/4, $24
DATA wgshuf<>+200(SB)/4, $9
DATA wgshuf<>+204(SB)/4, $25
DATA wgshuf<>+208(SB)/4, $10
DATA wgshuf<>+212(SB)/4, $26
DATA wgshuf<>+216(SB)/4, $11
DATA wgshuf<>+220(SB)/4, $27
DATA wgshuf<>+224(SB)/4, $12
DATA wgshuf<>+228(SB)/4, $28
DATA wgshuf<>+232(SB)/4, $13
DATA wgshuf<>+236(SB)/4, $29
DATA wgshuf<>+240(SB)/4, $14
DATA wgshuf<>+244(SB)/4, $30
DATA wgshuf<>+248(SB)/4, $15
DATA wgshuf<>+252(SB)/4, $31
GLOBL wgshuf<>(SB), RODATA|NOPTR, $256

// func wgDeint4AVX512(src, dst *float32, ldd, groups int)
// dst[m*ldd + k] = src[4k + m] for m < 4, k < 16·groups: reads 64·groups
// floats of src.
TEXT ·wgDeint4AVX512(SB), NOSPLIT, $0-32
	MOVQ    src+0(FP), SI
	MOVQ    dst+8(FP), DI
	MOVQ    ldd+16(FP), DX
	MOVQ    groups+24(FP), CX
	SHLQ    $2, DX
	VMOVUPS wgshuf<>+0(SB), Z28  // E
	VMOVUPS wgshuf<>+64(SB), Z29 // O
	LEAQ    (DI)(DX*2), R8       // plane 2
	TESTQ   CX, CX
	JZ      ddone

dloop:
	VMOVUPS   (SI), Z0
	VMOVUPS   64(SI), Z1
	VMOVUPS   128(SI), Z2
	VMOVUPS   192(SI), Z3
	VMOVAPS   Z28, Z4
	VPERMI2PS Z1, Z0, Z4  // x0, x2, …, x30
	VMOVAPS   Z29, Z5
	VPERMI2PS Z1, Z0, Z5  // x1, x3, …, x31
	VMOVAPS   Z28, Z6
	VPERMI2PS Z3, Z2, Z6  // x32, x34, …, x62
	VMOVAPS   Z29, Z7
	VPERMI2PS Z3, Z2, Z7  // x33, x35, …, x63
	VMOVAPS   Z28, Z8
	VPERMI2PS Z6, Z4, Z8  // phase 0: x0, x4, …, x60
	VMOVAPS   Z29, Z9
	VPERMI2PS Z6, Z4, Z9  // phase 2
	VMOVAPS   Z28, Z10
	VPERMI2PS Z7, Z5, Z10 // phase 1
	VMOVAPS   Z29, Z11
	VPERMI2PS Z7, Z5, Z11 // phase 3
	VMOVUPS   Z8, (DI)
	VMOVUPS   Z10, (DI)(DX*1)
	VMOVUPS   Z9, (R8)
	VMOVUPS   Z11, (R8)(DX*1)
	ADDQ      $256, SI
	ADDQ      $64, DI
	ADDQ      $64, R8
	DECQ      CX
	JNZ       dloop

ddone:
	VZEROUPPER
	RET

// func wgInt4AVX512(src *float32, lds int, dst *float32, groups int)
// dst[4k + m] = src[m*lds + k] for m < 4, k < 16·groups: writes 64·groups
// floats of dst.
TEXT ·wgInt4AVX512(SB), NOSPLIT, $0-32
	MOVQ    src+0(FP), SI
	MOVQ    lds+8(FP), DX
	MOVQ    dst+16(FP), DI
	MOVQ    groups+24(FP), CX
	SHLQ    $2, DX
	VMOVUPS wgshuf<>+128(SB), Z28 // L
	VMOVUPS wgshuf<>+192(SB), Z29 // H
	LEAQ    (SI)(DX*2), R8        // plane 2
	TESTQ   CX, CX
	JZ      idone

iloop:
	VMOVUPS   (SI), Z0        // p0
	VMOVUPS   (SI)(DX*1), Z1  // p1
	VMOVUPS   (R8), Z2        // p2
	VMOVUPS   (R8)(DX*1), Z3  // p3
	VMOVAPS   Z28, Z4
	VPERMI2PS Z2, Z0, Z4  // y0, y2, …, y30
	VMOVAPS   Z29, Z5
	VPERMI2PS Z2, Z0, Z5  // y32, y34, …, y62
	VMOVAPS   Z28, Z6
	VPERMI2PS Z3, Z1, Z6  // y1, y3, …, y31
	VMOVAPS   Z29, Z7
	VPERMI2PS Z3, Z1, Z7  // y33, …, y63
	VMOVAPS   Z28, Z8
	VPERMI2PS Z6, Z4, Z8  // y0..y15
	VMOVAPS   Z29, Z9
	VPERMI2PS Z6, Z4, Z9  // y16..y31
	VMOVAPS   Z28, Z10
	VPERMI2PS Z7, Z5, Z10 // y32..y47
	VMOVAPS   Z29, Z11
	VPERMI2PS Z7, Z5, Z11 // y48..y63
	VMOVUPS   Z8, (DI)
	VMOVUPS   Z9, 64(DI)
	VMOVUPS   Z10, 128(DI)
	VMOVUPS   Z11, 192(DI)
	ADDQ      $64, SI
	ADDQ      $64, R8
	ADDQ      $256, DI
	DECQ      CX
	JNZ       iloop

idone:
	VZEROUPPER
	RET
