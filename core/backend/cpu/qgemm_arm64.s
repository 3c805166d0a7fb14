//go:build arm64 && !purego

#include "textflag.h"

// Int8 GEMM micro-kernels of the neon level (qgemm_arm64.go), 8×12 int32
// tiles: row r, columns 4j..4j+3 accumulate in V(8+3r+j), V8–V31, as the
// float 8×12 kernel (neon_arm64.s). Go's arm64 assembler has neither SDOT
// nor the by-element SMLAL/SMLAL2, so they are WORDs (Arm ARM encodings;
// d, n, m are V register numbers).

// SDOT Vd.4S, Vn.16B, Vm.4B[i]: lane l of Vd += Σ_t Vn.b[4l+t]·Vm.b[4i+t]
// (signed bytes; FEAT_DotProd). m is 0–31 (its bit 4 is the M bit).
#define SDOTE(d, n, m, i) WORD $(0x4F80E000 | (((i)&1)<<21) | ((m)<<16) | (((i)>>1)<<11) | ((n)<<5) | (d))
// SDOT Vd.4S, Vn.16B, Vm.16B: lane l of Vd += Σ_t Vn.b[4l+t]·Vm.b[4l+t].
#define SDOTV(d, n, m) WORD $(0x4E809400 | ((m)<<16) | ((n)<<5) | (d))
// SMLAL Vd.4S, Vn.4H, Vm.H[i] and SMLAL2 Vd.4S, Vn.8H, Vm.H[i]: lane l of
// Vd += Vn.h[l]·Vm.h[i] (SMLAL2: Vn.h[4+l]); signed int16 products
// accumulated into int32. m is 0–15 (the index takes the M bit).
#define SMLALE(d, n, m, i) WORD $(0x0F402000 | ((((i)>>1)&1)<<21) | (((i)&1)<<20) | ((m)<<16) | ((((i)>>2)&1)<<11) | ((n)<<5) | (d))
#define SMLAL2E(d, n, m, i) WORD $(0x4F402000 | ((((i)>>1)&1)<<21) | (((i)&1)<<20) | ((m)<<16) | ((((i)>>2)&1)<<11) | ((n)<<5) | (d))

#define ZERO8x12 \
	VEOR V8.B16, V8.B16, V8.B16 \
	VEOR V9.B16, V9.B16, V9.B16 \
	VEOR V10.B16, V10.B16, V10.B16 \
	VEOR V11.B16, V11.B16, V11.B16 \
	VEOR V12.B16, V12.B16, V12.B16 \
	VEOR V13.B16, V13.B16, V13.B16 \
	VEOR V14.B16, V14.B16, V14.B16 \
	VEOR V15.B16, V15.B16, V15.B16 \
	VEOR V16.B16, V16.B16, V16.B16 \
	VEOR V17.B16, V17.B16, V17.B16 \
	VEOR V18.B16, V18.B16, V18.B16 \
	VEOR V19.B16, V19.B16, V19.B16 \
	VEOR V20.B16, V20.B16, V20.B16 \
	VEOR V21.B16, V21.B16, V21.B16 \
	VEOR V22.B16, V22.B16, V22.B16 \
	VEOR V23.B16, V23.B16, V23.B16 \
	VEOR V24.B16, V24.B16, V24.B16 \
	VEOR V25.B16, V25.B16, V25.B16 \
	VEOR V26.B16, V26.B16, V26.B16 \
	VEOR V27.B16, V27.B16, V27.B16 \
	VEOR V28.B16, V28.B16, V28.B16 \
	VEOR V29.B16, V29.B16, V29.B16 \
	VEOR V30.B16, V30.B16, V30.B16 \
	VEOR V31.B16, V31.B16, V31.B16

// STORE8x12 writes (or, with R5 != 0, adds into) the 8 rows of 12 int32
// at R3, R4 bytes apart; V0–V2 are scratch.
#define STOREROW(v0, v1, v2) \
	VST1 [v0.S4, v1.S4, v2.S4], (R3) \
	ADD R4, R3

