//go:build arm64 && !purego

package cpu

import "unsafe"

// The vector rows of neon_arm64.s (n a multiple of 4).
//
//go:noescape
func addVVNEON(o, a, b *float32, n int)

//go:noescape
func mulVVNEON(o, a, b *float32, n int)

//go:noescape
func addVSNEON(o, a *float32, n int, s float32)

//go:noescape
func mulVSNEON(o, a *float32, n int, s float32)

// vecRow is op.VecRow32 at the neon level: o = a + b or a · b with b a row
// (sb = 1) or one value repeated (sb = 0); groups of 4 in assembly, the
// rest in Go.
func vecRow(code byte, o, a, b []float32, sb int) bool {
	if (code != '+' && code != '*') || (sb != 0 && sb != 1) || curISA() != isaNEON {
		return false
	}
	n := len(o)
	if n == 0 {
		return true
	}
	a = a[:n]
	b = b[:max(1, sb*n)]
	v := n &^ 3
	if v > 0 {
		po, pa := unsafe.SliceData(o), unsafe.SliceData(a)
		switch {
		case code == '+' && sb == 1:
			addVVNEON(po, pa, unsafe.SliceData(b), v)
		case code == '*' && sb == 1:
			mulVVNEON(po, pa, unsafe.SliceData(b), v)
		case code == '+':
			addVSNEON(po, pa, v, b[0])
		default:
			mulVSNEON(po, pa, v, b[0])
		}
	}
	for i := v; i < n; i++ {
		if code == '+' {
			o[i] = a[i] + b[i*sb]
		} else {
			o[i] = a[i] * b[i*sb]
		}
	}
	return true
}

// vecRowKernel returns the vector add/mul rows, nil at generic.
func vecRowKernel() func(code byte, o, a, b []float32, sb int) bool {
	if curISA() != isaNEON {
		return nil
	}
	return vecRow
}
