//go:build !(amd64 || arm64) || purego

package cpu

func wgDeint4(src, dst *float32, ldd, groups int) {
	panic("cpu: wgDeint4 off amd64")
}

func wgInt4(src *float32, lds int, dst *float32, groups int) {
	panic("cpu: wgInt4 off amd64")
}
