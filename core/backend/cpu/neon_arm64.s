//go:build arm64 && !purego

#include "textflag.h"

// NEON (Advanced SIMD) kernels of the neon level: four float32 lanes per V
// register, 32 V registers. Go's arm64 assembler has the vector FMLA but
// not the by-element FMLA nor the vector float FADD, FMUL, FDIV, FMAX and
// FMIN; those are written as WORDs by the macros below (Arm ARM encodings,
// 128-bit forms, single precision; d, n, m are V register numbers 0–31).

// FMLA Vd.4S, Vn.4S, Vm.S[i]: Vd += Vn·Vm[i]
#define FMLAE(d, n, m, i) WORD $(0x4F801000 | (((i)&1)<<21) | ((m)<<16) | (((i)>>1)<<11) | ((n)<<5) | (d))
// FMUL Vd.4S, Vn.4S, Vm.S[i]: Vd = Vn·Vm[i]
#define FMULE(d, n, m, i) WORD $(0x4F809000 | (((i)&1)<<21) | ((m)<<16) | (((i)>>1)<<11) | ((n)<<5) | (d))
// FADD, FMUL, FDIV, FMAX, FMIN Vd.4S, Vn.4S, Vm.4S: Vd = Vn op Vm
#define FADD4(d, n, m) WORD $(0x4E20D400 | ((m)<<16) | ((n)<<5) | (d))
#define FMUL4(d, n, m) WORD $(0x6E20DC00 | ((m)<<16) | ((n)<<5) | (d))
#define FDIV4(d, n, m) WORD $(0x6E20FC00 | ((m)<<16) | ((n)<<5) | (d))
#define FMAX4(d, n, m) WORD $(0x4E20F400 | ((m)<<16) | ((n)<<5) | (d))
#define FMIN4(d, n, m) WORD $(0x4EA0F400 | ((m)<<16) | ((n)<<5) | (d))

// ---------------------------------------------------------------------
// SGEMM micro-kernel, 8×12: the 8×12 tile of C lives in V8–V31 (row r,
// columns 4j..4j+3 in V(8+3r+j)); each k step loads 8 values of the packed
// A panel (V0, V1) and 12 of the packed B panel (V2–V4) and does 24
// by-element FMLAs. Then c = alpha·acc (+ beta·c when loadC), all 8 rows
// and 12 columns (partial tiles go through a scratch tile: sgemm_arm64.go).

// ROW8x12 multiplies the B vectors by lane i of A register a into the
// accumulators of row r.
#define ROW8x12(r, a, i) \
	FMLAE(8+3*(r), 2, a, i) \
	FMLAE(9+3*(r), 3, a, i) \
	FMLAE(10+3*(r), 4, a, i)

#define STEP8x12 \
	VLD1.P 32(R1), [V0.S4, V1.S4] \
	VLD1.P 48(R2), [V2.S4, V3.S4, V4.S4] \
	ROW8x12(0, 0, 0) \
	ROW8x12(1, 0, 1) \
	ROW8x12(2, 0, 2) \
	ROW8x12(3, 0, 3) \
	ROW8x12(4, 1, 0) \
	ROW8x12(5, 1, 1) \
	ROW8x12(6, 1, 2) \
	ROW8x12(7, 1, 3)

// STORE8x12 writes one row from its accumulators (registers v0–v2,
// numbers n0–n2): alpha (V5[0]) times them; STOREC8x12 adds beta (V6[0])
// times C's row first. R3 walks C's rows, R4 bytes apart.
#define STORE8x12(v0, v1, v2, n0, n1, n2) \
	FMULE(n0, n0, 5, 0) \
	FMULE(n1, n1, 5, 0) \
	FMULE(n2, n2, 5, 0) \
	VST1 [v0.S4, v1.S4, v2.S4], (R3) \
	ADD R4, R3

#define STOREC8x12(v0, v1, v2, n0, n1, n2) \
	VLD1 (R3), [V0.S4, V1.S4, V2.S4] \
	FMULE(n0, n0, 5, 0) \
	FMULE(n1, n1, 5, 0) \
	FMULE(n2, n2, 5, 0) \
	FMULE(0, 0, 6, 0) \
	FMULE(1, 1, 6, 0) \
	FMULE(2, 2, 6, 0) \
	FADD4(n0, n0, 0) \
	FADD4(n1, n1, 1) \
	FADD4(n2, n2, 2) \
	VST1 [v0.S4, v1.S4, v2.S4], (R3) \
	ADD R4, R3

// func sgemm8x12NEON(k int, a, b, c *float32, ldc int, loadC uint32, alpha, beta float32)
TEXT ·sgemm8x12NEON(SB), NOSPLIT, $0-52
	MOVD k+0(FP), R0
	MOVD a+8(FP), R1
	MOVD b+16(FP), R2
	MOVD c+24(FP), R3
	MOVD ldc+32(FP), R4
	LSL $2, R4
	MOVWU loadC+40(FP), R5
	FMOVS alpha+44(FP), F5
	FMOVS beta+48(FP), F6
	VEOR V8.B16, V8.B16, V8.B16
	VEOR V9.B16, V9.B16, V9.B16
	VEOR V10.B16, V10.B16, V10.B16
	VEOR V11.B16, V11.B16, V11.B16
	VEOR V12.B16, V12.B16, V12.B16
	VEOR V13.B16, V13.B16, V13.B16
	VEOR V14.B16, V14.B16, V14.B16
	VEOR V15.B16, V15.B16, V15.B16
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	VEOR V18.B16, V18.B16, V18.B16
	VEOR V19.B16, V19.B16, V19.B16
	VEOR V20.B16, V20.B16, V20.B16
	VEOR V21.B16, V21.B16, V21.B16
	VEOR V22.B16, V22.B16, V22.B16
	VEOR V23.B16, V23.B16, V23.B16
	VEOR V24.B16, V24.B16, V24.B16
	VEOR V25.B16, V25.B16, V25.B16
	VEOR V26.B16, V26.B16, V26.B16
	VEOR V27.B16, V27.B16, V27.B16
	VEOR V28.B16, V28.B16, V28.B16
	VEOR V29.B16, V29.B16, V29.B16
	VEOR V30.B16, V30.B16, V30.B16
	VEOR V31.B16, V31.B16, V31.B16
	CBZ R0, sgemm8x12_store
	TBZ $0, R0, sgemm8x12_pairs
	STEP8x12
	SUB $1, R0
	CBZ R0, sgemm8x12_store

