//go:build amd64 && !purego

#include "textflag.h"

// func interleave2AVX2(out, a, b *float32, n int, bias, floor float32)
// 8 columns of a and b per step: sum with the bias, max with floor (VMAXPS
// with the floor second returns it for two zeros, as Go's max returns +0;
// a NaN sum is blended back), then unpack and lane-permute into 16
// interleaved floats.
TEXT ·interleave2AVX2(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	VBROADCASTSS bias+32(FP), Y14
	VBROADCASTSS floor+36(FP), Y15
	SHRQ $3, CX
	JZ done
loop:
	VMOVUPS (SI), Y0
	VMOVUPS (DX), Y1
	VADDPS Y14, Y0, Y0
	VADDPS Y14, Y1, Y1
	VMAXPS Y15, Y0, Y2
	VMAXPS Y15, Y1, Y4
	VCMPPS $3, Y0, Y0, Y3
	VCMPPS $3, Y1, Y1, Y5
	VBLENDVPS Y3, Y0, Y2, Y2
	VBLENDVPS Y5, Y1, Y4, Y4
	VUNPCKLPS Y4, Y2, Y6
	VUNPCKHPS Y4, Y2, Y7
	VPERM2F128 $0x20, Y7, Y6, Y8
	VPERM2F128 $0x31, Y7, Y6, Y9
	VMOVUPS Y8, (DI)
	VMOVUPS Y9, 32(DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $64, DI
	DECQ CX
	JNZ loop
done:
	VZEROUPPER
	RET
