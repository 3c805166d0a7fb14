//go:build amd64 && !purego

#include "textflag.h"

// Elementwise float32 activations (act_amd64.go). Hand-written, not
// generated. Every lane computes exactly what the Go reference computes:
// hardswish y = x·c/6 with c = min(max(x+3, 0), 6) taken on the bits of
// x+3 (sign mask, then an unsigned min with the bits of 6); hardsigmoid
// y = min(max(α·x+β, 0), 1) with Go's min/max semantics (NaN stays NaN,
// -0 becomes +0).

// func hardswishAVX512(y, x *float32, n int)
TEXT ·hardswishAVX512(SB), NOSPLIT, $0-24
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL $0x40400000, AX // 3
	VPBROADCASTD AX, Z1
	MOVL $0x40c00000, AX // 6
	VPBROADCASTD AX, Z2

hs512loop:
	CMPQ CX, $32
	JLT  hs512one
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z5
	VADDPS  Z1, Z0, Z3
	VADDPS  Z1, Z5, Z6
	VPSRAD  $31, Z3, Z4
	VPSRAD  $31, Z6, Z7
	VPANDND Z3, Z4, Z3
	VPANDND Z6, Z7, Z6
	VPMINUD Z2, Z3, Z3
	VPMINUD Z2, Z6, Z6
	VMULPS  Z3, Z0, Z3
	VMULPS  Z6, Z5, Z6
	VDIVPS  Z2, Z3, Z3
	VDIVPS  Z2, Z6, Z6
	VMOVUPS Z3, (DI)
	VMOVUPS Z6, 64(DI)
	ADDQ    $128, SI
	ADDQ    $128, DI
	SUBQ    $32, CX
	JMP     hs512loop

hs512one:
	TESTQ CX, CX
	JZ    hs512done
	MOVQ  $16, BX
	CMPQ  CX, BX
	CMOVQLT CX, BX // BX = min(n, 16)
	MOVL  $1, AX
	SHLXL BX, AX, AX
	DECL  AX
	KMOVW AX, K1
	VMOVUPS.Z (SI), K1, Z0
	VADDPS  Z1, Z0, Z3
	VPSRAD  $31, Z3, Z4
	VPANDND Z3, Z4, Z3
	VPMINUD Z2, Z3, Z3
	VMULPS  Z3, Z0, Z3
	VDIVPS  Z2, Z3, Z3
	VMOVUPS Z3, K1, (DI)
	LEAQ    (SI)(BX*4), SI
	LEAQ    (DI)(BX*4), DI
	SUBQ    BX, CX
	JMP     hs512one

hs512done:
	VZEROUPPER
	RET

// func hardswishAVX2(y, x *float32, n int); n a multiple of 8
TEXT ·hardswishAVX2(SB), NOSPLIT, $0-24
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL $0x40400000, AX // 3
	MOVD AX, X1
	VPBROADCASTD X1, Y1
	MOVL $0x40c00000, AX // 6
	MOVD AX, X2
	VPBROADCASTD X2, Y2

hs2loop:
	CMPQ CX, $8
	JLT  hs2done
	VMOVUPS (SI), Y0
	VADDPS  Y1, Y0, Y3
	VPSRAD  $31, Y3, Y4
	VPANDN  Y3, Y4, Y3
	VPMINUD Y2, Y3, Y3
	VMULPS  Y3, Y0, Y3
	VDIVPS  Y2, Y3, Y3
	VMOVUPS Y3, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     hs2loop

hs2done:
	VZEROUPPER
	RET

// func hardsigmoidAVX512(y, x *float32, n int, alpha, beta float32)
TEXT ·hardsigmoidAVX512(SB), NOSPLIT, $0-32
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS alpha+24(FP), Z1
	VBROADCASTSS beta+28(FP), Z2
	MOVL $0x3f800000, AX // 1
	VPBROADCASTD AX, Z5
	VPXORD Z6, Z6, Z6 // 0

hg512one:
	TESTQ CX, CX
	JZ    hg512done
	MOVQ  $16, BX
	CMPQ  CX, BX
	CMOVQLT CX, BX
	MOVL  $1, AX
	SHLXL BX, AX, AX
	DECL  AX
	KMOVW AX, K1
	VMOVUPS.Z (SI), K1, Z0
	VMULPS  Z1, Z0, Z3
	VADDPS  Z2, Z3, Z3       // t = α·x + β (two roundings, as Go)
	VMAXPS  Z6, Z3, Z4       // max(t, 0): 0 for NaN and for ±0
	VMINPS  Z5, Z4, Z4       // min(·, 1)
	VCMPPS  $3, Z3, Z3, K2   // t unordered
	VMOVAPS Z3, K2, Z4       // NaN stays NaN
	VMOVUPS Z4, K1, (DI)
	LEAQ    (SI)(BX*4), SI
	LEAQ    (DI)(BX*4), DI
	SUBQ    BX, CX
	JMP     hg512one

hg512done:
	VZEROUPPER
	RET