sgemm8x12_pairs:
	STEP8x12
	STEP8x12
	SUBS $2, R0
	BNE sgemm8x12_pairs

sgemm8x12_store:
	CBNZ R5, sgemm8x12_storec
	STORE8x12(V8, V9, V10, 8, 9, 10)
	STORE8x12(V11, V12, V13, 11, 12, 13)
	STORE8x12(V14, V15, V16, 14, 15, 16)
	STORE8x12(V17, V18, V19, 17, 18, 19)
	STORE8x12(V20, V21, V22, 20, 21, 22)
	STORE8x12(V23, V24, V25, 23, 24, 25)
	STORE8x12(V26, V27, V28, 26, 27, 28)
	STORE8x12(V29, V30, V31, 29, 30, 31)
	RET

sgemm8x12_storec:
	STOREC8x12(V8, V9, V10, 8, 9, 10)
	STOREC8x12(V11, V12, V13, 11, 12, 13)
	STOREC8x12(V14, V15, V16, 14, 15, 16)
	STOREC8x12(V17, V18, V19, 17, 18, 19)
	STOREC8x12(V20, V21, V22, 20, 21, 22)
	STOREC8x12(V23, V24, V25, 23, 24, 25)
	STOREC8x12(V26, V27, V28, 26, 27, 28)
	STOREC8x12(V29, V30, V31, 29, 30, 31)
	RET

// ---------------------------------------------------------------------
// Depthwise convolution row (dwconv.go's driver): dst[i] = init +
// Σ_{a<kh, b<kw} w[a*kw+b]·src[a*ld+i+b] for i < n, init = dst[i] when acc
// != 0, else bias; 16 outputs at a time, then 4, then 1 (lane 0 of a
// vector whose other lanes are ignored). Each tap is one fused multiply-add
// into the output, taps in order a, b.

// func dwConvRowNEON(dst, src *float32, ld, n int, w *float32, kh, kw int, bias float32, acc uint32)
TEXT ·dwConvRowNEON(SB), NOSPLIT, $0-64
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD ld+16(FP), R2
	LSL $2, R2
	MOVD n+24(FP), R3
	MOVD w+32(FP), R4
	MOVD kh+40(FP), R5
	MOVD kw+48(FP), R6
	FMOVS bias+56(FP), F7
	MOVWU acc+60(FP), R7
	VDUP V7.S[0], V7.S4


dw16:
	CMP $16, R3
	BLT dw16_next
	CBZ R7, dw16_bias
	VLD1 (R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	JMP dw16_taps
dw16_bias:
	VORR V7.B16, V7.B16, V0.B16
	VORR V7.B16, V7.B16, V1.B16
	VORR V7.B16, V7.B16, V2.B16
	VORR V7.B16, V7.B16, V3.B16
dw16_taps:
	MOVD R1, R8
	MOVD R4, R9
	MOVD R5, R10
dw16_row:
	MOVD R8, R11
	MOVD R6, R12
dw16_col:
	VLD1R.P 4(R9), [V4.S4]
	VLD1 (R11), [V16.S4, V17.S4, V18.S4, V19.S4]
	VFMLA V4.S4, V16.S4, V0.S4
	VFMLA V4.S4, V17.S4, V1.S4
	VFMLA V4.S4, V18.S4, V2.S4
	VFMLA V4.S4, V19.S4, V3.S4
	ADD $4, R11
	SUBS $1, R12
	BNE dw16_col
	ADD R2, R8
	SUBS $1, R10
	BNE dw16_row
	VST1 [V0.S4, V1.S4, V2.S4, V3.S4], (R0)
	ADD $64, R0
	ADD $64, R1
	SUB $16, R3
	JMP dw16
dw16_next:

dw4:
	CMP $4, R3
	BLT dw4_next
	CBZ R7, dw4_bias
	VLD1 (R0), [V0.S4]
	JMP dw4_taps
dw4_bias:
	VORR V7.B16, V7.B16, V0.B16
dw4_taps:
	MOVD R1, R8
	MOVD R4, R9
	MOVD R5, R10
dw4_row:
	MOVD R8, R11
	MOVD R6, R12
dw4_col:
	VLD1R.P 4(R9), [V4.S4]
	VLD1 (R11), [V16.S4]
	VFMLA V4.S4, V16.S4, V0.S4
	ADD $4, R11
	SUBS $1, R12
	BNE dw4_col
	ADD R2, R8
	SUBS $1, R10
	BNE dw4_row
	VST1 [V0.S4], (R0)
	ADD $16, R0
	ADD $16, R1
	SUB $4, R3
	JMP dw4
dw4_next:

dw1:
	CMP $1, R3
	BLT dw1_next
	CBZ R7, dw1_bias
	FMOVS (R0), F0
	JMP dw1_taps
dw1_bias:
	FMOVS F7, F0
dw1_taps:
	MOVD R1, R8
	MOVD R4, R9
	MOVD R5, R10
dw1_row:
	MOVD R8, R11
	MOVD R6, R12
dw1_col:
	VLD1R.P 4(R9), [V4.S4]
	FMOVS (R11), F16
	VFMLA V4.S4, V16.S4, V0.S4
	ADD $4, R11
	SUBS $1, R12
	BNE dw1_col
	ADD R2, R8
	SUBS $1, R10
	BNE dw1_row
	FMOVS F0, (R0)
	ADD $4, R0
	ADD $4, R1
	SUB $1, R3
	JMP dw1
dw1_next:
	RET


// ---------------------------------------------------------------------
// Elementwise rows: n a multiple of 4 (the Go callers do the rest), 16
// elements a time, then 4. Each is bitwise Go's scalar operation on arm64
// (same IEEE operation, same NaN choice: the first operand's).


// func addVVNEON(o, a, b *float32, n int): o[i] = a[i] + b[i]
TEXT ·addVVNEON(SB), NOSPLIT, $0-32
	MOVD o+0(FP), R0
	MOVD a+8(FP), R1
	MOVD b+16(FP), R2
	MOVD n+24(FP), R3
addVVNEON_16:
	CMP $16, R3
	BLT addVVNEON_4
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R2), [V4.S4, V5.S4, V6.S4, V7.S4]
	FADD4(0, 0, 4)
	FADD4(1, 1, 5)
	FADD4(2, 2, 6)
	FADD4(3, 3, 7)
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB $16, R3
	JMP addVVNEON_16
