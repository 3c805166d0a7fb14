package cpu

import (
	"paddle/core/op"
	"paddle/core/parallel"
)

// installKernels makes parallel.For run on the persistent workers
// (pool.go), routes the float32 GEMMs of matmul and the convolutions
// (op.SGEMM, and op.SGEMMEx with its fused epilogue) to this package's
// blocked, assembly-backed SGEMM, and installs the vector depthwise conv2d,
// conv_transpose2d and conv2d_filter_grad, im2col's stride-2 row gather and
// col2im's scatter (im2col_amd64.s), 2×2 max pooling (maxpool_amd64.s) and the vector hardswish and hardsigmoid (act_amd64.go)
// at the active level (level.go): avx2 or avx512, none at generic.
func installKernels() {
	parallel.SetRunner(runParts)
	op.SGEMM = SGEMM
	op.SGEMMEx = opSGEMMEx
	op.GemmLoop = gemmLoop
	op.Stride2Rows32, op.Stride2Add32, op.MaxPool2x2Rows32, op.SumF32To64, op.VecRow32 = nil, nil, nil, nil, nil
	op.DepthwiseEx = nil
	if Kernel() != genericKernel.name {
		op.Stride2Rows32, op.Stride2Add32 = stride2RowsKernel(), stride2AddKernel()
		op.MaxPool2x2Rows32 = maxPool2x2Kernel()
		op.VecRow32 = vecRowKernel()
		if k := depthwiseKernel(); k != nil {
			op.SetKernel("conv2d", k)
			op.DepthwiseEx = depthwiseExKernel()
		}
		if k := depthwiseTransposeKernel(); k != nil {
			op.SetKernel("conv_transpose2d", k)
		}
		if k := depthwiseFilterGradKernel(); k != nil {
			op.SetKernel("conv2d_filter_grad", k)
		}
		actKernels()
	}
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
