//go:build !(amd64 || arm64) || purego

package cpu

// wgVector is false off amd64: the scalar tile transforms run.
var wgVector = false

func wgInput16(src *float32, lds int, dst *float32, ldv int, scratch *float32, groups int) {
	panic("cpu: wgInput16 off amd64")
}

func wgOutput16(m *float32, ldm int, dst *float32, ldo int, scratch *float32, groups int, bias float32) {
	panic("cpu: wgOutput16 off amd64")
}
