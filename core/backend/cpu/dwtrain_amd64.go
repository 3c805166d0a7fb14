//go:build amd64 && !purego

package cpu

import "unsafe"

// dwRow3AVX2: see dwtrain_amd64.s.
//
//go:noescape
func dwRow3AVX2(d, s *float32, n int, w *float32)

// dwRow3 is op.DWRow3x32 at the avx2 and avx512 levels: whole groups of 8
// columns in AVX2 assembly, the rest in Go, bitwise op's loop.
func dwRow3(d, s []float32, w0, w1, w2 float32) {
	n := len(d)
	s = s[:n+2]
	v := n &^ 7
	if v > 0 {
		w := [3]float32{w0, w1, w2}
		dwRow3AVX2(unsafe.SliceData(d), unsafe.SliceData(s), v, &w[0])
	}
	for i := v; i < n; i++ {
		d[i] += w0*s[i] + w1*s[i+1] + w2*s[i+2]
	}
}

// dwRow3Kernel returns the vector 3-tap depthwise row, nil at generic.
func dwRow3Kernel() func(d, s []float32, w0, w1, w2 float32) {
	if curISA() < isaAVX2 {
		return nil
	}
	return dwRow3
}
