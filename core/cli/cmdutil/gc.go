package cmdutil

import (
	"os"
	"runtime/debug"
)

// InferenceMemoryLimit is the soft memory limit (debug.SetMemoryLimit) of an
// inference process per input it works on at once (LeanGC).
const InferenceMemoryLimit = 192 << 20

// LeanGC gives the garbage collector a soft memory limit of
// InferenceMemoryLimit times parallel (the inputs worked on at once: predict's
// --workers, serve's --concurrency) unless the GOMEMLIMIT environment variable
// is set (which then wins, as always in Go). Commands that run models over
// many inputs (ocr predict, serve) call it. Go's default lets the heap grow to
// twice what was live at the last collection, which for OCR over pages is
// twice a page's working set; under the limit the collector runs earlier
// instead (OCR over 10 pages: peak RSS 206 MiB against 311 MiB), and where the
// heap stays small (small images) it runs as often as before (CPU time within
// 4 %, where GOGC=25 cost a third more). An input whose working set alone is
// larger than the limit makes the collector run more often while it is
// processed (Go caps that at half the CPU time); the limit is soft, memory is
// never refused.
func LeanGC(parallel int) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(InferenceMemoryLimit * int64(max(parallel, 1)))
	}
}
