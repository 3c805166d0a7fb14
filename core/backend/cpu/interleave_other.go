//go:build !amd64 || purego

package cpu

// interleave2Kernel: none off amd64 (interleaveTaps' Go loop runs).
func interleave2Kernel() func(out, a, b []float32, bias, floor float32) int { return nil }