addVVNEON_4:
	CBZ R3, addVVNEON_done
	VLD1.P 16(R1), [V0.S4]
	VLD1.P 16(R2), [V4.S4]
	FADD4(0, 0, 4)
	VST1.P [V0.S4], 16(R0)
	SUB $4, R3
	JMP addVVNEON_4
addVVNEON_done:
	RET


// func mulVVNEON(o, a, b *float32, n int): o[i] = a[i] · b[i]
TEXT ·mulVVNEON(SB), NOSPLIT, $0-32
	MOVD o+0(FP), R0
	MOVD a+8(FP), R1
	MOVD b+16(FP), R2
	MOVD n+24(FP), R3
mulVVNEON_16:
	CMP $16, R3
	BLT mulVVNEON_4
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VLD1.P 64(R2), [V4.S4, V5.S4, V6.S4, V7.S4]
	FMUL4(0, 0, 4)
	FMUL4(1, 1, 5)
	FMUL4(2, 2, 6)
	FMUL4(3, 3, 7)
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB $16, R3
	JMP mulVVNEON_16
mulVVNEON_4:
	CBZ R3, mulVVNEON_done
	VLD1.P 16(R1), [V0.S4]
	VLD1.P 16(R2), [V4.S4]
	FMUL4(0, 0, 4)
	VST1.P [V0.S4], 16(R0)
	SUB $4, R3
	JMP mulVVNEON_4
mulVVNEON_done:
	RET


// func addVSNEON(o, a *float32, n int, s float32): o[i] = a[i] + s
TEXT ·addVSNEON(SB), NOSPLIT, $0-28
	MOVD o+0(FP), R0
	MOVD a+8(FP), R1
	MOVD n+16(FP), R3
	FMOVS s+24(FP), F4
	VDUP V4.S[0], V4.S4
addVSNEON_16:
	CMP $16, R3
	BLT addVSNEON_4
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	FADD4(0, 0, 4)
	FADD4(1, 1, 4)
	FADD4(2, 2, 4)
	FADD4(3, 3, 4)
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB $16, R3
	JMP addVSNEON_16
addVSNEON_4:
	CBZ R3, addVSNEON_done
	VLD1.P 16(R1), [V0.S4]
	FADD4(0, 0, 4)
	VST1.P [V0.S4], 16(R0)
	SUB $4, R3
	JMP addVSNEON_4
addVSNEON_done:
	RET


// func mulVSNEON(o, a *float32, n int, s float32): o[i] = a[i] · s
TEXT ·mulVSNEON(SB), NOSPLIT, $0-28
	MOVD o+0(FP), R0
	MOVD a+8(FP), R1
	MOVD n+16(FP), R3
	FMOVS s+24(FP), F4
	VDUP V4.S[0], V4.S4
mulVSNEON_16:
	CMP $16, R3
	BLT mulVSNEON_4
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	FMUL4(0, 0, 4)
	FMUL4(1, 1, 4)
	FMUL4(2, 2, 4)
	FMUL4(3, 3, 4)
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB $16, R3
	JMP mulVSNEON_16
mulVSNEON_4:
	CBZ R3, mulVSNEON_done
	VLD1.P 16(R1), [V0.S4]
	FMUL4(0, 0, 4)
	VST1.P [V0.S4], 16(R0)
	SUB $4, R3
	JMP mulVSNEON_4
mulVSNEON_done:
	RET


// func reluNEON(y, x *float32, n int): y[i] = max(x[i], 0)
TEXT ·reluNEON(SB), NOSPLIT, $0-24
	MOVD y+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R3
	VEOR V31.B16, V31.B16, V31.B16
reluNEON_16:
	CMP $16, R3
	BLT reluNEON_4
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	FMAX4(0, 0, 31)
	FMAX4(1, 1, 31)
	FMAX4(2, 2, 31)
	FMAX4(3, 3, 31)
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB $16, R3
	JMP reluNEON_16
reluNEON_4:
	CBZ R3, reluNEON_done
	VLD1.P 16(R1), [V0.S4]
	FMAX4(0, 0, 31)
	VST1.P [V0.S4], 16(R0)
	SUB $4, R3
	JMP reluNEON_4
reluNEON_done:
	RET


// func hardswishNEON(y, x *float32, n int): y[i] = x[i]·min(max(x[i]+3, 0), 6)/6 (bitwise hardswishGo)
TEXT ·hardswishNEON(SB), NOSPLIT, $0-24
	MOVD y+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R3
	FMOVS $3.0, F29
	VDUP V29.S[0], V29.S4
	FMOVS $6.0, F30
	VDUP V30.S[0], V30.S4
	VEOR V31.B16, V31.B16, V31.B16
hardswishNEON_16:
	CMP $16, R3
	BLT hardswishNEON_4
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	FADD4(8, 0, 29)
	FADD4(9, 1, 29)
	FADD4(10, 2, 29)
	FADD4(11, 3, 29)
	FMAX4(8, 8, 31)
	FMAX4(9, 9, 31)
	FMAX4(10, 10, 31)
	FMAX4(11, 11, 31)
	FMIN4(8, 8, 30)
	FMIN4(9, 9, 30)
	FMIN4(10, 10, 30)
	FMIN4(11, 11, 30)
	FMUL4(0, 0, 8)
	FMUL4(1, 1, 9)
	FMUL4(2, 2, 10)
	FMUL4(3, 3, 11)
	FDIV4(0, 0, 30)
	FDIV4(1, 1, 30)
	FDIV4(2, 2, 30)
	FDIV4(3, 3, 30)
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB $16, R3
	JMP hardswishNEON_16
