//go:build amd64 && !purego

package cpu

import "unsafe"

// The vector rows of binary_amd64.s.
//
//go:noescape
func addVVAVX512(o, a, b *float32, n int)

//go:noescape
func mulVVAVX512(o, a, b *float32, n int)

//go:noescape
func addVSAVX512(o, a *float32, n int, s float32)

//go:noescape
func mulVSAVX512(o, a *float32, n int, s float32)

// Their avx2 twins (avx2_amd64.s).
//
//go:noescape
func addVVAVX2(o, a, b *float32, n int)

//go:noescape
func mulVVAVX2(o, a, b *float32, n int)

//go:noescape
func addVSAVX2(o, a *float32, n int, s float32)

//go:noescape
func mulVSAVX2(o, a *float32, n int, s float32)

type (
	vvFunc func(o, a, b *float32, n int)
	vsFunc func(o, a *float32, n int, s float32)
)

var (
	vvAVX512 = [2]vvFunc{addVVAVX512, mulVVAVX512}
	vsAVX512 = [2]vsFunc{addVSAVX512, mulVSAVX512}
	vvAVX2   = [2]vvFunc{addVVAVX2, mulVVAVX2}
	vsAVX2   = [2]vsFunc{addVSAVX2, mulVSAVX2}
)

// vecRow is op.VecRow32 at the avx2 and avx512 levels: o = a + b or
// a · b with b a row (sb = 1) or one value repeated (sb = 0).
func vecRow(code byte, o, a, b []float32, sb int) bool {
	var op int
	switch code {
	case '+':
	case '*':
		op = 1
	default:
		return false
	}
	vv, vs := vvAVX512, vsAVX512
	switch curISA() {
	case isaAVX512:
	case isaAVX2:
		vv, vs = vvAVX2, vsAVX2
	default:
		return false
	}
	n := len(o)
	if n == 0 {
		return sb == 0 || sb == 1
	}
	a = a[:n]
	po, pa := unsafe.SliceData(o), unsafe.SliceData(a)
	switch sb {
	case 1:
		vv[op](po, pa, unsafe.SliceData(b[:n]), n)
	case 0:
		vs[op](po, pa, n, b[0])
	default:
		return false
	}
	return true
}

// vecRowKernel returns the vector add/mul rows, nil at generic.
func vecRowKernel() func(code byte, o, a, b []float32, sb int) bool {
	if curISA() < isaAVX2 {
		return nil
	}
	return vecRow
}
