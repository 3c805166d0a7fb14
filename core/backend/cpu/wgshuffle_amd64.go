//go:build amd64 && !purego

package cpu

// wgDeint4AVX512: see wgshuffle_amd64.s; wgDeint4AVX2 (avx2_amd64.s) has
// the same contract.
//
//go:noescape
func wgDeint4AVX512(src, dst *float32, ldd, groups int)

//go:noescape
func wgDeint4AVX2(src, dst *float32, ldd, groups int)

// wgInt4AVX512: see wgshuffle_amd64.s; wgInt4AVX2 (avx2_amd64.s) has the
// same contract.
//
//go:noescape
func wgInt4AVX512(src *float32, lds int, dst *float32, groups int)

//go:noescape
func wgInt4AVX2(src *float32, lds int, dst *float32, groups int)

// wgDeint4 is the stride-4 deinterleave of the active level.
func wgDeint4(src, dst *float32, ldd, groups int) {
	if curISA() == isaAVX512 {
		wgDeint4AVX512(src, dst, ldd, groups)
		return
	}
	wgDeint4AVX2(src, dst, ldd, groups)
}

// wgInt4 is the stride-4 interleave of the active level.
func wgInt4(src *float32, lds int, dst *float32, groups int) {
	if curISA() == isaAVX512 {
		wgInt4AVX512(src, lds, dst, groups)
		return
	}
	wgInt4AVX2(src, lds, dst, groups)
}