hardswishNEON_4:
	CBZ R3, hardswishNEON_done
	VLD1.P 16(R1), [V0.S4]
	FADD4(8, 0, 29)
	FMAX4(8, 8, 31)
	FMIN4(8, 8, 30)
	FMUL4(0, 0, 8)
	FDIV4(0, 0, 30)
	VST1.P [V0.S4], 16(R0)
	SUB $4, R3
	JMP hardswishNEON_4
hardswishNEON_done:
	RET


// func hardsigmoidNEON(y, x *float32, n int, alpha, beta float32): y[i] = min(max(alpha·x[i]+beta, 0), 1), the multiply-add fused as Go fuses it on arm64
TEXT ·hardsigmoidNEON(SB), NOSPLIT, $0-32
	MOVD y+0(FP), R0
	MOVD x+8(FP), R1
	MOVD n+16(FP), R3
	FMOVS alpha+24(FP), F28
	VDUP V28.S[0], V28.S4
	FMOVS beta+28(FP), F29
	VDUP V29.S[0], V29.S4
	FMOVS $1.0, F30
	VDUP V30.S[0], V30.S4
	VEOR V31.B16, V31.B16, V31.B16
hardsigmoidNEON_16:
	CMP $16, R3
	BLT hardsigmoidNEON_4
	VLD1.P 64(R1), [V0.S4, V1.S4, V2.S4, V3.S4]
	VORR V29.B16, V29.B16, V8.B16
	VORR V29.B16, V29.B16, V9.B16
	VORR V29.B16, V29.B16, V10.B16
	VORR V29.B16, V29.B16, V11.B16
	VFMLA V28.S4, V0.S4, V8.S4
	VFMLA V28.S4, V1.S4, V9.S4
	VFMLA V28.S4, V2.S4, V10.S4
	VFMLA V28.S4, V3.S4, V11.S4
	FMAX4(8, 8, 31)
	FMAX4(9, 9, 31)
	FMAX4(10, 10, 31)
	FMAX4(11, 11, 31)
	FMIN4(0, 8, 30)
	FMIN4(1, 9, 30)
	FMIN4(2, 10, 30)
	FMIN4(3, 11, 30)
	VST1.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R0)
	SUB $16, R3
	JMP hardsigmoidNEON_16
hardsigmoidNEON_4:
	CBZ R3, hardsigmoidNEON_done
	VLD1.P 16(R1), [V0.S4]
	VORR V29.B16, V29.B16, V8.B16
	VFMLA V28.S4, V0.S4, V8.S4
	FMAX4(8, 8, 31)
	FMIN4(0, 8, 30)
	VST1.P [V0.S4], 16(R0)
	SUB $4, R3
	JMP hardsigmoidNEON_4
hardsigmoidNEON_done:
	RET


// ---------------------------------------------------------------------
// func stride2RowsNEON(dst *float32, ldd int, src *float32, lds, n, rows int)
// dst[r*ldd+i] = src[r*lds+2i] for r < rows, i < n, n a multiple of 4
// (reads src up to r*lds+2n-1): VLD2 splits even and odd elements.
TEXT ·stride2RowsNEON(SB), NOSPLIT, $0-48
	MOVD dst+0(FP), R0
	MOVD ldd+8(FP), R1
	LSL $2, R1
	MOVD src+16(FP), R2
	MOVD lds+24(FP), R3
	LSL $2, R3
	MOVD n+32(FP), R4
	MOVD rows+40(FP), R5
	CBZ R4, s2r_done
	CBZ R5, s2r_done
s2r_row:
	MOVD R0, R6
	MOVD R2, R7
	MOVD R4, R8
s2r_8:
	CMP $8, R8
	BLT s2r_4
	VLD2.P 32(R7), [V0.S4, V1.S4]
	VLD2.P 32(R7), [V2.S4, V3.S4]
	VST1.P [V0.S4], 16(R6)
	VST1.P [V2.S4], 16(R6)
	SUB $8, R8
	JMP s2r_8
s2r_4:
	CBZ R8, s2r_next
	VLD2.P 32(R7), [V0.S4, V1.S4]
	VST1.P [V0.S4], 16(R6)
s2r_next:
	ADD R1, R0
	ADD R3, R2
	SUBS $1, R5
	BNE s2r_row
s2r_done:
	RET

// ---------------------------------------------------------------------
// Winograd F(4×4, 3×3) tile transforms (winograd.go), 4 tiles per pass
// (one per lane), 4 passes per group of 16 tiles; the contracts are the
// amd64 ones (winograd_amd64.s). FSUB4 is the vector FSUB.
#define FSUB4(d, n, m) WORD $(0x4EA0D400 | ((m)<<16) | ((n)<<5) | (d))

// BT6 applies Bᵀ to V0–V5 (d0..d5), results in V16–V21; V24 = 4, V25 = 5.
#define BT6 \
	VORR V4.B16, V4.B16, V6.B16 \
	VFMLS V24.S4, V2.S4, V6.S4 \
	VORR V3.B16, V3.B16, V7.B16 \
	VFMLS V24.S4, V1.S4, V7.S4 \
	FSUB4(8, 4, 2) \
	FSUB4(9, 3, 1) \
	FADD4(9, 9, 9) \
	VORR V4.B16, V4.B16, V16.B16 \
	VFMLA V24.S4, V0.S4, V16.S4 \
	VFMLS V25.S4, V2.S4, V16.S4 \
	FADD4(17, 6, 7) \
	FSUB4(18, 6, 7) \
	FADD4(19, 8, 9) \
	FSUB4(20, 8, 9) \
	VORR V5.B16, V5.B16, V21.B16 \
	VFMLA V24.S4, V1.S4, V21.S4 \
	VFMLS V25.S4, V3.S4, V21.S4

