//go:build amd64 && !purego

#include "textflag.h"

// The 3-tap row of core/op's depthwise convolution and its adjoint
// (dwtrain_amd64.go). Hand-written, AVX2 only (avx2 and avx512 levels).

// func dwRow3AVX2(d, s *float32, n int, w *float32)
// d[i] = ((w[0]*s[i] + w[1]*s[i+1]) + w[2]*s[i+2]) + d[i] for i < n (n a
// multiple of 8): separate multiplies and adds in the order of op's Go
// loop (no FMA), so the result is bitwise the same (the operands of each
// add in the order Go's compiler puts them, which decides which NaN comes
// out where two meet).
//
// Y13–Y15: the taps; Y0–Y2 and Y3–Y5 two 8-column groups in flight.
TEXT ·dwRow3AVX2(SB), NOSPLIT, $0-32
	MOVQ         d+0(FP), DI
	MOVQ         s+8(FP), SI
	MOVQ         n+16(FP), CX
	MOVQ         w+24(FP), AX
	VBROADCASTSS (AX), Y13
	VBROADCASTSS 4(AX), Y14
	VBROADCASTSS 8(AX), Y15

loop16:
	CMPQ    CX, $16
	JLT     loop8
	VMULPS  (SI), Y13, Y0
	VMULPS  32(SI), Y13, Y3
	VMULPS  4(SI), Y14, Y1
	VMULPS  36(SI), Y14, Y4
	VADDPS  Y1, Y0, Y0
	VADDPS  Y4, Y3, Y3
	VMULPS  8(SI), Y15, Y1
	VMULPS  40(SI), Y15, Y4
	VADDPS  Y1, Y0, Y0
	VADDPS  Y4, Y3, Y3
	VMOVUPS (DI), Y2
	VMOVUPS 32(DI), Y5
	VADDPS  Y2, Y0, Y2
	VADDPS  Y5, Y3, Y5
	VMOVUPS Y2, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $16, CX
	JMP     loop16

loop8:
	CMPQ    CX, $8
	JLT     done
	VMULPS  (SI), Y13, Y0
	VMULPS  4(SI), Y14, Y1
	VADDPS  Y1, Y0, Y0
	VMULPS  8(SI), Y15, Y1
	VADDPS  Y1, Y0, Y0
	VMOVUPS (DI), Y2
	VADDPS  Y2, Y0, Y2
	VMOVUPS Y2, (DI)

done:
	VZEROUPPER
	RET
