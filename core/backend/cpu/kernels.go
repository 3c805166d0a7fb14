package cpu

import "paddle/core/op"

// installKernels routes the float32 GEMMs of matmul (op.SGEMM) and of the
// convolutions (op.SetSgemm) to this package's blocked, assembly-backed
// SGEMM, and installs the vector depthwise conv2d, conv_transpose2d and
// conv2d_filter_grad where the CPU
// has one, unless PADDLE_CPU_KERNELS=generic.
func installKernels() {
	op.SGEMM = SGEMM
	op.SetSgemm(convSgemm)
	if Kernel() != genericKernel.name {
		if k := depthwiseKernel(); k != nil {
			op.SetKernel("conv2d", k)
		}
		if k := depthwiseTransposeKernel(); k != nil {
			op.SetKernel("conv_transpose2d", k)
		}
		if k := depthwiseFilterGradKernel(); k != nil {
			op.SetKernel("conv2d_filter_grad", k)
		}
	}
}

// convSgemm is SGEMM in the shape of op.Sgemm (alpha = 1).
func convSgemm(transA, transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	SGEMM(transA, transB, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
}
