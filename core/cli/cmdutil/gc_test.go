package cmdutil

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestHeapGoal(t *testing.T) {
	for _, tt := range []struct{ live, want int64 }{
		{0, 128}, {10, 128}, {80, 128}, {90, 138}, {144, 192}, {300, 192},
	} {
		if got := heapGoal(tt.live, 48, 128, 192); got != tt.want {
			t.Errorf("heapGoal(%d, 48, 128, 192) = %d, want %d", tt.live, got, tt.want)
		}
	}
}

func TestLeanGC(t *testing.T) {
	origLimit := debug.SetMemoryLimit(math.MaxInt64)
	origPercent := debug.SetGCPercent(100)
	defer func() {
		tuner.mu.Lock()
		tuner.on = false // the finalizer chain stops at the next collection
		tuner.mu.Unlock()
		runtime.GC()
		debug.SetMemoryLimit(origLimit)
		debug.SetGCPercent(origPercent)
	}()
	for _, env := range []string{"GOMEMLIMIT", "GOGC"} { // the user's setting wins
		t.Setenv(env, "1GiB")
		LeanGC(2)
		if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
			t.Errorf("with %s set: limit %d, want it untouched", env, got)
		}
		t.Setenv(env, "")
	}
	LeanGC(1)
	if p := debug.SetGCPercent(-1); p != -1 {
		t.Errorf("GOGC %d after LeanGC, want off (-1): the limit alone collects", p)
	}
	runtime.GC()
	runtime.GC() // the finalizer of the first has run by the second's end
	if got := debug.SetMemoryLimit(-1); got != InferenceHeapFloor {
		t.Errorf("little live: limit %d, want the floor %d", got, InferenceHeapFloor)
	}
	// 160 MiB live: that and the headroom are over the ceiling
	live := make([]byte, 160<<20)
	runtime.GC()
	runtime.GC()
	if got := debug.SetMemoryLimit(-1); got != InferenceMemoryLimit {
		t.Errorf("160 MiB live: limit %d MiB, want the ceiling %d MiB", got>>20, InferenceMemoryLimit>>20)
	}
	LeanGC(3) // three inputs at once: three times the ceiling
	if got := debug.SetMemoryLimit(-1); got < 208<<20 || got > 220<<20 {
		t.Errorf("LeanGC(3) with 160 MiB live: limit %d MiB, want about 208", got>>20)
	}
	runtime.KeepAlive(live)
}
