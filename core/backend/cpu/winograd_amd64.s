//go:build amd64 && !purego

#include "textflag.h"

// Winograd F(4×4, 3×3) tile transforms on 16 tiles at once, one tile per
// lane (winograd_amd64.go). Hand-written, not generated. The same 1-D
// transforms as wgBt and wgAt (winograd.go), applied rows first.

// BT: Z6..Z11 = Bᵀ·(Z0..Z5); Z28 = 4, Z29 = 5, Z30 = 2; clobbers Z12..Z15.
#define BT \
	VMOVAPS      Z4, Z12; \
	VFNMADD231PS Z28, Z2, Z12; \
	VMOVAPS      Z3, Z13; \
	VFNMADD231PS Z28, Z1, Z13; \
	VSUBPS       Z2, Z4, Z14; \
	VSUBPS       Z1, Z3, Z15; \
	VMULPS       Z30, Z15, Z15; \
	VMOVAPS      Z4, Z6; \
	VFMADD231PS  Z28, Z0, Z6; \
	VFNMADD231PS Z29, Z2, Z6; \
	VADDPS       Z13, Z12, Z7; \
	VSUBPS       Z13, Z12, Z8; \
	VADDPS       Z15, Z14, Z9; \
	VSUBPS       Z15, Z14, Z10; \
	VMOVAPS      Z5, Z11; \
	VFMADD231PS  Z28, Z1, Z11; \
	VFNMADD231PS Z29, Z3, Z11

// AT: Z6..Z9 = Aᵀ·(Z0..Z5); Z28 = 4, Z30 = 2, Z31 = 8; clobbers Z12..Z15.
#define AT \
	VADDPS      Z2, Z1, Z12; \
	VADDPS      Z4, Z3, Z13; \
	VSUBPS      Z2, Z1, Z14; \
	VSUBPS      Z4, Z3, Z15; \
	VADDPS      Z12, Z0, Z6; \
	VADDPS      Z13, Z6, Z6; \
	VMOVAPS     Z14, Z7; \
	VFMADD231PS Z30, Z15, Z7; \
	VMOVAPS     Z12, Z8; \
	VFMADD231PS Z28, Z13, Z8; \
	VADDPS      Z5, Z14, Z9; \
	VFMADD231PS Z31, Z15, Z9

#define CONSTS \
	MOVL $0x40800000, AX; \
	VPBROADCASTD AX, Z28; \
	MOVL $0x40a00000, AX; \
	VPBROADCASTD AX, Z29; \
	MOVL $0x40000000, AX; \
	VPBROADCASTD AX, Z30; \
	MOVL $0x41000000, AX; \
	VPBROADCASTD AX, Z31

// func wgInput16AVX512(src *float32, lds int, dst *float32, ldv int, scratch *float32, groups int)
//
// src holds one channel's six input rows of a tile row, split by column
// mod 4: plane i*4+r (at src + (i*4+r)·lds) has element k = column 4k+r.
// For each group g of 16 tiles, dst[ξ·ldv + 16g + lane] = (Bᵀ d B)[ξ].
// scratch: 36·16 floats.
TEXT ·wgInput16AVX512(SB), NOSPLIT, $0-48
	MOVQ src+0(FP), SI
	MOVQ lds+8(FP), R8
	MOVQ dst+16(FP), DI
	MOVQ ldv+24(FP), R10
	MOVQ scratch+32(FP), BX
	MOVQ groups+40(FP), CX
	CONSTS
	SHLQ $2, R8               // lds bytes
	LEAQ (R8)(R8*2), R9       // 3·lds bytes
	SHLQ $2, R10              // ldv bytes
	MOVQ R10, R11
	SHLQ $1, R11
	ADDQ R10, R11
	SHLQ $1, R11              // 6·ldv bytes (row i of the tile: ξ += 6)
	LEAQ (R11)(R11*2), R12    // 18·ldv
	LEAQ (R11)(R11*4), R13    // 30·ldv

in16group:
	TESTQ CX, CX
	JEQ   in16done
	// rows: h[i][j] = Bᵀ along the row
	MOVQ SI, DX
	MOVQ BX, R14
	MOVQ $6, AX

