//go:build amd64 && !purego

#include "textflag.h"

// Int8 quantize and dequantize rows (qquant_amd64.go). Hand-written.
// Every lane computes what core/op's scalar loops compute, one IEEE
// operation at a time in the same order (no FMA but where the Go loop
// fuses too: the hardswish requantizing rows): bit-equal results.

// Quantize: d = clamp(roundEven(x / scale) + zero, lo, hi), stored as the
// low byte of the int32 (lo, hi within the output type's range, so the
// byte is the uint8 or int8 value itself).
#define QUANT_AVX512(op, off, reg) \
	VMOVUPS off(SI), reg \
	QUANT_AVX512R(op, reg)

// QUANT_AVX512R is QUANT_AVX512 on a loaded register.
#define QUANT_AVX512R(op, reg) \
	op Z1, reg, reg \
	VRNDSCALEPS $0, reg, reg \
	VADDPS Z2, reg, reg \
	VMAXPS Z3, reg, reg \
	VMINPS Z4, reg, reg \
	VCVTPS2DQ reg, reg

// func quantRowAVX512(dst *byte, src *float32, n int, scale, zero, lo, hi float32)
// Any n: 32 a step, then 16, then the last 1–15 under a mask.
TEXT ·quantRowAVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS scale+24(FP), Z1
	VBROADCASTSS zero+28(FP), Z2
	VBROADCASTSS lo+32(FP), Z3
	VBROADCASTSS hi+36(FP), Z4
quantRowAVX512_loop:
	CMPQ CX, $32
	JLT quantRowAVX512_tail
	QUANT_AVX512(VDIVPS, 0, Z5)
	QUANT_AVX512(VDIVPS, 64, Z6)
	VPMOVDB Z5, 0(DI)
	VPMOVDB Z6, 16(DI)
	ADDQ $128, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JMP quantRowAVX512_loop
quantRowAVX512_tail:
	CMPQ CX, $16
	JLT quantRowAVX512_last
	QUANT_AVX512(VDIVPS, 0, Z5)
	VPMOVDB Z5, 0(DI)
	ADDQ $64, SI
	ADDQ $16, DI
	SUBQ $16, CX
quantRowAVX512_last:
	TESTQ CX, CX
	JZ quantRowAVX512_done
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1
	VMOVUPS.Z 0(SI), K1, Z5
	QUANT_AVX512R(VDIVPS, Z5)
	VPMOVDB Z5, K1, 0(DI)
quantRowAVX512_done:
	VZEROUPPER
	RET

#define QUANT_AVX2(op, off, reg) \
	VMOVUPS off(SI), reg \
	op Y1, reg, reg \
	VROUNDPS $0, reg, reg \
	VADDPS Y2, reg, reg \
	VMAXPS Y3, reg, reg \
	VMINPS Y4, reg, reg \
	VCVTPS2DQ reg, reg

// func quantRowAVX2(dst *byte, src *float32, n int, scale, zero, lo, hi float32)
// n a multiple of 16; the values are packed to int16 then to bytes with
// unsigned saturation when lo >= 0, signed otherwise (both exact: the
// values are in range already).
TEXT ·quantRowAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS scale+24(FP), Y1
	VBROADCASTSS zero+28(FP), Y2
	VBROADCASTSS lo+32(FP), Y3
	VBROADCASTSS hi+36(FP), Y4
	MOVL lo+32(FP), AX
	TESTL AX, AX
	JNZ quantRowAVX2_signed // lo = -128 (the bits of +0 are 0)
quantRowAVX2_u:
	CMPQ CX, $16
	JLT quantRowAVX2_done
	QUANT_AVX2(VDIVPS, 0, Y5)
	QUANT_AVX2(VDIVPS, 32, Y6)
	VPACKSSDW Y6, Y5, Y5
	VPERMQ $0xD8, Y5, Y5
	VEXTRACTI128 $1, Y5, X6
	VPACKUSWB X6, X5, X5
	VMOVDQU X5, 0(DI)
	ADDQ $64, SI
	ADDQ $16, DI
	SUBQ $16, CX
	JMP quantRowAVX2_u
quantRowAVX2_signed:
	CMPQ CX, $16
	JLT quantRowAVX2_done
	QUANT_AVX2(VDIVPS, 0, Y5)
	QUANT_AVX2(VDIVPS, 32, Y6)
	VPACKSSDW Y6, Y5, Y5
	VPERMQ $0xD8, Y5, Y5
	VEXTRACTI128 $1, Y5, X6
	VPACKSSWB X6, X5, X5
	VMOVDQU X5, 0(DI)
	ADDQ $64, SI
	ADDQ $16, DI
	SUBQ $16, CX
	JMP quantRowAVX2_signed
quantRowAVX2_done:
	VZEROUPPER
	RET

// Dequantize: v = clamp(float32(acc + ib) · m + b, lo, hi), the multiply
// and the add rounded separately (relu: lo = 0, hi = +Inf; none: ±Inf).
#define DEQ(mov, off, reg) \
	mov off(SI), reg \
	DEQR(reg) \
	VMOVUPS reg, off(DI)

