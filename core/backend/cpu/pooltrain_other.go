//go:build !amd64 || purego

package cpu

// maxPool2x2GradKernel: none off amd64 (pooling's Go loop runs).
func maxPool2x2GradKernel() func(d0, d1, r0, r1, dy []float32) { return nil }

// dwRow3Kernel: none off amd64 (depthwise's Go loop runs).
func dwRow3Kernel() func(d, s []float32, w0, w1, w2 float32) { return nil }