#define ADDROW(v0, v1, v2) \
	VLD1 (R3), [V0.S4, V1.S4, V2.S4] \
	VADD V0.S4, v0.S4, v0.S4 \
	VADD V1.S4, v1.S4, v1.S4 \
	VADD V2.S4, v2.S4, v2.S4 \
	VST1 [v0.S4, v1.S4, v2.S4], (R3) \
	ADD R4, R3

#define STORE8x12(label) \
	CBNZ R5, label \
	STOREROW(V8, V9, V10) \
	STOREROW(V11, V12, V13) \
	STOREROW(V14, V15, V16) \
	STOREROW(V17, V18, V19) \
	STOREROW(V20, V21, V22) \
	STOREROW(V23, V24, V25) \
	STOREROW(V26, V27, V28) \
	STOREROW(V29, V30, V31) \
	RET \
label: \
	ADDROW(V8, V9, V10) \
	ADDROW(V11, V12, V13) \
	ADDROW(V14, V15, V16) \
	ADDROW(V17, V18, V19) \
	ADDROW(V20, V21, V22) \
	ADDROW(V23, V24, V25) \
	ADDROW(V26, V27, V28) \
	ADDROW(V29, V30, V31) \
	RET

// ---------------------------------------------------------------------
// SDOT kernel: a holds kp/4 groups of 8 rows × 4 bytes (V0: rows 0–3, V1:
// rows 4–7), b kp/4 groups of 12 columns × 4 bytes (the VNNI layouts,
// packA4/packB4). SDOT multiplies signed by signed bytes, so the unsigned
// operand was packed with its top bit flipped (u−128, qgemm_arm64.go) and
// the kernel adds back 128·Σ(signed operand): with A unsigned, 128 times
// each column sum of B (SDOT of B with ones, V5–V7); with B unsigned, 128
// times each row sum of A (V6, V7). Every sum is exact in int32 (wrapping
// as Go's int32 does).

// COL8(acc, b, j): the 8 rows' accumulators of column register j (acc:
// row 0's register number) += B register b times each row's 4 A bytes.
#define COL8(acc, b) \
	SDOTE(acc, b, 0, 0) \
	SDOTE(acc+3, b, 0, 1) \
	SDOTE(acc+6, b, 0, 2) \
	SDOTE(acc+9, b, 0, 3) \
	SDOTE(acc+12, b, 1, 0) \
	SDOTE(acc+15, b, 1, 1) \
	SDOTE(acc+18, b, 1, 2) \
	SDOTE(acc+21, b, 1, 3)

// ADDCOLS adds V5–V7 (one column sum per lane) to one row.
#define ADDCOLS(v0, v1, v2) \
	VADD V5.S4, v0.S4, v0.S4 \
	VADD V6.S4, v1.S4, v1.S4 \
	VADD V7.S4, v2.S4, v2.S4

// ADDROWSUM adds lane i of the row sums s to one row.
#define ADDROWSUM(s, i, v0, v1, v2) \
	VDUP s.S[i], V0.S4 \
	VADD V0.S4, v0.S4, v0.S4 \
	VADD V0.S4, v1.S4, v1.S4 \
	VADD V0.S4, v2.S4, v2.S4

// func qgemmSDOT8x12(kp int, a, b *byte, c *int32, ldc int, accum, aSigned uint32)
TEXT ·qgemmSDOT8x12(SB), NOSPLIT, $0-48
	MOVD kp+0(FP), R0
	MOVD a+8(FP), R1
	MOVD b+16(FP), R2
	MOVD c+24(FP), R3
	MOVD ldc+32(FP), R4
	LSL $2, R4
	MOVWU accum+40(FP), R5
	MOVWU aSigned+44(FP), R6
	LSR $2, R0
	ZERO8x12
	VEOR V5.B16, V5.B16, V5.B16
	VEOR V6.B16, V6.B16, V6.B16
	VEOR V7.B16, V7.B16, V7.B16
	CBNZ R6, sdot_signedA

	// A unsigned (flipped), B signed: column sums of B in V5–V7.
	VMOVI $1, V4.B16
