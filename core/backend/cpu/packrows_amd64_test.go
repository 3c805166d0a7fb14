//go:build amd64 && !purego

package cpu

import (
	"math/rand/v2"
	"testing"
)

// copyRowsAVX2 packs exactly the rows the Go loop would (zeros past cols,
// stale values overwritten) for every width up to 16, every cols ≤ w and
// row counts around its whole-vector and last-row paths, reading and
// writing nothing outside the slices (the slices end where the data ends).
func TestCopyRowsAVX2(t *testing.T) {
	if levels[0].isa < isaAVX2 {
		t.Skip("no AVX2 + FMA on this CPU")
	}
	r := rand.New(rand.NewPCG(51, 52))
	for w := 1; w <= 16; w++ {
		for cols := 0; cols <= w; cols++ {
			for _, k := range []int{1, 2, 3, 7} {
				ld := cols + r.IntN(5)
				src := make([]float32, max((k-1)*ld+cols, 0))
				for i := range src {
					src[i] = float32(r.IntN(1000) + 1)
				}
				dst := make([]float32, k*w+1)
				for i := range dst {
					dst[i] = -1
				}
				copyRowsAVX2(src, ld, k, cols, w, dst[:k*w])
				for p := range k {
					for j := range w {
						want := float32(0)
						if j < cols {
							want = src[p*ld+j]
						}
						if got := dst[p*w+j]; got != want {
							t.Fatalf("w=%d cols=%d k=%d ld=%d: dst[%d][%d] = %v, want %v", w, cols, k, ld, p, j, got, want)
						}
					}
				}
				if dst[k*w] != -1 {
					t.Fatalf("w=%d cols=%d k=%d: wrote past k*w", w, cols, k)
				}
			}
		}
	}
}
