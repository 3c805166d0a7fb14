package cpu

import (
	"runtime"
	"strings"
	"testing"
)

// forLevels runs f as a subtest at each kernel level this processor has
// (generic included) with that level's kernels installed, so an AVX-512
// machine also tests the avx2 and generic code; the level in force before
// is restored after.
func forLevels(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	saved := activeLevel.Load()
	defer func() { setLevel(saved); installKernels() }()
	for _, l := range levels {
		setLevel(l)
		installKernels()
		t.Run(l.name, f)
	}
}

// forQLevels is forLevels for the int8 GEMM's tests: where the level has
// another int8 kernel on this processor (qkernelVariants: on arm64 with
// the dot product, the widening kernel besides SDOT), f runs under it too.
func forQLevels(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	forLevels(t, func(t *testing.T) {
		f(t)
		if qkernelVariants != nil {
			qkernelVariants(t, f)
		}
	})
}

// qkernelVariants, set by an architecture's tests, runs f as a subtest
// under each other int8 kernel of the active level.
var qkernelVariants func(t *testing.T, f func(t *testing.T))

func TestLevels(t *testing.T) {
	saved := activeLevel.Load()
	defer setLevel(saved)
	names := Levels()
	if len(names) == 0 || names[len(names)-1] != "generic" {
		t.Fatalf("levels %v: want generic last", names)
	}
	if runtime.GOARCH == "amd64" && len(names) > 1 && names[len(names)-2] != "avx2" {
		t.Fatalf("levels %v: want avx2 just above generic", names)
	}
	for _, n := range names {
		if err := SelectKernel(n); err != nil || Level() != n {
			t.Fatalf("SelectKernel(%s) = %v, level %s", n, err, Level())
		}
		vec := n == "avx2" || n == "avx512" || n == "neon"
		if got := depthwiseKernel() != nil; got != vec {
			t.Errorf("level %s: depthwise kernel %v, want %v", n, got, vec)
		}
		if got := stride2RowsKernel() != nil && maxPool2x2Kernel() != nil && vecRowKernel() != nil && hardsigmoidVec() != nil && hardswishVec() != nil; got != vec {
			t.Errorf("level %s: vector row kernels %v, want %v", n, got, vec)
		}
	}
	for _, bad := range []string{"avx1024", "AVX2", "sse"} {
		err := SelectKernel(bad)
		if err == nil || !strings.Contains(err.Error(), KernelEnv+"="+bad) || !strings.Contains(err.Error(), "available: "+strings.Join(names, ", ")) {
			t.Errorf("SelectKernel(%q) = %v: want an error naming %s and the levels", bad, err, KernelEnv)
		}
	}
	if err := SelectKernel(""); err != nil || Level() != names[0] {
		t.Fatalf("SelectKernel(\"\") = %v, level %s", err, Level())
	}
}

// An invalid PADDLE_CPU_KERNELS is Activate's error.
func TestActivateLevelError(t *testing.T) {
	defer func(e error) { levelErr = e }(levelErr)
	levelErr = SelectKernel("avx1024")
	if err := (host{}).Activate(1); err == nil || !strings.Contains(err.Error(), KernelEnv) {
		t.Fatalf("Activate = %v, want the %s error", err, KernelEnv)
	}
}