// DEQR is DEQ on a loaded register, without the store.
#define DEQR(reg) \
	VPADDD R0, reg, reg \
	VCVTDQ2PS reg, reg \
	VMULPS R1, reg, reg \
	VADDPS R2, reg, reg \
	VMAXPS R3, reg, reg \
	VMINPS R4, reg, reg

// DEQ512_LAST does the last CX (1–15) elements of an avx512 dequantize
// row under the mask K1: body on reg masked-loaded, a masked store.
#define DEQ512_LAST(reg, body) \
	MOVL $1, AX \
	SHLL CX, AX \
	DECL AX \
	KMOVW AX, K1 \
	VMOVDQU32.Z 0(SI), K1, reg \
	body \
	VMOVUPS reg, K1, 0(DI)

#define R0 Z0
#define R1 Z1
#define R2 Z2
#define R3 Z3
#define R4 Z4

// func dequantRowAVX512(v *float32, acc *int32, n int, ib int32, m, b, lo, hi float32)
// Any n: 32 a step, then 16, then the last 1–15 under a mask.
TEXT ·dequantRowAVX512(SB), NOSPLIT, $0-44
	MOVQ v+0(FP), DI
	MOVQ acc+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL ib+24(FP), AX
	VMOVD AX, X0
	VPBROADCASTD X0, Z0
	VBROADCASTSS m+28(FP), Z1
	VBROADCASTSS b+32(FP), Z2
	VBROADCASTSS lo+36(FP), Z3
	VBROADCASTSS hi+40(FP), Z4
dequantRowAVX512_loop:
	CMPQ CX, $32
	JLT dequantRowAVX512_tail
	DEQ(VMOVDQU32, 0, Z5)
	DEQ(VMOVDQU32, 64, Z6)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP dequantRowAVX512_loop
dequantRowAVX512_tail:
	CMPQ CX, $16
	JLT dequantRowAVX512_last
	DEQ(VMOVDQU32, 0, Z5)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
dequantRowAVX512_last:
	TESTQ CX, CX
	JZ dequantRowAVX512_done
	DEQ512_LAST(Z5, DEQR(Z5))
dequantRowAVX512_done:
	VZEROUPPER
	RET

#undef R0
#undef R1
#undef R2
#undef R3
#undef R4
#define R0 Y0
#define R1 Y1
#define R2 Y2
#define R3 Y3
#define R4 Y4

// func dequantRowAVX2(v *float32, acc *int32, n int, ib int32, m, b, lo, hi float32)
// n a multiple of 16.
TEXT ·dequantRowAVX2(SB), NOSPLIT, $0-44
	MOVQ v+0(FP), DI
	MOVQ acc+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL ib+24(FP), AX
	VMOVD AX, X0
	VPBROADCASTD X0, Y0
	VBROADCASTSS m+28(FP), Y1
	VBROADCASTSS b+32(FP), Y2
	VBROADCASTSS lo+36(FP), Y3
	VBROADCASTSS hi+40(FP), Y4
dequantRowAVX2_loop:
	CMPQ CX, $16
	JLT dequantRowAVX2_done
	DEQ(VMOVDQU, 0, Y5)
	DEQ(VMOVDQU, 32, Y6)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP dequantRowAVX2_loop
dequantRowAVX2_done:
	VZEROUPPER
	RET

// Dequantize with hardswish: x = float32(acc + ib) · m + b, then
// v = x · min(max(x + 3, 0), 6) · (1/6, rounded to float32), each step
// rounded as Go's loop (a multiply, not a division per element).
#define DEQHS(mov, off, reg, t) \
	mov off(SI), reg \
	DEQHSR(reg, t) \
	VMOVUPS reg, off(DI)

// DEQHSR is DEQHS on a loaded register, without the store.
#define DEQHSR(reg, t) \
	VPADDD R0, reg, reg \
	VCVTDQ2PS reg, reg \
	VMULPS R1, reg, reg \
	VADDPS R2, reg, reg \
	VADDPS R3, reg, t \
	VMAXPS R4, t, t \
	VMINPS R5, t, t \
	VMULPS t, reg, reg \
	VMULPS R10, reg, reg

#define HSCONST(zero, three, six, sixth) \
	MOVL $0x3E2AAAAB, AX \
	VMOVD AX, X10 \
	VBROADCASTSS X10, sixth \
	MOVL $0x40400000, AX \
	VMOVD AX, X3 \
	VBROADCASTSS X3, three \
	MOVL $0x40C00000, AX \
	VMOVD AX, X5 \
	VBROADCASTSS X5, six \
	VXORPS X4, X4, X4

