//go:build arm64 || amd64.v3

package op

// fma32 is x·y + z rounded once to float32, as a fused multiply-add: on
// this architecture the compiler fuses the expression into one
// instruction (FMADDS, VFMADD231SS), as the Go spec allows; TestFMA32
// checks that it does.
func fma32(x, y, z float32) float32 { return x*y + z }