sdot_loopU:
	VLD1.P 32(R1), [V0.B16, V1.B16]
	VLD1.P 32(R2), [V2.B16, V3.B16]
	COL8(8, 2)
	SDOTV(5, 2, 4)
	COL8(9, 3)
	SDOTV(6, 3, 4)
	VLD1.P 16(R2), [V2.B16]
	COL8(10, 2)
	SDOTV(7, 2, 4)
	SUBS $1, R0
	BNE sdot_loopU
	VSHL $7, V5.S4, V5.S4
	VSHL $7, V6.S4, V6.S4
	VSHL $7, V7.S4, V7.S4
	ADDCOLS(V8, V9, V10)
	ADDCOLS(V11, V12, V13)
	ADDCOLS(V14, V15, V16)
	ADDCOLS(V17, V18, V19)
	ADDCOLS(V20, V21, V22)
	ADDCOLS(V23, V24, V25)
	ADDCOLS(V26, V27, V28)
	ADDCOLS(V29, V30, V31)
	STORE8x12(sdot_addU)

	// A signed, B unsigned (flipped): row sums of A in V6 (rows 0–3), V7.
sdot_signedA:
	VMOVI $1, V5.B16
sdot_loopS:
	VLD1.P 32(R1), [V0.B16, V1.B16]
	VLD1.P 48(R2), [V2.B16, V3.B16, V4.B16]
	COL8(8, 2)
	COL8(9, 3)
	COL8(10, 4)
	SDOTV(6, 0, 5)
	SDOTV(7, 1, 5)
	SUBS $1, R0
	BNE sdot_loopS
	VSHL $7, V6.S4, V6.S4
	VSHL $7, V7.S4, V7.S4
	ADDROWSUM(V6, 0, V8, V9, V10)
	ADDROWSUM(V6, 1, V11, V12, V13)
	ADDROWSUM(V6, 2, V14, V15, V16)
	ADDROWSUM(V6, 3, V17, V18, V19)
	ADDROWSUM(V7, 0, V20, V21, V22)
	ADDROWSUM(V7, 1, V23, V24, V25)
	ADDROWSUM(V7, 2, V26, V27, V28)
	ADDROWSUM(V7, 3, V29, V30, V31)
	STORE8x12(sdot_addS)

// ---------------------------------------------------------------------
// Widening kernel (no dot product instructions: Cortex-A53/A72): a holds
// kp k steps of 8 int16 (one per row), b kp steps of 12 int16 (one per
// column), both widened from bytes while packing (signed or unsigned:
// every value fits int16). Per pair of k steps: A in V0 (even k), V1
// (odd k); B's 24 int16 in V2 (k even, columns 0–7), V3 (low half: k
// even, columns 8–11; high half: k odd, columns 0–3), V4 (k odd, columns
// 4–11); SMLAL/SMLAL2 by element multiply them by each row's A value into
// the int32 accumulators (products ≤ 255·128: exact).

#define ROWW(r, acc) \
	SMLALE(acc, 2, 0, r) \
	SMLAL2E(acc+1, 2, 0, r) \
	SMLALE(acc+2, 3, 0, r) \
	SMLAL2E(acc, 3, 1, r) \
	SMLALE(acc+1, 4, 1, r) \
	SMLAL2E(acc+2, 4, 1, r)

// func qgemmSMLAL8x12(kp int, a, b *byte, c *int32, ldc int, accum uint32)
TEXT ·qgemmSMLAL8x12(SB), NOSPLIT, $0-44
	MOVD kp+0(FP), R0
	MOVD a+8(FP), R1
	MOVD b+16(FP), R2
	MOVD c+24(FP), R3
	MOVD ldc+32(FP), R4
	LSL $2, R4
	MOVWU accum+40(FP), R5
	LSR $1, R0
	ZERO8x12
smlal_loop:
	VLD1.P 32(R1), [V0.H8, V1.H8]
	VLD1.P 48(R2), [V2.H8, V3.H8, V4.H8]
	ROWW(0, 8)
	ROWW(1, 11)
	ROWW(2, 14)
	ROWW(3, 17)
	ROWW(4, 20)
	ROWW(5, 23)
	ROWW(6, 26)
	ROWW(7, 29)
	SUBS $1, R0
	BNE smlal_loop
	STORE8x12(smlal_add)