// AT6 applies Aᵀ to V0–V5 (m0..m5), results in V16–V19; V24 = 4, V26 = 2,
// V27 = 8.
#define AT6 \
	FADD4(6, 1, 2) \
	FADD4(7, 3, 4) \
	FSUB4(8, 1, 2) \
	FSUB4(9, 3, 4) \
	FADD4(16, 0, 6) \
	FADD4(16, 16, 7) \
	VORR V8.B16, V8.B16, V17.B16 \
	VFMLA V26.S4, V9.S4, V17.S4 \
	VORR V6.B16, V6.B16, V18.B16 \
	VFMLA V24.S4, V7.S4, V18.S4 \
	VORR V8.B16, V8.B16, V19.B16 \
	VFMLA V27.S4, V9.S4, V19.S4 \
	FADD4(19, 19, 5)

// func wgInput16NEON(src *float32, lds int, dst *float32, ldv int, scratch *float32, groups int)
TEXT ·wgInput16NEON(SB), NOSPLIT, $0-48
	MOVD src+0(FP), R0
	MOVD lds+8(FP), R1
	LSL $2, R1              // lds bytes
	MOVD dst+16(FP), R2
	MOVD ldv+24(FP), R3
	LSL $2, R3              // ldv bytes
	MOVD scratch+32(FP), R4
	MOVD groups+40(FP), R5
	LSL $2, R5              // passes of 4 tiles
	LSL $2, R1, R6          // 4·lds bytes: the next input row's planes
	ADD R1, R1, R7          // 2·lds
	ADD R1, R7, R8          // 3·lds
	FMOVS $4.0, F24
	VDUP V24.S[0], V24.S4
	FMOVS $5.0, F25
	VDUP V25.S[0], V25.S4
	CBZ R5, wgin_done
wgin_pass:

	MOVD R0, R10
	VLD1 (R10), [V0.S4]
	ADD R6, R10
	VLD1 (R10), [V1.S4]
	ADD R6, R10
	VLD1 (R10), [V2.S4]
	ADD R6, R10
	VLD1 (R10), [V3.S4]
	ADD R6, R10
	VLD1 (R10), [V4.S4]
	ADD R6, R10
	VLD1 (R10), [V5.S4]
	BT6
	FMOVQ F16, 0(R4)
	FMOVQ F17, 96(R4)
	FMOVQ F18, 192(R4)
	FMOVQ F19, 288(R4)
	FMOVQ F20, 384(R4)
	FMOVQ F21, 480(R4)
	ADD R1, R0, R10
	VLD1 (R10), [V0.S4]
	ADD R6, R10
	VLD1 (R10), [V1.S4]
	ADD R6, R10
	VLD1 (R10), [V2.S4]
	ADD R6, R10
	VLD1 (R10), [V3.S4]
	ADD R6, R10
	VLD1 (R10), [V4.S4]
	ADD R6, R10
	VLD1 (R10), [V5.S4]
	BT6
	FMOVQ F16, 16(R4)
	FMOVQ F17, 112(R4)
	FMOVQ F18, 208(R4)
	FMOVQ F19, 304(R4)
	FMOVQ F20, 400(R4)
	FMOVQ F21, 496(R4)
	ADD R7, R0, R10
	VLD1 (R10), [V0.S4]
	ADD R6, R10
	VLD1 (R10), [V1.S4]
	ADD R6, R10
	VLD1 (R10), [V2.S4]
	ADD R6, R10
	VLD1 (R10), [V3.S4]
	ADD R6, R10
	VLD1 (R10), [V4.S4]
	ADD R6, R10
	VLD1 (R10), [V5.S4]
	BT6
	FMOVQ F16, 32(R4)
	FMOVQ F17, 128(R4)
	FMOVQ F18, 224(R4)
	FMOVQ F19, 320(R4)
	FMOVQ F20, 416(R4)
	FMOVQ F21, 512(R4)
	ADD R8, R0, R10
	VLD1 (R10), [V0.S4]
	ADD R6, R10
	VLD1 (R10), [V1.S4]
	ADD R6, R10
	VLD1 (R10), [V2.S4]
	ADD R6, R10
	VLD1 (R10), [V3.S4]
	ADD R6, R10
	VLD1 (R10), [V4.S4]
	ADD R6, R10
	VLD1 (R10), [V5.S4]
	BT6
	FMOVQ F16, 48(R4)
	FMOVQ F17, 144(R4)
	FMOVQ F18, 240(R4)
	FMOVQ F19, 336(R4)
	FMOVQ F20, 432(R4)
	FMOVQ F21, 528(R4)
	MOVD R0, R10
	ADD $4, R10
	VLD1 (R10), [V0.S4]
	ADD R6, R10
	VLD1 (R10), [V1.S4]
	ADD R6, R10
	VLD1 (R10), [V2.S4]
	ADD R6, R10
	VLD1 (R10), [V3.S4]
	ADD R6, R10
	VLD1 (R10), [V4.S4]
	ADD R6, R10
	VLD1 (R10), [V5.S4]
	BT6
	FMOVQ F16, 64(R4)
	FMOVQ F17, 160(R4)
	FMOVQ F18, 256(R4)
	FMOVQ F19, 352(R4)
	FMOVQ F20, 448(R4)
	FMOVQ F21, 544(R4)
	ADD R1, R0, R10
	ADD $4, R10
	VLD1 (R10), [V0.S4]
	ADD R6, R10
	VLD1 (R10), [V1.S4]
	ADD R6, R10
	VLD1 (R10), [V2.S4]
	ADD R6, R10
	VLD1 (R10), [V3.S4]
	ADD R6, R10
	VLD1 (R10), [V4.S4]
	ADD R6, R10
	VLD1 (R10), [V5.S4]
	BT6
	FMOVQ F16, 80(R4)
	FMOVQ F17, 176(R4)
	FMOVQ F18, 272(R4)
	FMOVQ F19, 368(R4)
	FMOVQ F20, 464(R4)
	FMOVQ F21, 560(R4)
	MOVD R2, R10
	FMOVQ 0(R4), F0
	FMOVQ 16(R4), F1
	FMOVQ 32(R4), F2
	FMOVQ 48(R4), F3
	FMOVQ 64(R4), F4
	FMOVQ 80(R4), F5
	BT6
	VST1 [V16.S4], (R10)
	ADD R3, R10
	VST1 [V17.S4], (R10)
	ADD R3, R10
	VST1 [V18.S4], (R10)
	ADD R3, R10
	VST1 [V19.S4], (R10)
	ADD R3, R10
	VST1 [V20.S4], (R10)
	ADD R3, R10
	VST1 [V21.S4], (R10)
	ADD R3, R10
	FMOVQ 96(R4), F0
	FMOVQ 112(R4), F1
	FMOVQ 128(R4), F2
	FMOVQ 144(R4), F3
	FMOVQ 160(R4), F4
	FMOVQ 176(R4), F5
	BT6
	VST1 [V16.S4], (R10)
	ADD R3, R10
	VST1 [V17.S4], (R10)
	ADD R3, R10
	VST1 [V18.S4], (R10)
	ADD R3, R10
	VST1 [V19.S4], (R10)
	ADD R3, R10
	VST1 [V20.S4], (R10)
	ADD R3, R10
	VST1 [V21.S4], (R10)
	ADD R3, R10
	FMOVQ 192(R4), F0
	FMOVQ 208(R4), F1
	FMOVQ 224(R4), F2
	FMOVQ 240(R4), F3
	FMOVQ 256(R4), F4
	FMOVQ 272(R4), F5
	BT6
	VST1 [V16.S4], (R10)
	ADD R3, R10
	VST1 [V17.S4], (R10)
	ADD R3, R10
	VST1 [V18.S4], (R10)
	ADD R3, R10
	VST1 [V19.S4], (R10)
	ADD R3, R10
	VST1 [V20.S4], (R10)
	ADD R3, R10
	VST1 [V21.S4], (R10)
	ADD R3, R10
	FMOVQ 288(R4), F0
	FMOVQ 304(R4), F1
	FMOVQ 320(R4), F2
	FMOVQ 336(R4), F3
	FMOVQ 352(R4), F4
	FMOVQ 368(R4), F5
	BT6
	VST1 [V16.S4], (R10)
	ADD R3, R10
	VST1 [V17.S4], (R10)
	ADD R3, R10
	VST1 [V18.S4], (R10)
	ADD R3, R10
	VST1 [V19.S4], (R10)
	ADD R3, R10
	VST1 [V20.S4], (R10)
	ADD R3, R10
	VST1 [V21.S4], (R10)
	ADD R3, R10
	FMOVQ 384(R4), F0
	FMOVQ 400(R4), F1
	FMOVQ 416(R4), F2
	FMOVQ 432(R4), F3
	FMOVQ 448(R4), F4
	FMOVQ 464(R4), F5
	BT6
	VST1 [V16.S4], (R10)
	ADD R3, R10
	VST1 [V17.S4], (R10)
	ADD R3, R10
	VST1 [V18.S4], (R10)
	ADD R3, R10
	VST1 [V19.S4], (R10)
	ADD R3, R10
	VST1 [V20.S4], (R10)
	ADD R3, R10
	VST1 [V21.S4], (R10)
	ADD R3, R10
	FMOVQ 480(R4), F0
	FMOVQ 496(R4), F1
	FMOVQ 512(R4), F2
	FMOVQ 528(R4), F3
	FMOVQ 544(R4), F4
	FMOVQ 560(R4), F5
	BT6
	VST1 [V16.S4], (R10)
	ADD R3, R10
	VST1 [V17.S4], (R10)
	ADD R3, R10
	VST1 [V18.S4], (R10)
	ADD R3, R10
	VST1 [V19.S4], (R10)
	ADD R3, R10
	VST1 [V20.S4], (R10)
	ADD R3, R10
	VST1 [V21.S4], (R10)
	ADD R3, R10
	ADD $16, R0
	ADD $16, R2
	SUBS $1, R5
	BNE wgin_pass
