//go:build arm64 && !purego

package cpu

// wgVector reports whether the vector tile transforms may run (tests clear
// it to run the portable ones); they run at the neon level.
var wgVector = true

// The NEON tile transforms and shuffles (neon_arm64.s), with the contracts
// of their amd64 twins (winograd_amd64.s, wgshuffle_amd64.s): 4 tiles per
// pass, 16 per group.
//
//go:noescape
func wgInput16NEON(src *float32, lds int, dst *float32, ldv int, scratch *float32, groups int)

//go:noescape
func wgOutput16NEON(m *float32, ldm int, dst *float32, ldo int, scratch *float32, groups int, bias float32)

//go:noescape
func wgDeint4NEON(src, dst *float32, ldd, groups int)

//go:noescape
func wgInt4NEON(src *float32, lds int, dst *float32, groups int)

// wgInput16 is the input tile transform of the neon level.
func wgInput16(src *float32, lds int, dst *float32, ldv int, scratch *float32, groups int) {
	wgInput16NEON(src, lds, dst, ldv, scratch, groups)
}

// wgOutput16 is the output tile transform of the neon level.
func wgOutput16(m *float32, ldm int, dst *float32, ldo int, scratch *float32, groups int, bias float32) {
	wgOutput16NEON(m, ldm, dst, ldo, scratch, groups, bias)
}

// wgDeint4 is the stride-4 deinterleave of the neon level.
func wgDeint4(src, dst *float32, ldd, groups int) { wgDeint4NEON(src, dst, ldd, groups) }

// wgInt4 is the stride-4 interleave of the neon level.
func wgInt4(src *float32, lds int, dst *float32, groups int) { wgInt4NEON(src, lds, dst, groups) }
