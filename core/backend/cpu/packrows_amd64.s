//go:build amd64 && !purego

#include "textflag.h"

// SGEMM's row packing at the avx2 level (packrows_amd64.go). Hand-written.

// prMask: 16 all-ones lanes, then 16 zero lanes; the 8 lanes at byte
// 4·(16-c) are the VMASKMOVPS mask of the first c lanes (c ≤ 16; lanes past
// 8 of a 16-lane mask are the next 8 lanes at 4·(8-c)).
DATA prMask<>+0(SB)/8, $-1
DATA prMask<>+8(SB)/8, $-1
DATA prMask<>+16(SB)/8, $-1
DATA prMask<>+24(SB)/8, $-1
DATA prMask<>+32(SB)/8, $-1
DATA prMask<>+40(SB)/8, $-1
DATA prMask<>+48(SB)/8, $-1
DATA prMask<>+56(SB)/8, $-1
DATA prMask<>+64(SB)/8, $0
DATA prMask<>+72(SB)/8, $0
DATA prMask<>+80(SB)/8, $0
DATA prMask<>+88(SB)/8, $0
DATA prMask<>+96(SB)/8, $0
DATA prMask<>+104(SB)/8, $0
DATA prMask<>+112(SB)/8, $0
DATA prMask<>+120(SB)/8, $0
GLOBL prMask<>(SB), RODATA|NOPTR, $128

// func packRowsAVX2(src *float32, ld, k int, dst *float32, w, cols, whole int)
// dst[p*w+j] = src[p*ld+j] for j < cols, 0 for cols ≤ j < w, p < k
// (1 ≤ k, cols ≤ w ≤ 16). Loads are masked to cols lanes, so nothing past
// a row's cols floats is read. The first whole rows are stored with whole
// vectors (8 lanes at w ≤ 8, 16 above), spilling into the next rows'
// place, which those rows then overwrite; the caller picks whole so that
// no spill passes dst[k*w-1]. The other rows' stores are masked to w lanes.
//
// Y12/Y13: the cols load masks of lanes 0–7 and 8–15; Y14/Y15 the w store
// masks.
TEXT ·packRowsAVX2(SB), NOSPLIT, $0-56
	MOVQ src+0(FP), SI
	MOVQ ld+8(FP), BX
	MOVQ k+16(FP), CX
	MOVQ dst+24(FP), DI
	MOVQ w+32(FP), DX
	MOVQ cols+40(FP), AX
	MOVQ whole+48(FP), R12
	SUBQ R12, CX   // rows stored masked
	SHLQ $2, BX    // bytes
	LEAQ prMask<>+64(SB), R8
	MOVQ AX, R9
	SHLQ $2, R9
	MOVQ R8, R10
	SUBQ R9, R10
	VMOVDQU (R10), Y12   // lanes < cols
	VMOVDQU 32(R10), Y13 // lanes 8..15 < cols
	MOVQ DX, R9
	SHLQ $2, R9
	MOVQ R8, R10
	SUBQ R9, R10
	VMOVDQU (R10), Y14
	VMOVDQU 32(R10), Y15
	MOVQ DX, R11
	SHLQ $2, R11 // dst row bytes
	CMPQ DX, $8
	JGT  wide

narrow:
	TESTQ      R12, R12
	JZ         narrowMasked
	VMASKMOVPS (SI), Y12, Y0
	VMOVUPS    Y0, (DI)
	ADDQ       BX, SI
	ADDQ       R11, DI
	DECQ       R12
	JMP        narrow

narrowMasked:
	TESTQ      CX, CX
	JZ         done
	VMASKMOVPS (SI), Y12, Y0
	VMASKMOVPS Y0, Y14, (DI)
	ADDQ       BX, SI
	ADDQ       R11, DI
	DECQ       CX
	JMP        narrowMasked

wide:
	TESTQ      R12, R12
	JZ         wideMasked
	VMASKMOVPS (SI), Y12, Y0
	VMASKMOVPS 32(SI), Y13, Y1
	VMOVUPS    Y0, (DI)
	VMOVUPS    Y1, 32(DI)
	ADDQ       BX, SI
	ADDQ       R11, DI
	DECQ       R12
	JMP        wide

wideMasked:
	TESTQ      CX, CX
	JZ         done
	VMASKMOVPS (SI), Y12, Y0
	VMASKMOVPS 32(SI), Y13, Y1
	VMASKMOVPS Y0, Y14, (DI)
	VMASKMOVPS Y1, Y15, 32(DI)
	ADDQ       BX, SI
	ADDQ       R11, DI
	DECQ       CX
	JMP        wideMasked

done:
	VZEROUPPER
	RET