// ---------------------------------------------------------------------
// B packers of full 12-column panels (packBGroups' fast path).

// SXTL Vd.8H, Vn.8B and SXTL2 Vd.8H, Vn.16B (SSHLL #0; Go's assembler
// has UXTL only).
#define SXTL8(d, n) WORD $(0x0F08A400 | ((n)<<5) | (d))
#define SXTL28(d, n) WORD $(0x4F08A400 | ((n)<<5) | (d))

// LOAD12 loads the 12 bytes at p into bytes 0–11 of v (via scratch R8).
#define LOAD12(p, v) \
	VLD1 (p), [v.B8] \
	ADD $8, p, R8 \
	VLD1 (R8), v.S[2]

// func qpackB4x12(src *byte, ldb, groups int, flip uint32, dst *byte)
// dst[g*48 + 4j + t] = src[(4g+t)*ldb + j] ^ (flip ? 0x80 : 0) for g <
// groups, j < 12, t < 4: rows interleaved by ZIP1/ZIP2 on bytes, then on
// halfwords.
TEXT ·qpackB4x12(SB), NOSPLIT, $0-40
	MOVD src+0(FP), R0
	MOVD ldb+8(FP), R1
	MOVD groups+16(FP), R2
	MOVWU flip+24(FP), R3
	MOVD dst+32(FP), R4
	VEOR V16.B16, V16.B16, V16.B16
	CBZ R3, pack4x12_loop
	VMOVI $0x80, V16.B16
pack4x12_loop:
	ADD R1, R0, R5
	ADD R1, R5, R6
	ADD R1, R6, R7
	LOAD12(R0, V0)
	LOAD12(R5, V1)
	LOAD12(R6, V2)
	LOAD12(R7, V3)
	VZIP1 V1.B16, V0.B16, V4.B16 // rows 0, 1 of columns 0–7
	VZIP2 V1.B16, V0.B16, V5.B16 // columns 8–11 (and 4 zero pairs)
	VZIP1 V3.B16, V2.B16, V6.B16
	VZIP2 V3.B16, V2.B16, V7.B16
	VZIP1 V6.H8, V4.H8, V8.H8 // rows 0–3 of columns 0–3
	VZIP2 V6.H8, V4.H8, V9.H8 // columns 4–7
	VZIP1 V7.H8, V5.H8, V10.H8 // columns 8–11
	VEOR V16.B16, V8.B16, V8.B16
	VEOR V16.B16, V9.B16, V9.B16
	VEOR V16.B16, V10.B16, V10.B16
	VST1.P [V8.B16, V9.B16, V10.B16], 48(R4)
	ADD R1<<2, R0, R0
	SUBS $1, R2
	BNE pack4x12_loop
	RET

// func qpackB16x12(src *byte, ldb, rows int, signed uint32, dst *byte)
// dst[p*12 + j] = int16(src[p*ldb + j]) (int8 or uint8) for p < rows,
// j < 12, little-endian.
TEXT ·qpackB16x12(SB), NOSPLIT, $0-40
	MOVD src+0(FP), R0
	MOVD ldb+8(FP), R1
	MOVD rows+16(FP), R2
	MOVWU signed+24(FP), R3
	MOVD dst+32(FP), R4
	CBNZ R3, pack16x12_signed
pack16x12_unsigned:
	LOAD12(R0, V0)
	VUXTL V0.B8, V1.H8
	VUXTL2 V0.B16, V2.H8
	VST1.P [V1.B16], 16(R4)
	FMOVD F2, (R4)
	ADD $8, R4
	ADD R1, R0
	SUBS $1, R2
	BNE pack16x12_unsigned
	RET
pack16x12_signed:
	LOAD12(R0, V0)
	SXTL8(1, 0)
	SXTL28(2, 0)
	VST1.P [V1.B16], 16(R4)
	FMOVD F2, (R4)
	ADD $8, R4
	ADD R1, R0
	SUBS $1, R2
	BNE pack16x12_signed
	RET
