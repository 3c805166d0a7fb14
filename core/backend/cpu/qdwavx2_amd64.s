//go:build amd64 && !purego

#include "textflag.h"

// func qdwPairsAVX2(dst *int32, top, bot *byte, n int, zero int32, signed uint32)
// dst[j] = (top[j] - zero) | (bot[j] - zero) << 16, as int16 halves, for
// j < n: two rows of bytes (uint8, or int8 when signed) less the zero
// point, widened and interleaved; n a multiple of 16.
TEXT ·qdwPairsAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ top+8(FP), SI
	MOVQ bot+16(FP), DX
	MOVQ n+24(FP), CX
	MOVL zero+32(FP), AX
	VMOVD AX, X15
	VPBROADCASTW X15, Y15
	MOVL signed+36(FP), AX
	TESTL AX, AX
	JNZ qpairs_s
qpairs_u:
	CMPQ CX, $16
	JLT qpairs_done
	VPMOVZXBW (SI), Y0
	VPMOVZXBW (DX), Y1
	JMP qpairs_mix
qpairs_s:
	CMPQ CX, $16
	JLT qpairs_done
	VPMOVSXBW (SI), Y0
	VPMOVSXBW (DX), Y1
qpairs_mix:
	VPSUBW Y15, Y0, Y0
	VPSUBW Y15, Y1, Y1
	VPUNPCKLWD Y1, Y0, Y2 // j 0-3 | 8-11
	VPUNPCKHWD Y1, Y0, Y3 // j 4-7 | 12-15
	VPERM2I128 $0x20, Y3, Y2, Y4
	VPERM2I128 $0x31, Y3, Y2, Y5
	VMOVDQU Y4, (DI)
	VMOVDQU Y5, 32(DI)
	ADDQ $16, SI
	ADDQ $16, DX
	ADDQ $64, DI
	SUBQ $16, CX
	TESTL AX, AX
	JNZ qpairs_s
	JMP qpairs_u
qpairs_done:
	VZEROUPPER
	RET

// func qdwPairRowAVX2(dst *int32, n int, src *int32, offs *int, ws *int32, ne int)
// dst[j] = Σ_e madd(src[offs[e]/4 + j], ws[e]) for j < n rounded up to
// 8, madd the sum of the two int16 halves' products (vpmaddwd): one
// output row of the depthwise sums on row-paired words, ne tap pairs
// with their byte offsets into the pair plane; 64, then 32, then 8
// outputs a step (the wider steps spread the per-tap loads and loop over
// more products).
TEXT ·qdwPairRowAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ src+16(FP), SI
	MOVQ offs+24(FP), R8
	MOVQ ws+32(FP), R9
	MOVQ ne+40(FP), R10
qrow_blk64:
	CMPQ CX, $64
	JLT qrow_blk
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	VPXOR Y6, Y6, Y6
	VPXOR Y7, Y7, Y7
	XORQ R11, R11
qrow_blk64_tap:
	MOVQ (R8)(R11*8), AX
	VPBROADCASTD (R9)(R11*4), Y8
	ADDQ SI, AX
	VPMADDWD (AX), Y8, Y9
	VPMADDWD 32(AX), Y8, Y10
	VPMADDWD 64(AX), Y8, Y11
	VPMADDWD 96(AX), Y8, Y12
	VPADDD Y9, Y0, Y0
	VPADDD Y10, Y1, Y1
	VPADDD Y11, Y2, Y2
	VPADDD Y12, Y3, Y3
	VPMADDWD 128(AX), Y8, Y9
	VPMADDWD 160(AX), Y8, Y10
	VPMADDWD 192(AX), Y8, Y11
	VPMADDWD 224(AX), Y8, Y12
	VPADDD Y9, Y4, Y4
	VPADDD Y10, Y5, Y5
	VPADDD Y11, Y6, Y6
	VPADDD Y12, Y7, Y7
	INCQ R11
	CMPQ R11, R10
	JLT qrow_blk64_tap
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	VMOVDQU Y4, 128(DI)
	VMOVDQU Y5, 160(DI)
	VMOVDQU Y6, 192(DI)
	VMOVDQU Y7, 224(DI)
	ADDQ $256, SI
	ADDQ $256, DI
	SUBQ $64, CX
	JMP qrow_blk64
qrow_blk:
	CMPQ CX, $32
	JLT qrow_tail
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3
	XORQ R11, R11
