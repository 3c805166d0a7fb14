package cmdutil

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
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

func TestMemoryLimit(t *testing.T) {
	for _, tt := range []struct{ goal, want int64 }{
		{128, 128}, {100, 100}, {139, 139 + 24}, {150, 150 + 48}, {300, 300 + 48},
	} {
		if got := memoryLimit(tt.goal, 128, 150, 48); got != tt.want { // MiB for bytes: the rule is linear
			t.Errorf("memoryLimit(%d, 128, 150, 48) = %d, want %d", tt.goal, got, tt.want)
		}
	}
}

func TestGCPercent(t *testing.T) {
	const mb = 1 << 20
	for _, tt := range []struct {
		live, goal int64
		want       int
	}{
		{0, 128 * mb, 3100},     // the 4 MiB minimum heap grows 31-fold
		{80 * mb, 128 * mb, 60}, // 80 + 48
		{100 * mb, 148 * mb, 48},
		{160 * mb, 150 * mb, 10}, // over the ceiling: a tenth
	} {
		if got := gcPercent(tt.live, tt.goal); got != tt.want {
			t.Errorf("gcPercent(%d MiB, %d MiB) = %d, want %d", tt.live/mb, tt.goal/mb, got, tt.want)
		}
	}
}

// liveHeap is the heap the last collection found live.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
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
		if got := debug.SetGCPercent(100); got != 100 {
			t.Errorf("with %s set: GOGC %d, want it untouched", env, got)
		}
		t.Setenv(env, "")
	}
	// goalOf is the heap goal that GOGC p sets over what is live now.
	goalOf := func(p int) int64 { live := max(liveHeap(), 4<<20); return live + live*int64(p)/100 }
	LeanGC(1)
	runtime.GC()
	runtime.GC() // the finalizer of the first has run by the second's end
	if got := debug.SetMemoryLimit(-1); got != InferenceHeapFloor {
		t.Errorf("little live: limit %d MiB, want the floor, %d MiB", got>>20, InferenceHeapFloor>>20)
	}
	if p := debug.SetGCPercent(-1); p < 0 || goalOf(p) < InferenceHeapFloor-(1<<20) || goalOf(p) > InferenceHeapFloor+(1<<20) {
		t.Errorf("little live (%d MiB): GOGC %d makes the goal %d MiB, want the floor %d MiB", liveHeap()>>20, p, goalOf(p)>>20, InferenceHeapFloor>>20)
	} else {
		debug.SetGCPercent(p)
	}
	// 160 MiB live: that and the headroom are over the ceiling
	live := make([]byte, 160<<20)
	runtime.GC()
	runtime.GC()
	if p := debug.SetGCPercent(-1); p != 10 {
		t.Errorf("160 MiB live: GOGC %d, want 10 (over the ceiling)", p)
	} else {
		debug.SetGCPercent(p)
	}
	if got := debug.SetMemoryLimit(-1); got != InferenceHeapCeiling+InferenceMemoryMargin {
		t.Errorf("160 MiB live: limit %d MiB, want the ceiling and the margin, %d MiB", got>>20, (InferenceHeapCeiling+InferenceMemoryMargin)>>20)
	}
	runtime.KeepAlive(live)
	live = nil // the limit stays where it was: what is live swings between inputs
	runtime.GC()
	runtime.GC()
	if got := debug.SetMemoryLimit(-1); got != InferenceHeapCeiling+InferenceMemoryMargin {
		t.Errorf("little live again: limit %d MiB, want it kept at %d MiB", got>>20, (InferenceHeapCeiling+InferenceMemoryMargin)>>20)
	}
	live = make([]byte, 160<<20)
	runtime.GC()
	runtime.GC()
	LeanGC(3) // three inputs at once: three times the ceiling and the margin
	if p := debug.SetGCPercent(-1); goalOf(p) < 204<<20 || goalOf(p) > 210<<20 {
		t.Errorf("LeanGC(3) with 160 MiB live: GOGC %d makes the goal %d MiB, want about 208", p, goalOf(p)>>20)
	}
	// goal 208 of floor 128 and ceiling 450: 80/322 of the margin 144
	if got := debug.SetMemoryLimit(-1); got < (208+35-2)<<20 || got > (208+36+2)<<20 {
		t.Errorf("LeanGC(3) with 160 MiB live: limit %d MiB, want about 208 + 144·80/322", got>>20)
	}
	runtime.KeepAlive(live)
}
