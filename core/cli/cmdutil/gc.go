package cmdutil

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// InferenceMemoryLimit is the most Go memory (debug.SetMemoryLimit) the
// collector lets an inference process's heap reach before collecting, per
// input it works on at once (LeanGC): a soft ceiling for the heap goal.
const InferenceMemoryLimit = 176 << 20

// InferenceHeapFloor is the Go memory an inference process's heap may reach
// before collecting whatever it holds (LeanGC): the floor of the heap goal.
const InferenceHeapFloor = 128 << 20

// InferenceHeapHeadroom is how much an inference process's heap may grow
// past what was live after a collection before the next (LeanGC).
const InferenceHeapHeadroom = 48 << 20

// LeanGC sets the collector of a process that runs models over many inputs
// (ocr predict, serve; parallel is the inputs worked on at once: predict's
// --workers, serve's --concurrency) to collect when its Go memory reaches
// InferenceHeapHeadroom more than was live after the last collection, but
// never before InferenceHeapFloor and, soft, never after
// InferenceMemoryLimit times parallel. The environment's GOGC or
// GOMEMLIMIT wins: with either set, LeanGC changes nothing.
//
// Why the floor: Go's own rule (GOGC=100) makes the heap goal twice what a
// collection found live, and what is live swings with the call that happens
// to be running at that moment (OCR over small images: 33 to 73 MB), so the
// peak RSS of a long process rose in steps as rare timings met (10,000
// small images: 135 MiB at image 100, 161 MiB at 10,000). With the floor
// and a fixed headroom, small inputs always collect at the same heap size
// (anything live up to 80 MiB): the peak is reached within the first inputs
// and stays, and there are fewer collections. The floor is kept low enough
// for one small page as one process to peak under 200 MB. Why the ceiling:
// large pages do not double a large heap (40 pages peak at 197-206 MiB with
// 176 MiB, 211-232 MiB with 192, 311 MiB without a ceiling).
func LeanGC(parallel int) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		return
	}
	p := int64(max(parallel, 1))
	tuner.mu.Lock()
	tuner.ceiling = InferenceMemoryLimit * p
	start := !tuner.on
	tuner.on = true
	tuner.mu.Unlock()
	debug.SetGCPercent(-1) // the memory limit alone triggers collections
	retune()
	if start {
		armTuner()
	}
}

// tuner is LeanGC's state: whether it runs, and the ceiling of the heap
// goal for the inputs worked on at once.
var tuner struct {
	mu      sync.Mutex
	on      bool
	ceiling int64
}

// heapGoal returns the memory limit that makes the next collection come
// headroom past the live heap, clamped to [floor, ceiling].
func heapGoal(live, headroom, floor, ceiling int64) int64 {
	return min(max(live+headroom, floor), ceiling)
}

// retune sets the memory limit from the heap live after the last collection.
func retune() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	live := int64(0)
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = int64(s[0].Value.Uint64())
	}
	tuner.mu.Lock()
	limit := heapGoal(live, InferenceHeapHeadroom, InferenceHeapFloor, tuner.ceiling)
	tuner.mu.Unlock()
	debug.SetMemoryLimit(limit)
}

// armTuner calls retune after every collection (a finalizer runs once the
// collector has found its object unreachable, and re-arms itself).
func armTuner() {
	sentinel := new([16]byte)
	runtime.SetFinalizer(sentinel, func(*[16]byte) {
		tuner.mu.Lock()
		on := tuner.on
		tuner.mu.Unlock()
		if on {
			retune()
			armTuner()
		}
	})
}
