//go:build arm64 && !purego

package cpu

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// On a processor with the dot product, every forLevels test runs the neon
// level twice: with the SDOT int8 kernel and with the widening one.
func init() {
	levelVariants = func(l *level, run func(string)) {
		if l.isa != isaNEON || !cpu.ARM64.HasASIMDDP {
			return
		}
		qsdotOff = true
		defer func() { qsdotOff = false }()
		run("nosdot")
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
