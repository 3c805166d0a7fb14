//go:build arm64 && !purego

package cpu

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// On a processor with the dot product, every forQLevels test runs the
// neon level twice: with the SDOT int8 kernel and with the widening one.
func init() {
	qkernelVariants = func(t *testing.T, f func(t *testing.T)) {
		if curISA() != isaNEON || !cpu.ARM64.HasASIMDDP {
			return
		}
		// A fresh kernel set for each switch: core/op caches packed
		// weights per kernel set (qweights.go), and a panel packed for
		// SDOT must not reach the widening kernel.
		qsdotOff = true
		installKernels()
		defer func() { qsdotOff = false; installKernels() }()
		t.Run("nosdot", f)
	}
}

// TestQKernelARM64 checks the neon level's int8 kernel choice: SDOT
// exactly when the processor has the dot product and it is not switched
// off. (Under qemu: QEMU_CPU=max has it, cortex-a72 does not.)
func TestQKernelARM64(t *testing.T) {
	saved := activeLevel.Load()
	defer setLevel(saved)
	if err := SelectKernel("neon"); err != nil {
		t.Fatal(err)
	}
	want := "neon-smlal"
	if cpu.ARM64.HasASIMDDP {
		want = "neon-sdot"
	}
	t.Logf("dot product %v: int8 kernel %s", cpu.ARM64.HasASIMDDP, QKernel())
	if got := QKernel(); got != want {
		t.Fatalf("QKernel() = %s, want %s", got, want)
	}
	qsdotOff = true
	defer func() { qsdotOff = false }()
	if got := QKernel(); got != "neon-smlal" {
		t.Fatalf("SDOT off: QKernel() = %s, want neon-smlal", got)
	}
}

// TestQPackBARM64 checks the NEON B packers against their definitions
// (qgemm_arm64.s), byte for byte: several groups/rows, row strides of 12
// and more, flipped or not, int8 and uint8 widening.
func TestQPackBARM64(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, ldb := range []int{12, 13, 40} {
		for _, n := range []int{1, 2, 5} {
			src := make([]byte, (4*n-1)*ldb+12)
			for i := range src {
				src[i] = byte(r.Uint32())
			}
			for _, signed := range []bool{false, true} {
				dst := make([]byte, 48*n)
				qpackB4x12(&src[0], ldb, n, uint32(flipByte(signed)), &dst[0])
				for g := range n {
					for j := range 12 {
						for tt := range 4 {
							want := src[(4*g+tt)*ldb+j] ^ flipByte(signed)
							if got := dst[g*48+4*j+tt]; got != want {
								t.Fatalf("qpackB4x12 ldb %d groups %d signed %v: [%d,%d,%d] = %#x, want %#x", ldb, n, signed, g, j, tt, got, want)
							}
						}
					}
				}
				wide := make([]byte, 24*4*n)
				qpackB16x12(&src[0], ldb, 4*n, b2u(signed), &wide[0])
				for p := range 4 * n {
					for j := range 12 {
						want := byteVal(src[p*ldb+j], signed)
						if got := int32(int16(binary.LittleEndian.Uint16(wide[2*(12*p+j):]))); got != want {
							t.Fatalf("qpackB16x12 ldb %d rows %d signed %v: [%d,%d] = %d, want %d", ldb, 4*n, signed, p, j, got, want)
						}
					}
				}
			}
		}
	}
}
