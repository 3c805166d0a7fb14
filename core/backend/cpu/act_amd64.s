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

// func expShiftSumAVX512(y, x *float32, n int, mx float32) float64
// y[i] = exp(x[i] - mx) for i < n (x[i] - mx ≤ 0 expected, clamped below at
// -104 so -Inf gives 0; NaN stays NaN); returns Σ y[i] summed in float64.
// exp: n = round(t·log2 e), r = t - n·ln2 (two constants), a degree-7
// Taylor polynomial in r by FMA, scaled by 2^n with VSCALEFPS.
TEXT ·expShiftSumAVX512(SB), NOSPLIT, $0-40
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS mx+24(FP), Z1
	MOVL $0xc2d00000, AX // -104
	VPBROADCASTD AX, Z2
	MOVL $0x3fb8aa3b, AX // log2 e
	VPBROADCASTD AX, Z3
	MOVL $0x3f317200, AX // ln2 hi
	VPBROADCASTD AX, Z4
	MOVL $0x35bfbe8e, AX // ln2 lo
	VPBROADCASTD AX, Z5
	MOVL $0x39500d01, AX // 1/5040
	VPBROADCASTD AX, Z20
	MOVL $0x3ab60b61, AX // 1/720
	VPBROADCASTD AX, Z21
	MOVL $0x3c088889, AX // 1/120
	VPBROADCASTD AX, Z22
	MOVL $0x3d2aaaab, AX // 1/24
	VPBROADCASTD AX, Z23
	MOVL $0x3e2aaaab, AX // 1/6
	VPBROADCASTD AX, Z24
	MOVL $0x3f000000, AX // 1/2
	VPBROADCASTD AX, Z25
	MOVL $0x3f800000, AX // 1
	VPBROADCASTD AX, Z26
	VPXORQ Z16, Z16, Z16
	VPXORQ Z17, Z17, Z17

ex512loop:
	TESTQ CX, CX
	JZ    ex512done
	MOVQ  $16, BX
	CMPQ  CX, BX
	CMOVQLT CX, BX
	MOVL  $1, AX
	SHLXL BX, AX, AX
	DECL  AX
	KMOVW AX, K1
	VMOVUPS.Z (SI), K1, Z0
	VSUBPS  Z1, Z0, Z0         // t = x - mx
	VMAXPS  Z0, Z2, Z0         // max(-104, t); NaN stays
	VMULPS  Z3, Z0, Z6
	VRNDSCALEPS $0, Z6, Z6     // n = round(t·log2 e)
	VFNMADD231PS Z4, Z6, Z0    // r = t - n·ln2hi
	VFNMADD231PS Z5, Z6, Z0    // r -= n·ln2lo
	VMOVAPS Z20, Z7
	VFMADD213PS Z21, Z0, Z7    // p = p·r + c
	VFMADD213PS Z22, Z0, Z7
	VFMADD213PS Z23, Z0, Z7
	VFMADD213PS Z24, Z0, Z7
	VFMADD213PS Z25, Z0, Z7
	VFMADD213PS Z26, Z0, Z7
	VFMADD213PS Z26, Z0, Z7
	VSCALEFPS Z6, Z7, Z7       // p·2^n
	VMOVAPS.Z Z7, K1, Z7       // lanes past n: 0
	VMOVUPS Z7, K1, (DI)
	VCVTPS2PD Y7, Z8
	VEXTRACTF32X8 $1, Z7, Y9
	VCVTPS2PD Y9, Z9
	VADDPD  Z8, Z16, Z16
	VADDPD  Z9, Z17, Z17
	LEAQ    (SI)(BX*4), SI
	LEAQ    (DI)(BX*4), DI
	SUBQ    BX, CX
	JMP     ex512loop

ex512done:
	VADDPD Z17, Z16, Z16
	VEXTRACTF64X4 $1, Z16, Y17
	VADDPD Y17, Y16, Y16
	VEXTRACTF64X2 $1, Y16, X17
	VADDPD X17, X16, X16
	VPERMILPD $1, X16, X17
	VADDSD X17, X16, X16
	VMOVSD X16, ret+32(FP)
	VZEROUPPER
	RET

