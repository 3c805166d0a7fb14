package op_test

import (
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// Concat and Split of tensors large enough to be copied in parallel ranges
// (segments cut at range boundaries) equal element-by-element gathers, at
// 1, 2 and 3 threads; Split undoes Concat.
func TestConcatSplitLarge(t *testing.T) {
	defer parallel.SetThreads(parallel.Threads())
	r := rand.New(rand.NewPCG(17, 18))
	sizes := []int{2, 5, 1}
	var parts []*tensor.Tensor
	for _, c := range sizes {
		parts = append(parts, tensor.Rand(r, tensor.Float32, -1, 1, 3, c, 97, 101))
	}
	for _, th := range []int{1, 2, 3} {
		parallel.SetThreads(th)
		got := op.Concat(1, parts...)
		g := got.F32()
		hw := 97 * 101
		for n := range 3 {
			ch := 0
			for i, p := range parts {
				pv := p.F32()
				for c := range sizes[i] {
					for j := range hw {
						if g[(n*8+ch+c)*hw+j] != pv[(n*sizes[i]+c)*hw+j] {
							t.Fatalf("%d threads: concat[%d, %d, %d] differs", th, n, ch+c, j)
						}
					}
				}
				ch += sizes[i]
			}
		}
		back := op.Split(got, 1, sizes...)
		for i, p := range parts {
			if !tensor.AllClose(back[i], p, 0, 0) {
				t.Fatalf("%d threads: split part %d differs from the concatenated input", th, i)
			}
		}
	}
}