// func dequantHSRowAVX2(v *float32, acc *int32, n int, ib int32, m, b float32)
// n a multiple of 16.
#define R5 Y5
#define R10 Y10
TEXT ·dequantHSRowAVX2(SB), NOSPLIT, $0-36
	MOVQ v+0(FP), DI
	MOVQ acc+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL ib+24(FP), AX
	VMOVD AX, X0
	VPBROADCASTD X0, Y0
	VBROADCASTSS m+28(FP), Y1
	VBROADCASTSS b+32(FP), Y2
	HSCONST(Y4, Y3, Y5, Y10)
dequantHSRowAVX2_loop:
	CMPQ CX, $16
	JLT dequantHSRowAVX2_done
	DEQHS(VMOVDQU, 0, Y6, Y7)
	DEQHS(VMOVDQU, 32, Y8, Y9)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP dequantHSRowAVX2_loop
dequantHSRowAVX2_done:
	VZEROUPPER
	RET

#undef R0
#undef R1
#undef R2
#undef R3
#undef R4
#undef R5
#undef R10
#define R0 Z0
#define R1 Z1
#define R2 Z2
#define R3 Z3
#define R4 Z4
#define R5 Z5
#define R10 Z10

// func dequantHSRowAVX512(v *float32, acc *int32, n int, ib int32, m, b float32)
// Any n, as dequantRowAVX512.
TEXT ·dequantHSRowAVX512(SB), NOSPLIT, $0-36
	MOVQ v+0(FP), DI
	MOVQ acc+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL ib+24(FP), AX
	VMOVD AX, X0
	VPBROADCASTD X0, Z0
	VBROADCASTSS m+28(FP), Z1
	VBROADCASTSS b+32(FP), Z2
	HSCONST(Z4, Z3, Z5, Z10)
dequantHSRowAVX512_loop:
	CMPQ CX, $32
	JLT dequantHSRowAVX512_tail
	DEQHS(VMOVDQU32, 0, Z6, Z7)
	DEQHS(VMOVDQU32, 64, Z8, Z9)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP dequantHSRowAVX512_loop
dequantHSRowAVX512_tail:
	CMPQ CX, $16
	JLT dequantHSRowAVX512_last
	DEQHS(VMOVDQU32, 0, Z6, Z7)
	ADDQ $64, SI
	ADDQ $64, DI
	SUBQ $16, CX
dequantHSRowAVX512_last:
	TESTQ CX, CX
	JZ dequantHSRowAVX512_done
	DEQ512_LAST(Z6, DEQHSR(Z6, Z7))
dequantHSRowAVX512_done:
	VZEROUPPER
	RET

// Requantize (the int8 ops' epilogue): d = clamp(roundEven(x · inv) + zero,
// lo, hi), inv = 1/y_scale rounded once, as core/op's requantize loop.

// func requantRowAVX512(dst *byte, src *float32, n int, inv, zero, lo, hi float32)
// Any n: 32 a step, then 16, then the last 1–15 under a mask.
TEXT ·requantRowAVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS inv+24(FP), Z1
	VBROADCASTSS zero+28(FP), Z2
	VBROADCASTSS lo+32(FP), Z3
	VBROADCASTSS hi+36(FP), Z4
requantRowAVX512_loop:
	CMPQ CX, $32
	JLT requantRowAVX512_tail
	QUANT_AVX512(VMULPS, 0, Z5)
	QUANT_AVX512(VMULPS, 64, Z6)
	VPMOVDB Z5, 0(DI)
	VPMOVDB Z6, 16(DI)
	ADDQ $128, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JMP requantRowAVX512_loop
requantRowAVX512_tail:
	CMPQ CX, $16
	JLT requantRowAVX512_last
	QUANT_AVX512(VMULPS, 0, Z5)
	VPMOVDB Z5, 0(DI)
	ADDQ $64, SI
	ADDQ $16, DI
	SUBQ $16, CX
requantRowAVX512_last:
	TESTQ CX, CX
	JZ requantRowAVX512_done
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1
	VMOVUPS.Z 0(SI), K1, Z5
	QUANT_AVX512R(VMULPS, Z5)
	VPMOVDB Z5, K1, 0(DI)
requantRowAVX512_done:
	VZEROUPPER
	RET

// func requantRowAVX2(dst *byte, src *float32, n int, inv, zero, lo, hi float32)
// n a multiple of 16.
TEXT ·requantRowAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS inv+24(FP), Y1
	VBROADCASTSS zero+28(FP), Y2
	VBROADCASTSS lo+32(FP), Y3
	VBROADCASTSS hi+36(FP), Y4
	MOVL lo+32(FP), AX
	TESTL AX, AX
	JNZ requantRowAVX2_signed // lo = -128 (the bits of +0 are 0)
requantRowAVX2_u:
	CMPQ CX, $16
	JLT requantRowAVX2_done
	QUANT_AVX2(VMULPS, 0, Y5)
	QUANT_AVX2(VMULPS, 32, Y6)
	VPACKSSDW Y6, Y5, Y5
	VPERMQ $0xD8, Y5, Y5
	VEXTRACTI128 $1, Y5, X6
	VPACKUSWB X6, X5, X5
	VMOVDQU X5, 0(DI)
	ADDQ $64, SI
	ADDQ $16, DI
	SUBQ $16, CX
	JMP requantRowAVX2_u
