package cmdutil

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// InferenceHeapCeiling is the most an inference process's heap may reach
// before collecting, per input it works on at once (LeanGC): the ceiling of
// the heap goal.
const InferenceHeapCeiling = 150 << 20

// InferenceHeapFloor is the Go memory an inference process's heap may reach
// before collecting whatever it holds (LeanGC): the floor of the heap goal.
const InferenceHeapFloor = 128 << 20

// InferenceHeapHeadroom is how much an inference process's heap may grow
// past what was live after a collection before the next (LeanGC).
const InferenceHeapHeadroom = 48 << 20

// InferenceMemoryMargin is how far above its heap goal an inference
// process's Go memory is softly bounded (debug.SetMemoryLimit), per input
// it works on at once, once its heap goal has reached the ceiling (LeanGC):
// past that bound the runtime returns freed memory to the operating system
// instead of keeping it for the next input.
const InferenceMemoryMargin = 48 << 20

// LeanGC sets the collector of a process that runs models over many inputs
// (ocr predict, serve; parallel is the inputs worked on at once: predict's
// --workers, serve's --concurrency) to collect when its heap reaches
// InferenceHeapHeadroom more than was live after the last collection, but
// never before InferenceHeapFloor nor after InferenceHeapCeiling times
// parallel (GOGC retuned after every collection), and bounds its Go memory
// softly (memoryLimit): at the heap goal while that stays at the floor, up
// to InferenceMemoryMargin times parallel above it as the goal climbs to
// the ceiling, and never lower than it has been since LeanGC. The
// environment's GOGC or GOMEMLIMIT wins: with either set, LeanGC changes
// nothing.
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
// large pages do not double a large heap (40 pages: 311 MiB without one).
//
// Why GOGC and not the memory limit triggers collections: with GOGC off
// and the limit at the heap goal (LeanGC until 2026-12-02) the heap sat at
// the limit, and the runtime returned the memory that each collection
// freed to the operating system, so every page faulted its working set in
// afresh: 40 pages took 1.93 million minor page faults and 20 s of system
// time in 69 s of CPU on this project's VMs (docs/BENCHMARKS.md, "OCR
// memory over long runs"). Collecting a margin below the limit keeps freed
// memory for the next input: a fifth of the faults and 43 % less CPU time,
// for a peak RSS of 212 MiB instead of 196. Small inputs keep the
// limit at the goal: their few MB each cost few faults, and a margin let
// their peak RSS creep up by 10 % over 10,000 images. The limit never drops
// back because what is live swings from page to page (44 to 139 MB after
// the collections of 40 pages): a limit that followed it fell to the
// floor after every low collection, and the pages faulted again.
func LeanGC(parallel int) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		return
	}
	p := int64(max(parallel, 1))
	tuner.mu.Lock()
	tuner.ceiling = InferenceHeapCeiling * p
	tuner.margin = InferenceMemoryMargin * p
	tuner.limit = 0
	start := !tuner.on
	tuner.on = true
	tuner.mu.Unlock()
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
	margin  int64 // of the memory limit over the heap goal
	limit   int64 // the highest memory limit set since LeanGC
}

// heapGoal returns the heap size at which the next collection comes:
// headroom past the live heap, clamped to [floor, ceiling].
func heapGoal(live, headroom, floor, ceiling int64) int64 {
	return min(max(live+headroom, floor), ceiling)
}

// retune sets GOGC from the heap live after the last collection, for the
// next collection to come at heapGoal, and the memory limit from that goal
// (memoryLimit), never lower than it has been.
func retune() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	live := int64(0)
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = int64(s[0].Value.Uint64())
	}
	tuner.mu.Lock()
	goal := heapGoal(live, InferenceHeapHeadroom, InferenceHeapFloor, tuner.ceiling)
	tuner.limit = max(tuner.limit, memoryLimit(goal, InferenceHeapFloor, tuner.ceiling, tuner.margin))
	limit := tuner.limit
	tuner.mu.Unlock()
	debug.SetGCPercent(gcPercent(live, goal))
	debug.SetMemoryLimit(limit)
}

// memoryLimit returns the soft memory limit for heap goal goal: the goal
// plus the part of margin that the goal has climbed from floor towards
// ceiling. Small inputs (goal at the floor) are held at the goal, so their
// peak RSS stays flat; a heap at the ceiling, whose inputs each allocate
// and free tens of MB, gets the whole margin to keep that memory between
// inputs instead of faulting it in again.
func memoryLimit(goal, floor, ceiling, margin int64) int64 {
	if ceiling <= floor {
		return goal + margin
	}
	return goal + margin*(min(max(goal, floor), ceiling)-floor)/(ceiling-floor)
}

// gcPercent returns the GOGC that sets the collector's heap goal to goal
// when live bytes were live after the last collection (taken as at least
// the runtime's 4 MiB minimum heap), and at least 10: a live heap over the
// ceiling still grows by a tenth between collections.
func gcPercent(live, goal int64) int {
	live = max(live, 4<<20)
	return int(max((goal-live)*100/live, 10))
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