wgin_done:
	RET

// func wgOutput16NEON(m *float32, ldm int, dst *float32, ldo int, scratch *float32, groups int, bias float32)
TEXT ·wgOutput16NEON(SB), NOSPLIT, $0-52
	MOVD m+0(FP), R0
	MOVD ldm+8(FP), R1
	LSL $2, R1              // ldm bytes
	MOVD dst+16(FP), R2
	MOVD ldo+24(FP), R3
	LSL $2, R3              // ldo bytes
	MOVD scratch+32(FP), R4
	MOVD groups+40(FP), R5
	LSL $2, R5
	FMOVS bias+48(FP), F28
	VDUP V28.S[0], V28.S4
	MOVD $6, R6
	MUL R1, R6              // 6·ldm bytes: the next row of M's 6×6
	FMOVS $4.0, F24
	VDUP V24.S[0], V24.S4
	FMOVS $2.0, F26
	VDUP V26.S[0], V26.S4
	FMOVS $8.0, F27
	VDUP V27.S[0], V27.S4
	CBZ R5, wgout_done
wgout_pass:
	MOVD R0, R9

	MOVD R9, R10
	VLD1 (R10), [V0.S4]
	ADD R6, R10
	VLD1 (R10), [V1.S4]
	ADD R6, R10
	VLD1 (R10), [V2.S4]
	ADD R6, R10
	VLD1 (R10), [V3.S4]
	ADD R6, R10
	VLD1 (R10), [V4.S4]
	ADD R6, R10
	VLD1 (R10), [V5.S4]
	AT6
	FMOVQ F16, 0(R4)
	FMOVQ F17, 96(R4)
	FMOVQ F18, 192(R4)
	FMOVQ F19, 288(R4)
	ADD R1, R9
	MOVD R9, R10
	VLD1 (R10), [V0.S4]
	ADD R6, R10
	VLD1 (R10), [V1.S4]
	ADD R6, R10
	VLD1 (R10), [V2.S4]
	ADD R6, R10
	VLD1 (R10), [V3.S4]
	ADD R6, R10
	VLD1 (R10), [V4.S4]
	ADD R6, R10
	VLD1 (R10), [V5.S4]
	AT6
	FMOVQ F16, 16(R4)
	FMOVQ F17, 112(R4)
	FMOVQ F18, 208(R4)
	FMOVQ F19, 304(R4)
	ADD R1, R9
	MOVD R9, R10
	VLD1 (R10), [V0.S4]
	ADD R6, R10
	VLD1 (R10), [V1.S4]
	ADD R6, R10
	VLD1 (R10), [V2.S4]
	ADD R6, R10
	VLD1 (R10), [V3.S4]
	ADD R6, R10
	VLD1 (R10), [V4.S4]
	ADD R6, R10
	VLD1 (R10), [V5.S4]
	AT6
	FMOVQ F16, 32(R4)
	FMOVQ F17, 128(R4)
	FMOVQ F18, 224(R4)
	FMOVQ F19, 320(R4)
	ADD R1, R9
	MOVD R9, R10
	VLD1 (R10), [V0.S4]
	ADD R6, R10
	VLD1 (R10), [V1.S4]
	ADD R6, R10
	VLD1 (R10), [V2.S4]
	ADD R6, R10
	VLD1 (R10), [V3.S4]
	ADD R6, R10
	VLD1 (R10), [V4.S4]
	ADD R6, R10
	VLD1 (R10), [V5.S4]
	AT6
	FMOVQ F16, 48(R4)
	FMOVQ F17, 144(R4)
	FMOVQ F18, 240(R4)
	FMOVQ F19, 336(R4)
	ADD R1, R9
	MOVD R9, R10
	VLD1 (R10), [V0.S4]
	ADD R6, R10
	VLD1 (R10), [V1.S4]
	ADD R6, R10
	VLD1 (R10), [V2.S4]
	ADD R6, R10
	VLD1 (R10), [V3.S4]
	ADD R6, R10
	VLD1 (R10), [V4.S4]
	ADD R6, R10
	VLD1 (R10), [V5.S4]
	AT6
	FMOVQ F16, 64(R4)
	FMOVQ F17, 160(R4)
	FMOVQ F18, 256(R4)
	FMOVQ F19, 352(R4)
	ADD R1, R9
	MOVD R9, R10
	VLD1 (R10), [V0.S4]
	ADD R6, R10
	VLD1 (R10), [V1.S4]
	ADD R6, R10
	VLD1 (R10), [V2.S4]
	ADD R6, R10
	VLD1 (R10), [V3.S4]
	ADD R6, R10
	VLD1 (R10), [V4.S4]
	ADD R6, R10
	VLD1 (R10), [V5.S4]
	AT6
	FMOVQ F16, 80(R4)
	FMOVQ F17, 176(R4)
	FMOVQ F18, 272(R4)
	FMOVQ F19, 368(R4)
	MOVD R2, R10
	FMOVQ 0(R4), F0
	FMOVQ 16(R4), F1
	FMOVQ 32(R4), F2
	FMOVQ 48(R4), F3
	FMOVQ 64(R4), F4
	FMOVQ 80(R4), F5
	AT6
	FADD4(16, 16, 28)
	VST1 [V16.S4], (R10)
	ADD R3, R10
	FADD4(17, 17, 28)
	VST1 [V17.S4], (R10)
	ADD R3, R10
	FADD4(18, 18, 28)
	VST1 [V18.S4], (R10)
	ADD R3, R10
	FADD4(19, 19, 28)
	VST1 [V19.S4], (R10)
	ADD R3, R10
	FMOVQ 96(R4), F0
	FMOVQ 112(R4), F1
	FMOVQ 128(R4), F2
	FMOVQ 144(R4), F3
	FMOVQ 160(R4), F4
	FMOVQ 176(R4), F5
	AT6
	FADD4(16, 16, 28)
	VST1 [V16.S4], (R10)
	ADD R3, R10
	FADD4(17, 17, 28)
	VST1 [V17.S4], (R10)
	ADD R3, R10
	FADD4(18, 18, 28)
	VST1 [V18.S4], (R10)
	ADD R3, R10
	FADD4(19, 19, 28)
	VST1 [V19.S4], (R10)
	ADD R3, R10
	FMOVQ 192(R4), F0
	FMOVQ 208(R4), F1
	FMOVQ 224(R4), F2
	FMOVQ 240(R4), F3
	FMOVQ 256(R4), F4
	FMOVQ 272(R4), F5
	AT6
	FADD4(16, 16, 28)
	VST1 [V16.S4], (R10)
	ADD R3, R10
	FADD4(17, 17, 28)
	VST1 [V17.S4], (R10)
	ADD R3, R10
	FADD4(18, 18, 28)
	VST1 [V18.S4], (R10)
	ADD R3, R10
	FADD4(19, 19, 28)
	VST1 [V19.S4], (R10)
	ADD R3, R10
	FMOVQ 288(R4), F0
	FMOVQ 304(R4), F1
	FMOVQ 320(R4), F2
	FMOVQ 336(R4), F3
	FMOVQ 352(R4), F4
	FMOVQ 368(R4), F5
	AT6
	FADD4(16, 16, 28)
	VST1 [V16.S4], (R10)
	ADD R3, R10
	FADD4(17, 17, 28)
	VST1 [V17.S4], (R10)
	ADD R3, R10
	FADD4(18, 18, 28)
	VST1 [V18.S4], (R10)
	ADD R3, R10
	FADD4(19, 19, 28)
	VST1 [V19.S4], (R10)
	ADD R3, R10
	ADD $16, R0
	ADD $16, R2
	SUBS $1, R5
	BNE wgout_pass
