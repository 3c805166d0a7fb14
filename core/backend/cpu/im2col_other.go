//go:build !(amd64 || arm64) || purego

package cpu

// stride2AddKernel: none off amd64 (col2im's Go loop runs).
func stride2AddKernel() func(dst, src []float32) { return nil }

// stride2RowsKernel: none off amd64 (im2col's Go loop runs).
func stride2RowsKernel() func(dst []float32, ldd int, src []float32, lds, n, rows int) { return nil }

// maxPool2x2Kernel: none off amd64 (pooling's Go loop runs).
func maxPool2x2Kernel() func(dst, r0, r1 []float32) { return nil }

// vecRowKernel: none off amd64 (the binary ops' Go loops run).
func vecRowKernel() func(code byte, o, a, b []float32, sb int) bool { return nil }
