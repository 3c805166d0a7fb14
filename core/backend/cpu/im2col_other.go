//go:build !amd64 || purego

package cpu

// stride2Kernel: no vector stride-2 copy off amd64 (im2col's Go loop runs).
func stride2Kernel() func(dst, src []float32) { return nil }

// stride2AddKernel: none off amd64 (col2im's Go loop runs).
func stride2AddKernel() func(dst, src []float32) { return nil }
