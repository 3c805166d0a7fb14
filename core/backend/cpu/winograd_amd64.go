//go:build amd64 && !purego

package cpu

import "golang.org/x/sys/cpu"

// wgVector reports whether the AVX-512 tile transforms can run.
var wgVector = cpu.X86.HasAVX512F

// wgInput16AVX512: see winograd_amd64.s.
//
//go:noescape
func wgInput16AVX512(src *float32, lds int, dst *float32, ldv int, scratch *float32, groups int)

// wgOutput16AVX512: see winograd_amd64.s.
//
//go:noescape
func wgOutput16AVX512(m *float32, ldm int, dst *float32, ldo int, scratch *float32, groups int, bias float32)