requantRowAVX2_signed:
	CMPQ CX, $16
	JLT requantRowAVX2_done
	QUANT_AVX2(VMULPS, 0, Y5)
	QUANT_AVX2(VMULPS, 32, Y6)
	VPACKSSDW Y6, Y5, Y5
	VPERMQ $0xD8, Y5, Y5
	VEXTRACTI128 $1, Y5, X6
	VPACKSSWB X6, X5, X5
	VMOVDQU X5, 0(DI)
	ADDQ $64, SI
	ADDQ $16, DI
	SUBQ $16, CX
	JMP requantRowAVX2_signed
requantRowAVX2_done:
	VZEROUPPER
	RET

// The fused requantizing epilogue with a clamp (op.QEpilogue8.Row): per
// lane x = float32(acc + ib)·m + b, clamp to [lo, hi], x·pm + pa, then
// clamp(roundEven(x·inv) + z, qlo, qhi) stored as a byte; each step one
// IEEE operation in Go's order, as the unfused passes above. The
// hardswish one (qepiHSRow*) is further down.
#define EPI_DEQ(mov, off, reg, ib, m, b) \
	mov off(SI), reg \
	VPADDD ib, reg, reg \
	VCVTDQ2PS reg, reg \
	VMULPS m, reg, reg \
	VADDPS b, reg, reg

#define EPI_CLAMP(reg, lo, hi) \
	VMAXPS lo, reg, reg \
	VMINPS hi, reg, reg

#define EPI_REQ(round, reg, pm, pa, inv, z, qlo, qhi) \
	VMULPS pm, reg, reg \
	VADDPS pa, reg, reg \
	VMULPS inv, reg, reg \
	round $0, reg, reg \
	VADDPS z, reg, reg \
	VMAXPS qlo, reg, reg \
	VMINPS qhi, reg, reg \
	VCVTPS2DQ reg, reg


// EPI_REQ_NA is EPI_REQ without the affine, for PostMul = 1 and PostAdd
// = +0: x·1 is x and x + 0 differs from x only for x = −0, whose
// requantized byte equals +0's (roundEven(±0·inv) + z is z, or +0 when
// z = 0, before the clamps), so the bytes are those of EPI_REQ.
#define EPI_REQ_NA(round, reg, inv, z, qlo, qhi) \
	VMULPS inv, reg, reg \
	round $0, reg, reg \
	VADDPS z, reg, reg \
	VMAXPS qlo, reg, reg \
	VMINPS qhi, reg, reg \
	VCVTPS2DQ reg, reg

// EPI_DEQR is EPI_DEQ after the load.
#define EPI_DEQR(reg, ib, m, b) \
	VPADDD ib, reg, reg \
	VCVTDQ2PS reg, reg \
	VMULPS m, reg, reg \
	VADDPS b, reg, reg

// EPI512_CONSTS sets, after qepiRowAVX512's argument loads (Z11 pm, Z12
// pa), BX to 1 when the affine is the identity (pm = 1, pa = +0), else
// 0; the caller then sets Z17 = int32(z) and Z15, Z16 = qlo − z, qhi − z.
#define EPI512_CONSTS \
	XORL BX, BX \
	VMOVD X11, AX \
	CMPL AX, $0x3F800000 \
	JNE 4(PC) \
	VMOVD X12, AX \
	TESTL AX, AX \
	SETEQ BX

#define EPI512_CLAMP(reg, t) EPI_CLAMP(reg, Z3, Z4)

// EPI512_STEP32 does 32 elements with the activation act (EPI512_CLAMP)
// and the requantize req (EPI512_REQ or EPI512_REQNA).
// EPI512_REQNA requantizes without the affine in integers: y = x·inv
// clamped to [qlo − z, qhi − z] (Z15, Z16: integers, so the clamp picks
// out exactly the y whose roundEven(y) + z the clamps of EPI_REQ would
// move, and sends them to the same bound; NaN to qlo, as VMAXPS does
// there), converted rounding half to even, plus z as int32 (Z17): the
// bytes of EPI_REQ_NA in five operations instead of seven (VRNDSCALEPS
// is two). qepiRow checks that qlo, qhi and z are small integers.
#define EPI512_REQNA(reg) \
	VMULPS Z13, reg, reg \
	VMAXPS Z15, reg, reg \
	VMINPS Z16, reg, reg \
	VCVTPS2DQ.RN_SAE reg, reg \
	VPADDD Z17, reg, reg

#define EPI512_REQ(reg) \
	VMULPS Z11, reg, reg \
	VADDPS Z12, reg, reg \
	EPI512_REQNA(reg)
#define EPI512_STEP32(act, req) \
	EPI_DEQ(VMOVDQU32, 0, Z20, Z0, Z1, Z2) \
	EPI_DEQ(VMOVDQU32, 64, Z21, Z0, Z1, Z2) \
	act(Z20, Z22) \
	act(Z21, Z23) \
	req(Z20) \
	req(Z21) \
	VPMOVDB Z20, 0(DI) \
	VPMOVDB Z21, 16(DI) \
	ADDQ $128, SI \
	ADDQ $32, DI \
	SUBQ $32, CX

