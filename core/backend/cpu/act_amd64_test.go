//go:build amd64 && !purego

package cpu

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/cpu"
)

// The AVX2 hardswish is the fallback on CPUs without AVX-512: test it here too.
func TestHardswishAVX2Bitwise(t *testing.T) {
	if !cpu.X86.HasAVX2 {
		t.Skip("no AVX2")
	}
	x := actInputs()
	n := len(x) &^ 7
	y := make([]float32, n)
	hardswishAVX2(unsafe.SliceData(y), unsafe.SliceData(x), n)
	for i, v := range x[:n] {
		if want := v * min(max(v+3, 0), 6) / 6; !sameBits(y[i], want) {
			t.Fatalf("hardswish(%g) = %g, want %g", v, y[i], want)
		}
	}
}
