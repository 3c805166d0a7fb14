//go:build !amd64 || purego

package cpu

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// archLevels lists this build's levels above generic: on arm64 with
// Advanced SIMD, neon, which has no NEON kernels yet (it runs the portable
// Go code, as generic does).
func archLevels() []*level {
	if runtime.GOARCH == "arm64" && cpu.ARM64.HasASIMD {
		return []*level{{name: "neon", isa: isaNEON, mk: genericKernel}}
	}
	return nil
}

// cacheSizes is unknown without CPUID; the defaults apply.
func cacheSizes() (l1, l2 int) { return 0, 0 }