#define EPI512_STEP16(act) \
	EPI_DEQ(VMOVDQU32, 0, Z20, Z0, Z1, Z2) \
	act(Z20, Z22) \
	EPI512_REQ(Z20) \
	VPMOVDB Z20, 0(DI) \
	ADDQ $64, SI \
	ADDQ $16, DI \
	SUBQ $16, CX

// EPI512_LAST does the last CX (1–15) elements under the mask K1.
#define EPI512_LAST(act) \
	MOVL $1, AX \
	SHLL CX, AX \
	DECL AX \
	KMOVW AX, K1 \
	VMOVDQU32.Z 0(SI), K1, Z20 \
	EPI_DEQR(Z20, Z0, Z1, Z2) \
	act(Z20, Z22) \
	EPI512_REQ(Z20) \
	VPMOVDB Z20, K1, 0(DI)

// func qepiRowAVX512(dst *byte, acc *int32, n int, ib int32, m, b, lo, hi, pm, pa, inv, z, qlo, qhi float32)
// Any n: 32 elements a step (without the affine when it is the
// identity), then 16, then the last 1–15 under a mask.
TEXT ·qepiRowAVX512(SB), NOSPLIT, $0-68
	MOVQ dst+0(FP), DI
	MOVQ acc+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL ib+24(FP), AX
	VMOVD AX, X0
	VPBROADCASTD X0, Z0
	VBROADCASTSS m+28(FP), Z1
	VBROADCASTSS b+32(FP), Z2
	VBROADCASTSS lo+36(FP), Z3
	VBROADCASTSS hi+40(FP), Z4
	VBROADCASTSS pm+44(FP), Z11
	VBROADCASTSS pa+48(FP), Z12
	VBROADCASTSS inv+52(FP), Z13
	VBROADCASTSS z+56(FP), Z14
	VBROADCASTSS qlo+60(FP), Z15
	VBROADCASTSS qhi+64(FP), Z16
	EPI512_CONSTS
	VCVTPS2DQ Z14, Z17
	VSUBPS Z14, Z15, Z15
	VSUBPS Z14, Z16, Z16
	TESTQ BX, BX
	JNZ qepiRowAVX512_na
qepiRowAVX512_loop:
	CMPQ CX, $32
	JLT qepiRowAVX512_tail
	EPI512_STEP32(EPI512_CLAMP, EPI512_REQ)
	JMP qepiRowAVX512_loop
qepiRowAVX512_na:
	CMPQ CX, $32
	JLT qepiRowAVX512_tail
	EPI512_STEP32(EPI512_CLAMP, EPI512_REQNA)
	JMP qepiRowAVX512_na
qepiRowAVX512_tail:
	CMPQ CX, $16
	JLT qepiRowAVX512_last
	EPI512_STEP16(EPI512_CLAMP)
qepiRowAVX512_last:
	TESTQ CX, CX
	JZ qepiRowAVX512_done
	EPI512_LAST(EPI512_CLAMP)
qepiRowAVX512_done:
	VZEROUPPER
	RET


// EPI_PACK2 packs the int32 lanes of Y13 (elements 0-7) and Y14 (8-15)
// to 16 bytes at DI (pack: VPACKUSWB for uint8, VPACKSSWB for int8;
// exact, the values are in range).
#define EPI_PACK2(pack) \
	VPACKSSDW Y14, Y13, Y13 \
	VPERMQ $0xD8, Y13, Y13 \
	VEXTRACTI128 $1, Y13, X15 \
	pack X15, X13, X13 \
	VMOVDQU X13, 0(DI) \
	ADDQ $64, SI \
	ADDQ $16, DI \
	SUBQ $16, CX

#define EPI_BODY2(pack) \
	EPI_DEQ(VMOVDQU, 0, Y13, Y0, Y1, Y2) \
	EPI_DEQ(VMOVDQU, 32, Y14, Y0, Y1, Y2) \
	EPI_CLAMP(Y13, Y3, Y4) \
	EPI_CLAMP(Y14, Y3, Y4) \
	EPI_REQ(VROUNDPS, Y13, Y7, Y8, Y9, Y10, Y11, Y12) \
	EPI_REQ(VROUNDPS, Y14, Y7, Y8, Y9, Y10, Y11, Y12) \
	EPI_PACK2(pack)

