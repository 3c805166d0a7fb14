package cpu

import (
	"math/rand/v2"
	"testing"
)

// TestEvenRuns checks bRows.span with the runs computed once (evenRuns,
// what QGEMMRows passes) against the scan it replaces, for every start
// and count, on offsets with runs of equal spacing, repeated, decreasing
// and equal rows.
func TestEvenRuns(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for range 200 {
		off := make([]int, 1+r.IntN(40))
		for i := 1; i < len(off); i++ {
			switch r.IntN(4) {
			case 0: // a new spacing
				off[i] = off[i-1] + r.IntN(9) - 2
			default: // the same spacing as before
				d := 5
				if i > 1 {
					d = off[i-1] - off[i-2]
				}
				off[i] = off[i-1] + d
			}
		}
		fast, slow := bRows{off: off, run: evenRuns(off)}, bRows{off: off}
		for p := range off {
			for n := 1; p+n <= len(off); n++ {
				fn, fl := fast.span(p, n)
				sn, sl := slow.span(p, n)
				if fn != sn || fl != sl {
					t.Fatalf("offsets %v: span(%d, %d) = %d, %d; the scan gives %d, %d", off, p, n, fn, fl, sn, sl)
				}
			}
		}
	}
}
