//go:build amd64 && !purego

package cpu

import "unsafe"

// The int8 depthwise convolution's conversions (qdw_amd64.s).

//go:noescape
func bytesToF32AVX512(dst *float32, src *byte, n int, zero int32, signed uint32)

//go:noescape
func bytesToF32AVX2(dst *float32, src *byte, n int, zero int32, signed uint32)

//go:noescape
func f32ToI32AVX512(p *float32, n int)

//go:noescape
func f32ToI32AVX2(p *float32, n int)

// bytesToF32Vec converts a prefix of src (len(dst) elements) at the vector
// levels and returns its length.
func bytesToF32Vec(dst []float32, src []byte, zero int32, signed bool) int {
	var s uint32
	if signed {
		s = 1
	}
	switch curISA() {
	case isaAVX512:
		n := len(dst) &^ 15
		if n > 0 {
			bytesToF32AVX512(unsafe.SliceData(dst), unsafe.SliceData(src), n, zero, s)
		}
		return n
	case isaAVX2:
		n := len(dst) &^ 7
		if n > 0 {
			bytesToF32AVX2(unsafe.SliceData(dst), unsafe.SliceData(src), n, zero, s)
		}
		return n
	}
	return 0
}

// f32ToI32Vec converts a prefix of f in place at the vector levels and
// returns its length.
func f32ToI32Vec(f []float32) int {
	switch curISA() {
	case isaAVX512:
		n := len(f) &^ 15
		if n > 0 {
			f32ToI32AVX512(unsafe.SliceData(f), n)
		}
		return n
	case isaAVX2:
		n := len(f) &^ 7
		if n > 0 {
			f32ToI32AVX2(unsafe.SliceData(f), n)
		}
		return n
	}
	return 0
}