wgout_done:
	RET

// func wgDeint4NEON(src, dst *float32, ldd, groups int)
// dst[m*ldd + k] = src[4k + m] for m < 4, k < 16·groups (VLD4).
TEXT ·wgDeint4NEON(SB), NOSPLIT, $0-32
	MOVD src+0(FP), R0
	MOVD dst+8(FP), R1
	MOVD ldd+16(FP), R2
	LSL $2, R2
	MOVD groups+24(FP), R3
	LSL $2, R3
	CBZ R3, wgdeint_done
wgdeint_loop:
	VLD4.P 64(R0), [V0.S4, V1.S4, V2.S4, V3.S4]
	MOVD R1, R4
	VST1 [V0.S4], (R4)
	ADD R2, R4
	VST1 [V1.S4], (R4)
	ADD R2, R4
	VST1 [V2.S4], (R4)
	ADD R2, R4
	VST1 [V3.S4], (R4)
	ADD $16, R1
	SUBS $1, R3
	BNE wgdeint_loop
wgdeint_done:
	RET

// func wgInt4NEON(src *float32, lds int, dst *float32, groups int)
// dst[4k + m] = src[m*lds + k] for m < 4, k < 16·groups (VST4).
TEXT ·wgInt4NEON(SB), NOSPLIT, $0-32
	MOVD src+0(FP), R0
	MOVD lds+8(FP), R2
	LSL $2, R2
	MOVD dst+16(FP), R1
	MOVD groups+24(FP), R3
	LSL $2, R3
	CBZ R3, wgint_done
