//go:build !amd64 || purego

package cpu

func wgDeint4AVX512(src, dst *float32, ldd, groups int) {
	panic("cpu: wgDeint4AVX512 off amd64")
}

func wgInt4AVX512(src *float32, lds int, dst *float32, groups int) {
	panic("cpu: wgInt4AVX512 off amd64")
}
