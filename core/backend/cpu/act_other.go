//go:build !(amd64 || arm64) || purego

package cpu

import "paddle/core/op"

// actKernels adds nothing off amd64: the reference kernels run.
func actKernels(*op.Kernels) {}

func hardswishVec() func(y, x []float32) { return nil }

func hardsigmoidVec() func(y, x []float32, alpha, beta float32) { return nil }