qrow_blk_tap:
	MOVQ (R8)(R11*8), AX
	VPBROADCASTD (R9)(R11*4), Y8
	ADDQ SI, AX
	VPMADDWD (AX), Y8, Y9
	VPMADDWD 32(AX), Y8, Y10
	VPMADDWD 64(AX), Y8, Y11
	VPMADDWD 96(AX), Y8, Y12
	VPADDD Y9, Y0, Y0
	VPADDD Y10, Y1, Y1
	VPADDD Y11, Y2, Y2
	VPADDD Y12, Y3, Y3
	INCQ R11
	CMPQ R11, R10
	JLT qrow_blk_tap
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $32, CX
	JMP qrow_blk
qrow_tail:
	CMPQ CX, $0
	JLE qrow_done
	VPXOR Y0, Y0, Y0
	XORQ R11, R11
qrow_tail_tap:
	MOVQ (R8)(R11*8), AX
	VPBROADCASTD (R9)(R11*4), Y8
	ADDQ SI, AX
	VPMADDWD (AX), Y8, Y9
	VPADDD Y9, Y0, Y0
	INCQ R11
	CMPQ R11, R10
	JLT qrow_tail_tap
	VMOVDQU Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP qrow_tail
qrow_done:
	VZEROUPPER
	RET

// even bytes to each lane's low half, odd to its high half
DATA qdwEvenOdd<>+0(SB)/8, $0x0e0c0a0806040200
DATA qdwEvenOdd<>+8(SB)/8, $0x0f0d0b0907050301
DATA qdwEvenOdd<>+16(SB)/8, $0x0e0c0a0806040200
DATA qdwEvenOdd<>+24(SB)/8, $0x0f0d0b0907050301
GLOBL qdwEvenOdd<>(SB), RODATA|NOPTR, $32

// func qdwPairsEOAVX2(even, odd *int32, top, bot *byte, n int, zero int32, signed uint32)
// qdwPairsAVX2 split by column parity: even[j] pairs top[2j], bot[2j]
// and odd[j] top[2j+1], bot[2j+1], for 2j < n; n a multiple of 32.
TEXT ·qdwPairsEOAVX2(SB), NOSPLIT, $0-48
	MOVQ even+0(FP), DI
	MOVQ odd+8(FP), R8
	MOVQ top+16(FP), SI
	MOVQ bot+24(FP), DX
	MOVQ n+32(FP), CX
	MOVL zero+40(FP), AX
	VMOVD AX, X15
	VPBROADCASTW X15, Y15
	VMOVDQU qdwEvenOdd<>(SB), Y14
	MOVL signed+44(FP), AX
qeo_loop:
	CMPQ CX, $32
	JLT qeo_done
	VMOVDQU (SI), Y0
	VMOVDQU (DX), Y1
	VPSHUFB Y14, Y0, Y0
	VPSHUFB Y14, Y1, Y1
	VPERMQ $0xD8, Y0, Y0 // evens | odds
	VPERMQ $0xD8, Y1, Y1
	VEXTRACTI128 $1, Y0, X3
	VEXTRACTI128 $1, Y1, X5
	TESTL AX, AX
	JNZ qeo_s
	VPMOVZXBW X0, Y2
	VPMOVZXBW X3, Y3
	VPMOVZXBW X1, Y4
	VPMOVZXBW X5, Y5
	JMP qeo_mix
qeo_s:
	VPMOVSXBW X0, Y2
	VPMOVSXBW X3, Y3
	VPMOVSXBW X1, Y4
	VPMOVSXBW X5, Y5
qeo_mix:
	VPSUBW Y15, Y2, Y2
	VPSUBW Y15, Y3, Y3
	VPSUBW Y15, Y4, Y4
	VPSUBW Y15, Y5, Y5
	VPUNPCKLWD Y4, Y2, Y6
	VPUNPCKHWD Y4, Y2, Y7
	VPERM2I128 $0x20, Y7, Y6, Y8
	VPERM2I128 $0x31, Y7, Y6, Y9
	VMOVDQU Y8, (DI)
	VMOVDQU Y9, 32(DI)
	VPUNPCKLWD Y5, Y3, Y6
	VPUNPCKHWD Y5, Y3, Y7
	VPERM2I128 $0x20, Y7, Y6, Y8
	VPERM2I128 $0x31, Y7, Y6, Y9
	VMOVDQU Y8, (R8)
	VMOVDQU Y9, 32(R8)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $64, DI
	ADDQ $64, R8
	SUBQ $32, CX
	JMP qeo_loop
qeo_done:
	VZEROUPPER
	RET
