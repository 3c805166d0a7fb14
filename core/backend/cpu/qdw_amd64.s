//go:build amd64 && !purego

#include "textflag.h"

// The int8 depthwise convolution's conversions (qdw.go). Hand-written.
// Both are exact: bytes less a zero point are integers of at most 9 bits,
// and the accumulators converted back are integers below 2^24.

// func bytesToF32AVX512(dst *float32, src *byte, n int, zero int32, signed uint32)
// dst[i] = float32(src[i] - zero), src[i] uint8, or int8 when signed != 0;
// n a multiple of 16.
TEXT ·bytesToF32AVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL zero+24(FP), AX
	VPBROADCASTD AX, Z1
	MOVL signed+28(FP), AX
	TESTL AX, AX
	JNZ b2fAVX512_s
b2fAVX512_u:
	CMPQ CX, $16
	JLT b2fAVX512_done
	VPMOVZXBD (SI), Z0
	VPSUBD Z1, Z0, Z0
	VCVTDQ2PS Z0, Z0
	VMOVUPS Z0, (DI)
	ADDQ $16, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP b2fAVX512_u
b2fAVX512_s:
	CMPQ CX, $16
	JLT b2fAVX512_done
	VPMOVSXBD (SI), Z0
	VPSUBD Z1, Z0, Z0
	VCVTDQ2PS Z0, Z0
	VMOVUPS Z0, (DI)
	ADDQ $16, SI
	ADDQ $64, DI
	SUBQ $16, CX
	JMP b2fAVX512_s
b2fAVX512_done:
	VZEROUPPER
	RET

// func bytesToF32AVX2(dst *float32, src *byte, n int, zero int32, signed uint32)
// bytesToF32AVX512 in 8 lanes; n a multiple of 8.
TEXT ·bytesToF32AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL zero+24(FP), AX
	VMOVD AX, X1
	VPBROADCASTD X1, Y1
	MOVL signed+28(FP), AX
	TESTL AX, AX
	JNZ b2fAVX2_s
b2fAVX2_u:
	CMPQ CX, $8
	JLT b2fAVX2_done
	VPMOVZXBD (SI), Y0
	VPSUBD Y1, Y0, Y0
	VCVTDQ2PS Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $8, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP b2fAVX2_u
b2fAVX2_s:
	CMPQ CX, $8
	JLT b2fAVX2_done
	VPMOVSXBD (SI), Y0
	VPSUBD Y1, Y0, Y0
	VCVTDQ2PS Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $8, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JMP b2fAVX2_s
b2fAVX2_done:
	VZEROUPPER
	RET

// func f32ToI32AVX512(p *float32, n int)
// The float32 at p[i] replaced by its int32 (truncated: they are
// integers); n a multiple of 16.
TEXT ·f32ToI32AVX512(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), DI
	MOVQ n+8(FP), CX
f2iAVX512_loop:
	CMPQ CX, $16
	JLT f2iAVX512_done
	VCVTTPS2DQ (DI), Z0
	VMOVDQU32 Z0, (DI)
	ADDQ $64, DI
	SUBQ $16, CX
	JMP f2iAVX512_loop
f2iAVX512_done:
	VZEROUPPER
	RET

// func f32ToI32AVX2(p *float32, n int)
// f32ToI32AVX512 in 8 lanes; n a multiple of 8.
TEXT ·f32ToI32AVX2(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), DI
	MOVQ n+8(FP), CX
f2iAVX2_loop:
	CMPQ CX, $8
	JLT f2iAVX2_done
	VCVTTPS2DQ (DI), Y0
	VMOVDQU Y0, (DI)
	ADDQ $32, DI
	SUBQ $8, CX
	JMP f2iAVX2_loop
f2iAVX2_done:
	VZEROUPPER
	RET
