//go:build !(amd64 || arm64) || purego

package cpu

// archLevels lists this build's levels above generic: none (the portable
// Go code only; arm64 has neon, sgemm_arm64.go, unless built purego).
func archLevels() []*level { return nil }

// cacheSizes is unknown without CPUID; the defaults apply.
func cacheSizes() (l1, l2 int) { return 0, 0 }