in16row:
	VMOVUPS (DX), Z0
	VMOVUPS (DX)(R8*1), Z1
	VMOVUPS (DX)(R8*2), Z2
	VMOVUPS (DX)(R9*1), Z3
	VMOVUPS 4(DX), Z4
	VMOVUPS 4(DX)(R8*1), Z5
	BT
	VMOVUPS Z6, 0(R14)
	VMOVUPS Z7, 64(R14)
	VMOVUPS Z8, 128(R14)
	VMOVUPS Z9, 192(R14)
	VMOVUPS Z10, 256(R14)
	VMOVUPS Z11, 320(R14)
	LEAQ    (DX)(R8*4), DX
	ADDQ    $384, R14
	DECQ    AX
	JNE     in16row

	// columns: V[i*6+j] = Bᵀ along the column of h
	MOVQ BX, R14
	MOVQ DI, DX
	MOVQ $6, AX

in16col:
	VMOVUPS 0(R14), Z0
	VMOVUPS 384(R14), Z1
	VMOVUPS 768(R14), Z2
	VMOVUPS 1152(R14), Z3
	VMOVUPS 1536(R14), Z4
	VMOVUPS 1920(R14), Z5
	BT
	VMOVUPS Z6, (DX)
	VMOVUPS Z7, (DX)(R11*1)
	VMOVUPS Z8, (DX)(R11*2)
	VMOVUPS Z9, (DX)(R12*1)
	VMOVUPS Z10, (DX)(R11*4)
	VMOVUPS Z11, (DX)(R13*1)
	ADDQ    $64, R14
	ADDQ    R10, DX
	DECQ    AX
	JNE     in16col

	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JMP  in16group

in16done:
	VZEROUPPER
	RET

// func wgOutput16AVX512(m *float32, ldm int, dst *float32, ldo int, scratch *float32, groups int, bias float32)
//
// m holds M[ξ] at m + ξ·ldm, 16 tiles per group contiguous. For each
// group g, dst[(i*4+j)·ldo + 16g + lane] = (Aᵀ M A)[i][j] + bias.
// scratch: 24·16 floats.
TEXT ·wgOutput16AVX512(SB), NOSPLIT, $0-52
	MOVQ m+0(FP), SI
	MOVQ ldm+8(FP), R10
	MOVQ dst+16(FP), DI
	MOVQ ldo+24(FP), R8
	MOVQ scratch+32(FP), BX
	MOVQ groups+40(FP), CX
	VBROADCASTSS bias+48(FP), Z27
	CONSTS
	SHLQ $2, R8               // ldo bytes
	LEAQ (R8)(R8*2), R9       // 3·ldo
	SHLQ $2, R10              // ldm bytes
	MOVQ R10, R11
	SHLQ $1, R11
	ADDQ R10, R11
	SHLQ $1, R11              // 6·ldm
	LEAQ (R11)(R11*2), R12    // 18·ldm
	LEAQ (R11)(R11*4), R13    // 30·ldm

out16group:
	TESTQ CX, CX
	JEQ   out16done
	// columns: t[i][j] = Aᵀ along column j of M
	MOVQ SI, DX
	MOVQ BX, R14
	MOVQ $6, AX

out16col:
	VMOVUPS (DX), Z0
	VMOVUPS (DX)(R11*1), Z1
	VMOVUPS (DX)(R11*2), Z2
	VMOVUPS (DX)(R12*1), Z3
	VMOVUPS (DX)(R11*4), Z4
	VMOVUPS (DX)(R13*1), Z5
	AT
	VMOVUPS Z6, 0(R14)
	VMOVUPS Z7, 384(R14)
	VMOVUPS Z8, 768(R14)
	VMOVUPS Z9, 1152(R14)
	ADDQ    R10, DX
	ADDQ    $64, R14
	DECQ    AX
	JNE     out16col

	// rows: y[i][j] = Aᵀ along row i of t, + bias
	MOVQ BX, R14
	MOVQ DI, DX
	MOVQ $4, AX

out16row:
	VMOVUPS 0(R14), Z0
	VMOVUPS 64(R14), Z1
	VMOVUPS 128(R14), Z2
	VMOVUPS 192(R14), Z3
	VMOVUPS 256(R14), Z4
	VMOVUPS 320(R14), Z5
	AT
	VADDPS  Z27, Z6, Z6
	VADDPS  Z27, Z7, Z7
	VADDPS  Z27, Z8, Z8
	VADDPS  Z27, Z9, Z9
	VMOVUPS Z6, (DX)
	VMOVUPS Z7, (DX)(R8*1)
	VMOVUPS Z8, (DX)(R8*2)
	VMOVUPS Z9, (DX)(R9*1)
	ADDQ    $384, R14
	LEAQ    (DX)(R8*4), DX
	DECQ    AX
	JNE     out16row

	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JMP  out16group

out16done:
	VZEROUPPER
	RET
