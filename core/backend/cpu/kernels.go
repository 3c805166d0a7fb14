package cpu

import "paddle/core/op"

// installKernels routes the float32 GEMM of matmul and the convolutions
// (op.SGEMM) to this package's blocked, assembly-backed SGEMM.
func installKernels() {
	op.SGEMM = SGEMM
}