// func sigmoidAVX512(y, x *float32, n int)
// y[i] = 1/(1+e) for x[i] ≥ 0, e/(1+e) otherwise, with e = exp(-|x[i]|)
// (so no exp overflows; -|x| clamped at -104, where e/(1+e) rounds to 0)
// by expShiftSumAVX512's exp (degree-7 Taylor polynomial after the ln2
// range reduction, VSCALEFPS); NaN stays NaN. Within a few ulp of the
// float64 sigmoid rounded to float32.
TEXT ·sigmoidAVX512(SB), NOSPLIT, $0-24
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL $0xc2d00000, AX // -104
	VPBROADCASTD AX, Z2
	MOVL $0x3fb8aa3b, AX // log2 e
	VPBROADCASTD AX, Z3
	MOVL $0x3f317200, AX // ln2 hi
	VPBROADCASTD AX, Z4
	MOVL $0x35bfbe8e, AX // ln2 lo
	VPBROADCASTD AX, Z5
	MOVL $0x39500d01, AX // 1/5040
	VPBROADCASTD AX, Z20
	MOVL $0x3ab60b61, AX // 1/720
	VPBROADCASTD AX, Z21
	MOVL $0x3c088889, AX // 1/120
	VPBROADCASTD AX, Z22
	MOVL $0x3d2aaaab, AX // 1/24
	VPBROADCASTD AX, Z23
	MOVL $0x3e2aaaab, AX // 1/6
	VPBROADCASTD AX, Z24
	MOVL $0x3f000000, AX // 1/2
	VPBROADCASTD AX, Z25
	MOVL $0x3f800000, AX // 1
	VPBROADCASTD AX, Z26
	MOVL $0x80000000, AX // sign bit
	VPBROADCASTD AX, Z27
	VPXORD Z28, Z28, Z28 // 0

sg512loop:
	TESTQ CX, CX
	JZ    sg512done
	MOVQ  $16, BX
	CMPQ  CX, BX
	CMOVQLT CX, BX
	MOVL  $1, AX
	SHLXL BX, AX, AX
	DECL  AX
	KMOVW AX, K1
	VMOVUPS.Z (SI), K1, Z1     // x
	VPORD   Z27, Z1, Z0        // t = -|x| (a NaN stays NaN)
	VMAXPS  Z0, Z2, Z0         // max(-104, t); NaN stays
	VMULPS  Z3, Z0, Z6
	VRNDSCALEPS $0, Z6, Z6     // n = round(t·log2 e)
	VFNMADD231PS Z4, Z6, Z0    // r = t - n·ln2hi
	VFNMADD231PS Z5, Z6, Z0    // r -= n·ln2lo
	VMOVAPS Z20, Z7
	VFMADD213PS Z21, Z0, Z7    // p = p·r + c
	VFMADD213PS Z22, Z0, Z7
	VFMADD213PS Z23, Z0, Z7
	VFMADD213PS Z24, Z0, Z7
	VFMADD213PS Z25, Z0, Z7
	VFMADD213PS Z26, Z0, Z7
	VFMADD213PS Z26, Z0, Z7
	VSCALEFPS Z6, Z7, Z7       // e = p·2^n
	VADDPS  Z26, Z7, Z8        // 1 + e
	VDIVPS  Z8, Z26, Z9        // s = 1/(1+e)
	VMULPS  Z9, Z7, Z10        // e/(1+e)
	VCMPPS  $0x1d, Z28, Z1, K2 // x ≥ 0 (false for NaN)
	VMOVAPS Z9, K2, Z10
	VMOVUPS Z10, K1, (DI)
	LEAQ    (SI)(BX*4), SI
	LEAQ    (DI)(BX*4), DI
	SUBQ    BX, CX
	JMP     sg512loop

sg512done:
	VZEROUPPER
	RET

// func sumF64AVX512(x *float32, n int) float64
// Σ x[i] for i < n (n a multiple of 32), each element widened to float64
// and summed in four 8-lane float64 accumulators, then reduced.
TEXT ·sumF64AVX512(SB), NOSPLIT, $0-24
	MOVQ   x+0(FP), SI
	MOVQ   n+8(FP), CX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3

sum64loop:
	CMPQ          CX, $32
	JLT           sum64done
	VCVTPS2PD     (SI), Z4
	VCVTPS2PD     32(SI), Z5
	VCVTPS2PD     64(SI), Z6
	VCVTPS2PD     96(SI), Z7
	VADDPD        Z4, Z0, Z0
	VADDPD        Z5, Z1, Z1
	VADDPD        Z6, Z2, Z2
	VADDPD        Z7, Z3, Z3
	ADDQ          $128, SI
	SUBQ          $32, CX
	JMP           sum64loop

sum64done:
	VADDPD        Z1, Z0, Z0
	VADDPD        Z3, Z2, Z2
	VADDPD        Z2, Z0, Z0
	VEXTRACTF64X4 $1, Z0, Y1
	VADDPD        Y1, Y0, Y0
	VEXTRACTF64X2 $1, Y0, X1
	VADDPD        X1, X0, X0
	VPERMILPD     $1, X0, X1
	VADDSD        X1, X0, X0
	VMOVSD        X0, ret+16(FP)
	VZEROUPPER
	RET