wgint_loop:
	MOVD R0, R4
	VLD1 (R4), [V0.S4]
	ADD R2, R4
	VLD1 (R4), [V1.S4]
	ADD R2, R4
	VLD1 (R4), [V2.S4]
	ADD R2, R4
	VLD1 (R4), [V3.S4]
	VST4.P [V0.S4, V1.S4, V2.S4, V3.S4], 64(R1)
	ADD $16, R0
	SUBS $1, R3
	BNE wgint_loop
wgint_done:
	RET

// ---------------------------------------------------------------------
// func maxPool2x2NEON(dst, r0, r1 *float32, n int)
// dst[i] = the max of r0[2i], r0[2i+1], r1[2i], r1[2i+1] for i < n, n a
// multiple of 4, bitwise maxPool2x2's loop: taken in that order, a later
// value x replaces the max m when x > m or x is a NaN (FCMGT, FCMEQ x, x,
// ORN for the mask, BIT to insert).
#define FCMGT4(d, n, m) WORD $(0x6EA0E400 | ((m)<<16) | ((n)<<5) | (d))
#define FCMEQ4(d, n, m) WORD $(0x4E20E400 | ((m)<<16) | ((n)<<5) | (d))
#define ORN16(d, n, m) WORD $(0x4EE01C00 | ((m)<<16) | ((n)<<5) | (d))
#define BIT16(d, n, m) WORD $(0x6EA01C00 | ((m)<<16) | ((n)<<5) | (d))

// MAXSTEP replaces lanes of m (V0) by x where x > m or x is a NaN.
#define MAXSTEP(x) \
	FCMGT4(4, x, 0) \
	FCMEQ4(5, x, x) \
	ORN16(4, 4, 5) \
	BIT16(0, x, 4)

TEXT ·maxPool2x2NEON(SB), NOSPLIT, $0-32
	MOVD dst+0(FP), R0
	MOVD r0+8(FP), R1
	MOVD r1+16(FP), R2
	MOVD n+24(FP), R3
	CBZ R3, mp_done
mp_loop:
	VLD2.P 32(R1), [V0.S4, V1.S4]
	VLD2.P 32(R2), [V2.S4, V3.S4]
	MAXSTEP(1)
	MAXSTEP(2)
	MAXSTEP(3)
	VST1.P [V0.S4], 16(R0)
	SUBS $4, R3
	BNE mp_loop
mp_done:
	RET

// ---------------------------------------------------------------------
// func epilogueNEON(c *float32, ldc, rows, cols int, kind uint32, rowBias, colBias *float32, scale, shift float32)
// The SGEMM epilogue (Epilogue.applyGo, bitwise) on a rows×cols tile, cols
// a multiple of 4: v += rowBias[r] (rowBias nil: none), v += colBias[j]
// (nil: none), then the act kind&0xff (0 none, 1 relu, 5 hardswish6),
// then v = v·scale + shift (two roundings) when kind&0x100.
TEXT ·epilogueNEON(SB), NOSPLIT, $0-64
	MOVD c+0(FP), R0
	MOVD ldc+8(FP), R1
	LSL $2, R1
	MOVD rows+16(FP), R2
	MOVD cols+24(FP), R3
	MOVWU kind+32(FP), R4
	MOVD rowBias+40(FP), R5
	MOVD colBias+48(FP), R6
	FMOVS scale+56(FP), F23
	VDUP V23.S[0], V23.S4
	FMOVS shift+60(FP), F24
	VDUP V24.S[0], V24.S4
	VEOR V20.B16, V20.B16, V20.B16
	FMOVS $3.0, F21
	VDUP V21.S[0], V21.S4
	FMOVS $6.0, F22
	VDUP V22.S[0], V22.S4
	AND $0xff, R4, R7
	AND $0x100, R4, R8
	CBZ R2, ep_done
	CBZ R3, ep_done
ep_row:
	MOVD R0, R9
	MOVD R6, R10
	MOVD R3, R11
	CBZ R5, ep_col
	VLD1R.P 4(R5), [V25.S4]
ep_col:
	VLD1 (R9), [V0.S4]
	CBZ R5, ep_norb
	FADD4(0, 0, 25)
ep_norb:
	CBZ R6, ep_nocb
	VLD1.P 16(R10), [V1.S4]
	FADD4(0, 0, 1)
ep_nocb:
	CMP $1, R7
	BNE ep_norelu
	FMAX4(0, 0, 20)
	JMP ep_act
ep_norelu:
	CMP $5, R7
	BNE ep_act
	FADD4(2, 0, 21)
	FMAX4(2, 2, 20)
	FMIN4(2, 2, 22)
	FMUL4(0, 0, 2)
	FDIV4(0, 0, 22)
ep_act:
	CBZ R8, ep_store
	FMUL4(0, 0, 23)
	FADD4(0, 0, 24)
ep_store:
	VST1.P [V0.S4], 16(R9)
	SUBS $4, R11
	BNE ep_col
	ADD R1, R0
	SUBS $1, R2
	BNE ep_row
ep_done:
	RET
