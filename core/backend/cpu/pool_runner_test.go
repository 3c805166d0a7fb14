package cpu

import (
	"sync/atomic"
	"testing"

	"paddle/core/parallel"
)

// runParts calls every part once, also when parts outnumber the threads
// and when For nests inside a part (the inner loop finds the workers busy
// and starts goroutines).
func TestRunPartsNested(t *testing.T) {
	defer parallel.SetThreads(parallel.Threads())
	defer installKernels()
	installKernels()
	for _, th := range []int{1, 2, 4} {
		parallel.SetThreads(th)
		for _, parts := range []int{1, 2, 3, 9} {
			hits := make([]atomic.Int32, parts*100)
			runParts(parts, func(i int) {
				parallel.For(100, 1, func(lo, hi int) {
					for j := lo; j < hi; j++ {
						hits[i*100+j].Add(1)
					}
				})
			})
			for i := range hits {
				if h := hits[i].Load(); h != 1 {
					t.Fatalf("threads %d parts %d: item %d run %d times", th, parts, i, h)
				}
			}
		}
	}
}