// func qepiRowAVX2(dst *byte, acc *int32, n int, ib int32, m, b, lo, hi, pm, pa, inv, z, qlo, qhi float32)
// n a multiple of 16.
TEXT ·qepiRowAVX2(SB), NOSPLIT, $0-68
	MOVQ dst+0(FP), DI
	MOVQ acc+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL ib+24(FP), AX
	VMOVD AX, X0
	VPBROADCASTD X0, Y0
	VBROADCASTSS m+28(FP), Y1
	VBROADCASTSS b+32(FP), Y2
	VBROADCASTSS pm+44(FP), Y7
	VBROADCASTSS pa+48(FP), Y8
	VBROADCASTSS inv+52(FP), Y9
	VBROADCASTSS z+56(FP), Y10
	VBROADCASTSS qlo+60(FP), Y11
	VBROADCASTSS qhi+64(FP), Y12
	VBROADCASTSS lo+36(FP), Y3
	VBROADCASTSS hi+40(FP), Y4
	MOVL qlo+60(FP), AX
	TESTL AX, AX
	JNZ qepiRowAVX2_signed // qlo = -128 (the bits of +0 are 0)
qepiRowAVX2_u:
	CMPQ CX, $16
	JLT qepiRowAVX2_done
	EPI_BODY2(VPACKUSWB)
	JMP qepiRowAVX2_u
qepiRowAVX2_signed:
	CMPQ CX, $16
	JLT qepiRowAVX2_done
	EPI_BODY2(VPACKSSWB)
	JMP qepiRowAVX2_signed
qepiRowAVX2_done:
	VZEROUPPER
	RET

// The hardswish requantizing epilogue (qepiHSRow*): op.QEpilogue8.Row's
// hardswish loop, with the constants of op.QEpilogue8.HardSwishFold. Per
// lane a = float32(acc), u = a·m + b3 (the pre-activation plus 3),
// t = min(max(u, 0), 6), y = (u·k + k3)·t + pz, the three multiply-adds
// fused and rounded once each as Go's fma32, then min(y, qhi) converted
// rounding half to even. Saturating packs (int32 → int16 → uint8 or
// int8) clamp the rest to [qlo, qhi]: below qhi roundEven(y) is at most
// qhi (an integer), and a y below −2³¹ converts to −2³¹, saturating to
// qlo as the float clamp would; so the bytes are clamp(roundEven(y), qlo,
// qhi) for qlo, qhi the output type's whole range (qepiHSRow checks).
// About nine vector operations per 16 outputs.
#define QHS(u, t, m, b3, k, k3, pz, zero, six, qhi) \
	VFMADD213PS b3, m, u \
	VMAXPS zero, u, t \
	VMINPS six, t, t \
	VFMADD213PS k3, k, u \
	VFMADD213PS pz, t, u \
	VMINPS qhi, u, u

// QHS512 converts the 16 accumulators at off(SI) into u as int32 (t a
// scratch register): Z0 m, Z1 b3, Z2 k, Z3 k3, Z4 pz, Z5 0, Z6 6, Z7 qhi.
#define QHS512R(u, t) \
	QHS(u, t, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7) \
	VCVTPS2DQ.RN_SAE u, u

#define QHS512(off, u, t) \
	VCVTDQ2PS off(SI), u \
	QHS512R(u, t)

// QHS512_STEP64 does 64 elements: four vectors packed in two steps
// (pack: VPACKUSWB for uint8, VPACKSSWB for int8) leave the 16-byte
// groups interleaved by 128-bit lane, which VPERMD (Z8, qhsPerm512)
// puts back in order.
#define QHS512_STEP64(pack) \
	QHS512(0, Z20, Z24) \
	QHS512(64, Z21, Z25) \
	QHS512(128, Z22, Z26) \
	QHS512(192, Z23, Z27) \
	VPACKSSDW Z21, Z20, Z20 \
	VPACKSSDW Z23, Z22, Z22 \
	pack Z22, Z20, Z20 \
	VPERMD Z20, Z8, Z20 \
	VMOVDQU32 Z20, 0(DI) \
	ADDQ $256, SI \
	ADDQ $64, DI \
	SUBQ $64, CX

// qhsPerm512 and qhsPerm256: VPERMD's indices from the packs' lane
// interleave (dword 4i + v holds vector v's elements 4i–4i+3) to
// element order.
DATA qhsPerm512<>+0(SB)/4, $0
DATA qhsPerm512<>+4(SB)/4, $4
DATA qhsPerm512<>+8(SB)/4, $8
DATA qhsPerm512<>+12(SB)/4, $12
DATA qhsPerm512<>+16(SB)/4, $1
DATA qhsPerm512<>+20(SB)/4, $5
DATA qhsPerm512<>+24(SB)/4, $9
DATA qhsPerm512<>+28(SB)/4, $13
DATA qhsPerm512<>+32(SB)/4, $2
DATA qhsPerm512<>+36(SB)/4, $6
DATA qhsPerm512<>+40(SB)/4, $10
DATA qhsPerm512<>+44(SB)/4, $14
DATA qhsPerm512<>+48(SB)/4, $3
DATA qhsPerm512<>+52(SB)/4, $7
DATA qhsPerm512<>+56(SB)/4, $11
DATA qhsPerm512<>+60(SB)/4, $15
GLOBL qhsPerm512<>(SB), RODATA|NOPTR, $64

