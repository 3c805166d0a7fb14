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
	name: "neon", mr: 8, nr: 12, epilogueTile: epilogueTileNEON,
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

// epilogueNEON (neon_arm64.s) applies an Epilogue with no act or relu or
// hardswish6 (kind: the Act, or-ed with 0x100 for the affine scale/shift)
// to a rows×cols tile, cols a multiple of 4; rowBias points at the tile's
// first row's bias, colBias at its first column's (either may be nil).
//
//go:noescape
func epilogueNEON(c *float32, ldc, rows, cols int, kind uint32, rowBias, colBias *float32, scale, shift float32)

// epilogueTileNEON is microKernel.epilogueTile for the neon kernel: groups
// of 4 columns in assembly, the rest (and the other acts) in Go.
func epilogueTileNEON(e *Epilogue, c []float32, ldc, i0, j0, rows, cols int) {
	v := cols &^ 3
	if e.Act != ActNone && e.Act != ActRelu && e.Act != ActHardSwish6 || rows == 0 {
		v = 0
	}
	if v > 0 {
		var rb, cb *float32
		if e.RowBias != nil {
			rb = &e.RowBias[i0:][:rows][0]
		}
		if e.ColBias != nil {
			cb = &e.ColBias[j0:][:v][0]
		}
		kind := uint32(e.Act)
		if e.Affine {
			kind |= 0x100
		}
		_ = c[(rows-1)*ldc+v-1]
		epilogueNEON(unsafe.SliceData(c), ldc, rows, v, kind, rb, cb, e.Scale, e.Shift)
	}
	if v < cols {
		e.applyGo(c[v:], ldc, i0, j0+v, rows, cols-v)
	}
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
