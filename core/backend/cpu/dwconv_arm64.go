//go:build arm64 && !purego

package cpu

import "paddle/core/op"

// dwConvRowNEON is dwconv.go's row kernel at the neon level
// (neon_arm64.s): dst[i] = init + Σ_{a<kh, b<kw} w[a*kw+b]·src[a*ld+i+b]
// for i < n, init = dst[i] when acc != 0, else bias.
//
//go:noescape
func dwConvRowNEON(dst, src *float32, ld, n int, w *float32, kh, kw int, bias float32, acc uint32)

// dwRow returns the active level's depthwise row kernel, nil at generic.
func dwRow() func(dst, src *float32, ld, n int, w *float32, kh, kw int, bias float32, acc uint32) {
	if curISA() == isaNEON {
		return dwConvRowNEON
	}
	return nil
}

// dwRowEp: no NEON row kernel with a fused epilogue (dwconv.go applies it
// per plane).
func dwRowEp(*Epilogue) dwRowFunc { return nil }

// dwRow2: no NEON two-row kernel (dwconv.go runs one row at a time).
func dwRow2(*Epilogue) dwRow2Func { return nil }

// depthwiseFilterGradKernel: no NEON filter gradient yet (the reference
// kernel runs).
func depthwiseFilterGradKernel() op.Kernel { return nil }
