//go:build arm64 && !purego

package cpu

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

// sgemm8x12NEON (neon_arm64.s) computes a full 8×12 tile: c[r*ldc+j] =
// alpha·Σ_p a[p*8+r]·b[p*12+j] (+ beta·c[r*ldc+j] when loadC != 0) from
// k-major packed panels, k ≥ 0.
//
//go:noescape
func sgemm8x12NEON(k int, a, b, c *float32, ldc int, loadC uint32, alpha, beta float32)

// neonKernel is the neon level's micro-kernel: 8×12 floats in 24 of the 32
// V registers, the A and B values of one k step in 5 more.
var neonKernel = &microKernel{
	name: "neon", mr: 8, nr: 12,
	run: func(kc int, a, b, c []float32, ldc, rows, cols int, alpha, beta float32, loadC, _ bool) {
		_, _ = a[kc*8-1], b[kc*12-1]
		if rows == 8 && cols == 12 {
			_ = c[7*ldc+11]
			sgemm8x12NEON(kc, unsafe.SliceData(a), unsafe.SliceData(b), unsafe.SliceData(c), ldc, b2u(loadC), alpha, beta)
			return
		}
		// a partial tile: compute into a scratch tile, then merge the valid part
		var t [8 * 12]float32
		sgemm8x12NEON(kc, unsafe.SliceData(a), unsafe.SliceData(b), &t[0], 12, 0, alpha, 0)
		mergeTile(t[:], 12, c, ldc, rows, cols, beta, loadC)
	},
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// archLevels lists this processor's levels above generic: neon, with
// Advanced SIMD (every arm64 processor Go runs on has it).
func archLevels() []*level {
	if cpu.ARM64.HasASIMD {
		return []*level{{name: "neon", isa: isaNEON, mk: neonKernel}}
	}
	return nil
}

// cacheSizes is not read on arm64 (no portable way from user space); the
// defaults apply.
func cacheSizes() (l1, l2 int) { return 0, 0 }
