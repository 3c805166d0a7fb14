//go:build !amd64 || purego

package cpu

// archKernels lists the assembly micro-kernels of this build: none.
func archKernels() []*microKernel { return nil }

// cacheSizes is unknown without CPUID; the defaults apply.
func cacheSizes() (l1, l2 int) { return 0, 0 }
