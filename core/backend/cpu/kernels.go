package cpu

import (
	"paddle/core/op"
	"paddle/core/parallel"
)

func init() {
	// Linked in but not yet activated, the backend lends core/op only its
	// Winograd 3×3 convolutions (as it always has); Activate installs the
	// whole set.
	op.Use(&op.Kernels{Name: "cpu (not activated)", Winograd3x3: Winograd3x3, Winograd3x3Filter: Winograd3x3Filter})
}

// installKernels makes parallel.For run on the persistent workers
// (pool.go) and makes kernelSet's kernels the ones core/op runs.
func installKernels() {
	parallel.SetRunner(runParts)
	op.Use(kernelSet())
}

// kernelSet is the backend's contract with core/op at the active level:
// the float32 GEMMs of matmul and the convolutions (SGEMM, and SGEMMEx
// with its fused epilogue) on this package's blocked, assembly-backed
// SGEMM, the Winograd 3×3 convolutions, and, unless the level is generic,
// the vector depthwise conv2d, conv_transpose2d and conv2d_filter_grad,
// im2col's stride-2 row gather and col2im's scatter (im2col_amd64.s), 2×2
// max pooling (maxpool_amd64.s), the broadcast binaries and the vector
// activations (act_amd64.go) of the active level (level.go).
func kernelSet() *op.Kernels {
	k := &op.Kernels{Name: "cpu " + Level(), SGEMM: SGEMM, SGEMMEx: opSGEMMEx, GemmLoop: gemmLoop,
		Winograd3x3: Winograd3x3, Winograd3x3Filter: Winograd3x3Filter}
	k.SetOp("matmul_integer", matmulInteger) // the int8 GEMM (qgemm.go) at every level
	k.QGEMM8 = func(m, n, kk int, a []byte, lda int, aSigned bool, pa any, b []byte, ldb int, c []int32, ldc int) {
		p, _ := pa.(*QPackedA)
		QGEMMPacked(m, n, kk, a, lda, aSigned, p, b, ldb, c, ldc)
	}
	k.QGEMMRows8 = func(m, n, kk int, a []byte, lda int, aSigned bool, pa any, b []byte, rowOff []int, c []int32, ldc int) {
		p, _ := pa.(*QPackedA)
		QGEMMRows(m, n, kk, a, lda, aSigned, p, b, rowOff, c, ldc)
	}
	k.QPackA8 = func(m, kk int, a []byte, lda int, aSigned bool) any {
		if p := QPackA(m, kk, a, lda, aSigned); p != nil {
			return p
		}
		return nil
	}
	if kn := qkernelFor(curISA()); kn != nil && kn.runGroups != nil {
		k.QGEMMGroups8 = func(m, n, kk int, a []byte, lda int, aSigned bool, pa any, b []byte, groupOff []int, c []int32, ldc int) {
			p, _ := pa.(*QPackedA)
			QGEMMGroups(m, n, kk, a, lda, aSigned, p, b, groupOff, c, ldc)
		}
		k.Interleave4Bytes8 = interleave4Kernel()
	}
	k.QWeights7 = qkernelNarrow(qkernelFor(curISA())) != nil
	k.QKernel = QKernel()
	if Level() == "generic" {
		return k
	}
	k.Stride2Rows32, k.Stride2Add32 = stride2RowsKernel(), stride2AddKernel()
	k.MaxPool2x2Rows32 = maxPool2x2Kernel()
	k.MaxPool2x2GradRows32 = maxPool2x2GradKernel()
	k.DWRow3x32 = dwRow3Kernel()
	k.VecRow32 = vecRowKernel()
	k.Interleave2Row32 = interleave2Kernel()
	if dw := depthwiseKernel(); dw != nil {
		k.SetOp("conv2d", dw)
		k.DepthwiseEx = depthwiseExKernel()
		k.QDepthwise8 = qDepthwiseKernel() // int8 depthwise sums on the float row kernel (qdw.go)
	}
	if dw := depthwiseTransposeKernel(); dw != nil {
		k.SetOp("conv_transpose2d", dw)
	}
	if dw := depthwiseFilterGradKernel(); dw != nil {
		k.SetOp("conv2d_filter_grad", dw)
	}
	actKernels(k)
	quantKernels(k) // int8 quantize/dequantize rows (qquant_amd64.go)
	return k
}

// opSGEMMEx is op.SGEMMEx on SGEMMEx: the epilogue runs per tile of C.
func opSGEMMEx(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, ep *op.GemmEpilogue) {
	if ep == nil {
		SGEMM(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	e := Epilogue{RowBias: ep.RowBias, Affine: ep.Affine, Scale: ep.Scale, Shift: ep.Shift}
	switch ep.Act {
	case op.GemmActNone:
	case op.GemmActHardSwish:
		e.Act = ActHardSwish6
	case op.GemmActRelu:
		e.Act = ActRelu
	default: // not one of ours: the unfused steps
		SGEMM(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		ep.Apply(c, ldc, m, n)
		return
	}
	SGEMMEx(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, &e)
}