DATA qhsPerm256<>+0(SB)/4, $0
DATA qhsPerm256<>+4(SB)/4, $4
DATA qhsPerm256<>+8(SB)/4, $1
DATA qhsPerm256<>+12(SB)/4, $5
DATA qhsPerm256<>+16(SB)/4, $2
DATA qhsPerm256<>+20(SB)/4, $6
DATA qhsPerm256<>+24(SB)/4, $3
DATA qhsPerm256<>+28(SB)/4, $7
GLOBL qhsPerm256<>(SB), RODATA|NOPTR, $32

// func qepiHSRowAVX512(dst *byte, acc *int32, n int, m, b3, k, k3, pz, qlo, qhi float32)
// Any n: 64 elements a step, then 16 (clamped to qlo as int32 and
// truncated to bytes), then the last 1–15 the same under a mask.
TEXT ·qepiHSRowAVX512(SB), NOSPLIT, $0-52
	MOVQ dst+0(FP), DI
	MOVQ acc+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS m+24(FP), Z0
	VBROADCASTSS b3+28(FP), Z1
	VBROADCASTSS k+32(FP), Z2
	VBROADCASTSS k3+36(FP), Z3
	VBROADCASTSS pz+40(FP), Z4
	VXORPS X5, X5, X5
	MOVL $0x40C00000, AX // 6
	VMOVD AX, X6
	VBROADCASTSS X6, Z6
	VBROADCASTSS qhi+48(FP), Z7
	VMOVDQU32 qhsPerm512<>(SB), Z8
	VBROADCASTSS qlo+44(FP), Z9
	VCVTPS2DQ Z9, Z9
	MOVL qlo+44(FP), AX
	TESTL AX, AX
	JNZ qepiHSRowAVX512_signed // qlo = -128 (the bits of +0 are 0)
qepiHSRowAVX512_u:
	CMPQ CX, $64
	JLT qepiHSRowAVX512_16
	QHS512_STEP64(VPACKUSWB)
	JMP qepiHSRowAVX512_u
qepiHSRowAVX512_signed:
	CMPQ CX, $64
	JLT qepiHSRowAVX512_16
	QHS512_STEP64(VPACKSSWB)
	JMP qepiHSRowAVX512_signed
qepiHSRowAVX512_16:
	CMPQ CX, $16
	JLT qepiHSRowAVX512_last
	QHS512(0, Z20, Z24)
	VPMAXSD Z9, Z20, Z20
	VPMOVDB Z20, 0(DI)
	ADDQ $64, SI
	ADDQ $16, DI
	SUBQ $16, CX
	JMP qepiHSRowAVX512_16
qepiHSRowAVX512_last:
	TESTQ CX, CX
	JZ qepiHSRowAVX512_done
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1
	VMOVDQU32.Z 0(SI), K1, Z20
	VCVTDQ2PS Z20, Z20
	QHS512R(Z20, Z24)
	VPMAXSD Z9, Z20, Z20
	VPMOVDB Z20, K1, 0(DI)
qepiHSRowAVX512_done:
	VZEROUPPER
	RET

// QHS256 is QHS512 on 8 lanes: Y0 m, Y1 b3, Y2 k, Y3 k3, Y4 pz, Y5 0,
// Y6 6, Y7 qhi (VCVTPS2DQ rounds as MXCSR says: to nearest even in Go).
#define QHS256(off, u, t) \
	VCVTDQ2PS off(SI), u \
	QHS(u, t, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7) \
	VCVTPS2DQ u, u

// QHS256_STEP32 does 32 elements, packed as QHS512_STEP64's (the
// indices, qhsPerm256, loaded into a register the packs freed).
#define QHS256_STEP32(pack) \
	QHS256(0, Y8, Y9) \
	QHS256(32, Y10, Y11) \
	QHS256(64, Y12, Y13) \
	QHS256(96, Y14, Y15) \
	VPACKSSDW Y10, Y8, Y8 \
	VPACKSSDW Y14, Y12, Y12 \
	pack Y12, Y8, Y8 \
	VMOVDQU qhsPerm256<>(SB), Y9 \
	VPERMD Y8, Y9, Y8 \
	VMOVDQU Y8, 0(DI) \
	ADDQ $128, SI \
	ADDQ $32, DI \
	SUBQ $32, CX

// QHS256_STEP16 does 16 elements, packed as EPI_PACK2.
#define QHS256_STEP16(pack) \
	QHS256(0, Y8, Y9) \
	QHS256(32, Y10, Y11) \
	VPACKSSDW Y10, Y8, Y8 \
	VPERMQ $0xD8, Y8, Y8 \
	VEXTRACTI128 $1, Y8, X9 \
	pack X9, X8, X8 \
	VMOVDQU X8, 0(DI) \
	ADDQ $64, SI \
	ADDQ $16, DI \
	SUBQ $16, CX

