//go:build (!amd64 && !arm64) || purego

package cpu

// qkernelFor returns nil: off amd64 and arm64 the int8 GEMM runs the generic Go loops.
func qkernelFor(isa) *qkernel { return nil }

// QKernel names the int8 GEMM kernel of the active level.
func QKernel() string { return "generic" }

// qkernelNarrow returns nil: no narrow-operand kernel here.
func qkernelNarrow(*qkernel) *qkernel { return nil }

// interleave4Kernel returns nil: no vector 4-row byte interleave here
// (core/op's Go loop runs; no level here reads B grouped in place).
func interleave4Kernel() func(dst, src []byte, ld, n int) int { return nil }
