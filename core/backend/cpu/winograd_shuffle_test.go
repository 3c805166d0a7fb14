package cpu

import (
	"math/rand/v2"
	"testing"
)

// wgRowPlanes and wgPlanesRow against their definitions: rows of awkward
// lengths, offsets before, inside and past the row, and tile counts
// around multiples of 16 (sentinels check that nothing past dst changes).
func TestWinogradShuffles(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		if !wgVector || curISA() == isaGeneric {
			t.Skip("no vector shuffles at this level")
		}
		r := rand.New(rand.NewPCG(41, 42))
		for _, w := range []int{1, 3, 7, 17, 33, 56, 65, 129, 200, 262} {
			row := make([]float32, w)
			for i := range row {
				row[i] = r.Float32()
			}
			for _, lds := range []int{16, 32, 48, 64} {
				for _, iw0 := range []int{-70, -3, -1, 0, 2, 63, w - 5, w + 1} {
					planes := make([]float32, 4*lds)
					for i := range planes {
						planes[i] = -9
					}
					wgRowPlanes(planes, lds, make([]float32, 4*lds), row, iw0)
					for m := range 4 {
						for k := range lds {
							want := float32(0)
							if iw := iw0 + 4*k + m; iw >= 0 && iw < w {
								want = row[iw]
							}
							if got := planes[m*lds+k]; got != want {
								t.Fatalf("w=%d lds=%d iw0=%d: plane %d [%d] = %v, want %v", w, lds, iw0, m, k, got, want)
							}
						}
					}
				}
			}
		}
		var tmp [64]float32
		for _, n := range []int{0, 1, 5, 14, 15, 16, 17, 31, 32, 33, 47} {
			ld := wgUp16(n) + 3
			planes := make([]float32, 4*ld)
			for i := range planes {
				planes[i] = r.Float32()
			}
			dst := make([]float32, 4*n+9)
			for i := range dst {
				dst[i] = -9
			}
			wgPlanesRow(dst, planes, ld, n, &tmp)
			for i, got := range dst {
				want := float32(-9)
				if i < 4*n {
					want = planes[(i%4)*ld+i/4]
				}
				if got != want {
					t.Fatalf("n=%d: dst[%d] = %v, want %v", n, i, got, want)
				}
			}
		}
	})
}
