//go:build amd64 && !purego

#include "textflag.h"

// The int8 depthwise convolution on AVX-512 VNNI (qdwvnni_amd64.go).
// Hand-written. Two output rows of one plane at a time, 32 outputs of
// each per step (four accumulators of 16 int32; a last step of at most
// 16 outputs uses two): per kernel row and
// group of four taps, vpermb gathers each output's four input bytes
// (the index table Z31: lane j takes bytes j·sw .. j·sw+3 of the row
// from the output's first tap) and vpdpbusd adds their products with
// the four weights (signed bytes, broadcast; zero past the kernel's
// width). Integer arithmetic: exact.

// QDW_TAP(off, woff): the taps at byte offset off of the rows at BX
// (row A chunk 0, chunk 1 at +R10; row B at +R9, chunk 1 at +R12),
// weights woff(AX).
#define QDW_TAP(off, woff) \
	VPBROADCASTD woff(AX), Z7 \
	VPERMB off(BX), Z31, Z4 \
	VPERMB off(BX)(R10*1), Z31, Z5 \
	VPERMB off(BX)(R9*1), Z31, Z6 \
	VPERMB off(BX)(R12*1), Z31, Z8 \
	VPDPBUSD Z7, Z4, Z0 \
	VPDPBUSD Z7, Z5, Z1 \
	VPDPBUSD Z7, Z6, Z2 \
	VPDPBUSD Z7, Z8, Z3

// QDW_TAP_HALF(off, woff): QDW_TAP for chunk 0 of both rows only (the
// last step of a row whose tail is at most 16 outputs).
#define QDW_TAP_HALF(off, woff) \
	VPBROADCASTD woff(AX), Z7 \
	VPERMB off(BX), Z31, Z4 \
	VPERMB off(BX)(R9*1), Z31, Z6 \
	VPDPBUSD Z7, Z4, Z0 \
	VPDPBUSD Z7, Z6, Z2

// func qdwRow2VNNI(dst *int32, ldd int, src *byte, ld, rowB, n, cs int, wq *int32, kh, nq int, idx *byte, init int32, m1, m2 uint16, pairs, srcPair int)
// For each of pairs row pairs (dst and src advanced by 2·ldd and srcPair
// bytes per pair): dst[j] (row A) and dst[ldd/4 + j] (row B) for j < n:
// init + Σ over kernel rows r < kh and tap groups q < nq of the four
// products src[r·ld + j·sw + 4q + t] · wq[r·nq + q] byte t (row B:
// src + rowB); cs = 16·sw. m1, m2: the store masks of the last step's two
// halves. Reads up to 32·sw·ceil(n/32) + 4·nq + 60 bytes past each row
// start. dst+0(FP) and src+16(FP) are advanced in place.
TEXT ·qdwRow2VNNI(SB), NOSPLIT, $0-112
	MOVQ ld+24(FP), R11
	MOVQ rowB+32(FP), R9
	MOVQ cs+48(FP), R10
	MOVQ kh+64(FP), R13
	MOVQ idx+80(FP), AX
	VMOVDQU8 (AX), Z31
	MOVL init+88(FP), AX
	VPBROADCASTD AX, Z30
	LEAQ (R9)(R10*1), R12
qdw_pair:
	MOVQ dst+0(FP), DI
	MOVQ DI, R8
	ADDQ ldd+8(FP), R8
	MOVQ src+16(FP), SI
	MOVQ n+40(FP), CX
	MOVL $0xFFFF, AX
	KMOVW AX, K1
	KMOVW AX, K2
qdw_chunk:
	CMPQ CX, $0
	JLE qdw_done
	CMPQ CX, $32
	JGE qdw_full
	KMOVW m1+92(FP), K1
	KMOVW m2+94(FP), K2
	CMPQ CX, $16
	JLE qdw_half
qdw_full:
	VMOVDQA32 Z30, Z0
	VMOVDQA32 Z30, Z1
	VMOVDQA32 Z30, Z2
	VMOVDQA32 Z30, Z3
	MOVQ SI, BX
	MOVQ wq+56(FP), AX
	MOVQ R13, DX
	CMPQ nq+72(FP), $1
	JNE qdw_ky2
qdw_ky1:
	QDW_TAP(0, 0)
	ADDQ $4, AX
	ADDQ R11, BX
	DECQ DX
	JNZ qdw_ky1
	JMP qdw_store
qdw_ky2:
	QDW_TAP(0, 0)
	QDW_TAP(4, 4)
	ADDQ $8, AX
	ADDQ R11, BX
	DECQ DX
	JNZ qdw_ky2
qdw_store:
	VMOVDQU32 Z0, K1, (DI)
	VMOVDQU32 Z1, K2, 64(DI)
	VMOVDQU32 Z2, K1, (R8)
	VMOVDQU32 Z3, K2, 64(R8)
	ADDQ $128, DI
	ADDQ $128, R8
	LEAQ (SI)(R10*2), SI
	SUBQ $32, CX
	JMP qdw_chunk
qdw_half:
	// at most 16 outputs left: chunk 1 of each row would be all masked
	VMOVDQA32 Z30, Z0
	VMOVDQA32 Z30, Z2
	MOVQ SI, BX
	MOVQ wq+56(FP), AX
	MOVQ R13, DX
	CMPQ nq+72(FP), $1
	JNE qdw_hky2
qdw_hky1:
	QDW_TAP_HALF(0, 0)
	ADDQ $4, AX
	ADDQ R11, BX
	DECQ DX
	JNZ qdw_hky1
	JMP qdw_hstore
qdw_hky2:
	QDW_TAP_HALF(0, 0)
	QDW_TAP_HALF(4, 4)
	ADDQ $8, AX
	ADDQ R11, BX
	DECQ DX
	JNZ qdw_hky2
qdw_hstore:
	VMOVDQU32 Z0, K1, (DI)
	VMOVDQU32 Z2, K1, (R8)
qdw_done:
	MOVQ ldd+8(FP), AX
	SHLQ $1, AX
	ADDQ AX, dst+0(FP)
	MOVQ srcPair+104(FP), AX
	ADDQ AX, src+16(FP)
	DECQ pairs+96(FP)
	JNZ qdw_pair
	VZEROUPPER
	RET
