//go:build amd64 && !purego

package cpu

// wgVector reports whether the vector tile transforms may run (tests clear
// it to run the portable ones); they run at the avx2 and avx512 levels.
var wgVector = true

// wgInput16AVX512: see winograd_amd64.s; wgInput16AVX2 (avx2_amd64.s) has
// the same contract.
//
//go:noescape
func wgInput16AVX512(src *float32, lds int, dst *float32, ldv int, scratch *float32, groups int)

//go:noescape
func wgInput16AVX2(src *float32, lds int, dst *float32, ldv int, scratch *float32, groups int)

// wgOutput16AVX512: see winograd_amd64.s; wgOutput16AVX2 (avx2_amd64.s)
// has the same contract.
//
//go:noescape
func wgOutput16AVX512(m *float32, ldm int, dst *float32, ldo int, scratch *float32, groups int, bias float32)

//go:noescape
func wgOutput16AVX2(m *float32, ldm int, dst *float32, ldo int, scratch *float32, groups int, bias float32)

// wgInput16 is the input tile transform of the active level (AVX2 below avx512).
func wgInput16(src *float32, lds int, dst *float32, ldv int, scratch *float32, groups int) {
	if curISA() == isaAVX512 {
		wgInput16AVX512(src, lds, dst, ldv, scratch, groups)
		return
	}
	wgInput16AVX2(src, lds, dst, ldv, scratch, groups)
}

// wgOutput16 is the output tile transform of the active level.
func wgOutput16(m *float32, ldm int, dst *float32, ldo int, scratch *float32, groups int, bias float32) {
	if curISA() == isaAVX512 {
		wgOutput16AVX512(m, ldm, dst, ldo, scratch, groups, bias)
		return
	}
	wgOutput16AVX2(m, ldm, dst, ldo, scratch, groups, bias)
}
