//go:build arm64 && !purego

package cpu

// bytesToF32Vec: no vector conversion at the neon level yet (bytesToF32's
// loop converts every element).
func bytesToF32Vec(dst []float32, src []byte, zero int32, signed bool) int { return 0 }

// f32ToI32Vec: no vector conversion at the neon level yet.
func f32ToI32Vec(f []float32) int { return 0 }
