package cmdutil

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestLeanGC(t *testing.T) {
	orig := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(orig)
	t.Setenv("GOMEMLIMIT", "1GiB") // the user's setting wins: LeanGC leaves the limit alone
	LeanGC(2)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("with GOMEMLIMIT set: limit %d, want it untouched", got)
	}
	t.Setenv("GOMEMLIMIT", "")
	for _, tt := range []struct{ parallel, want int64 }{{1, InferenceMemoryLimit}, {3, 3 * InferenceMemoryLimit}, {0, InferenceMemoryLimit}} {
		LeanGC(int(tt.parallel))
		if got := debug.SetMemoryLimit(-1); got != tt.want {
			t.Errorf("LeanGC(%d): limit %d, want %d", tt.parallel, got, tt.want)
		}
	}
}
