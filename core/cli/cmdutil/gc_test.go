package cmdutil

import (
	"runtime/debug"
	"testing"
)

func TestLeanGC(t *testing.T) {
	orig := debug.SetGCPercent(77)
	defer debug.SetGCPercent(orig)
	t.Setenv("GOGC", "80") // the user's setting wins: LeanGC leaves the collector alone
	LeanGC()
	if got := debug.SetGCPercent(77); got != 77 {
		t.Errorf("with GOGC=80 set: GC percent %d, want it untouched (77)", got)
	}
	t.Setenv("GOGC", "")
	LeanGC()
	if got := debug.SetGCPercent(77); got != InferenceGOGC {
		t.Errorf("without GOGC: GC percent %d, want %d", got, InferenceGOGC)
	}
}
