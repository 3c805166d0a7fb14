//go:build amd64 && !purego

package cpu

// wgDeint4AVX512: see wgshuffle_amd64.s.
//
//go:noescape
func wgDeint4AVX512(src, dst *float32, ldd, groups int)

// wgInt4AVX512: see wgshuffle_amd64.s.
//
//go:noescape
func wgInt4AVX512(src *float32, lds int, dst *float32, groups int)