// func qepiHSRowAVX2(dst *byte, acc *int32, n int, m, b3, k, k3, pz, qlo, qhi float32)
// n a multiple of 16: 32 elements a step, then 16.
TEXT ·qepiHSRowAVX2(SB), NOSPLIT, $0-52
	MOVQ dst+0(FP), DI
	MOVQ acc+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS m+24(FP), Y0
	VBROADCASTSS b3+28(FP), Y1
	VBROADCASTSS k+32(FP), Y2
	VBROADCASTSS k3+36(FP), Y3
	VBROADCASTSS pz+40(FP), Y4
	VXORPS X5, X5, X5
	MOVL $0x40C00000, AX // 6
	VMOVD AX, X6
	VBROADCASTSS X6, Y6
	VBROADCASTSS qhi+48(FP), Y7
	MOVL qlo+44(FP), AX
	TESTL AX, AX
	JNZ qepiHSRowAVX2_signed
qepiHSRowAVX2_u:
	CMPQ CX, $32
	JLT qepiHSRowAVX2_u16
	QHS256_STEP32(VPACKUSWB)
	JMP qepiHSRowAVX2_u
qepiHSRowAVX2_u16:
	CMPQ CX, $16
	JLT qepiHSRowAVX2_done
	QHS256_STEP16(VPACKUSWB)
	JMP qepiHSRowAVX2_done
qepiHSRowAVX2_signed:
	CMPQ CX, $32
	JLT qepiHSRowAVX2_s16
	QHS256_STEP32(VPACKSSWB)
	JMP qepiHSRowAVX2_signed
qepiHSRowAVX2_s16:
	CMPQ CX, $16
	JLT qepiHSRowAVX2_done
	QHS256_STEP16(VPACKSSWB)
qepiHSRowAVX2_done:
	VZEROUPPER
	RET

// func dequantColsAVX512(v *float32, acc, ib *int32, m, b *float32, n int)
// v[j] = float32(acc[j] + ib[j])·m[j] + b[j] (ib, b nil: none), product and
// sum rounded separately; any n (the last 1–15 under a mask).
TEXT ·dequantColsAVX512(SB), NOSPLIT, $0-48
	MOVQ v+0(FP), DI
	MOVQ acc+8(FP), SI
	MOVQ ib+16(FP), R8
	MOVQ m+24(FP), R9
	MOVQ b+32(FP), R12
	MOVQ n+40(FP), CX
	XORQ DX, DX
dequantColsAVX512_loop:
	CMPQ CX, $16
	JLT dequantColsAVX512_last
	VMOVDQU32 (SI)(DX*4), Z0
	TESTQ R8, R8
	JZ 2(PC)
	VPADDD (R8)(DX*4), Z0, Z0
	VCVTDQ2PS Z0, Z0
	VMULPS (R9)(DX*4), Z0, Z0
	TESTQ R12, R12
	JZ 2(PC)
	VADDPS (R12)(DX*4), Z0, Z0
	VMOVUPS Z0, (DI)(DX*4)
	ADDQ $16, DX
	SUBQ $16, CX
	JMP dequantColsAVX512_loop
dequantColsAVX512_last:
	TESTQ CX, CX
	JZ dequantColsAVX512_done
	MOVL $1, AX
	SHLL CX, AX
	DECL AX
	KMOVW AX, K1
	VMOVDQU32.Z (SI)(DX*4), K1, Z0
	TESTQ R8, R8
	JZ 3(PC)
	VMOVDQU32.Z (R8)(DX*4), K1, Z1
	VPADDD Z1, Z0, Z0
	VCVTDQ2PS Z0, Z0
	VMOVUPS.Z (R9)(DX*4), K1, Z1
	VMULPS Z1, Z0, Z0
	TESTQ R12, R12
	JZ 3(PC)
	VMOVUPS.Z (R12)(DX*4), K1, Z1
	VADDPS Z1, Z0, Z0
	VMOVUPS Z0, K1, (DI)(DX*4)
dequantColsAVX512_done:
	VZEROUPPER
	RET

// func dequantColsAVX2(v *float32, acc, ib *int32, m, b *float32, n int)
// As dequantColsAVX512; n a multiple of 8.
TEXT ·dequantColsAVX2(SB), NOSPLIT, $0-48
	MOVQ v+0(FP), DI
	MOVQ acc+8(FP), SI
	MOVQ ib+16(FP), R8
	MOVQ m+24(FP), R9
	MOVQ b+32(FP), R12
	MOVQ n+40(FP), CX
	XORQ DX, DX
dequantColsAVX2_loop:
	CMPQ CX, $8
	JLT dequantColsAVX2_done
	VMOVDQU (SI)(DX*4), Y0
	TESTQ R8, R8
	JZ 2(PC)
	VPADDD (R8)(DX*4), Y0, Y0
	VCVTDQ2PS Y0, Y0
	VMULPS (R9)(DX*4), Y0, Y0
	TESTQ R12, R12
	JZ 2(PC)
	VADDPS (R12)(DX*4), Y0, Y0
	VMOVUPS Y0, (DI)(DX*4)
	ADDQ $8, DX
	SUBQ $8, CX
	JMP dequantColsAVX2_loop
dequantColsAVX2_done:
	VZEROUPPER
	RET
