package cpu

import "paddle/core/op"

// installKernels routes the float32 GEMMs of matmul and the convolutions
// (op.SGEMM) to this package's blocked, assembly-backed SGEMM, and installs the vector depthwise conv2d, conv_transpose2d and
// conv2d_filter_grad and the vector
// hardswish and hardsigmoid (act_amd64.go) where the CPU has them, unless PADDLE_CPU_KERNELS=generic.
func installKernels() {
	op.SGEMM = SGEMM
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
		actKernels()
	}
}
