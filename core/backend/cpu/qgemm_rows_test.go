package cpu

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"paddle/core/parallel"
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

// TestQGEMMGroups checks QGEMMGroups (B's rows interleaved in fours, in
// place) at every level against the integer reference on B gathered into
// rows, exactly: groups overlapping (offsets 4 bytes apart, as a conv's
// neighbouring taps), repeated and in any order; b ending right after the
// last group's n columns (the panels that would read past it are copied
// out) and with slack (every panel read in place); n below, at and past
// the 32-column tile; m below, at and past the 12-row tile; k past a k
// block; A packed or not; both signednesses; random and extreme operands;
// one thread and several.
func TestQGEMMGroups(t *testing.T) {
	saved := parallel.Threads()
	defer parallel.SetThreads(saved)
	forQLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(43, 44))
		for _, s := range [][3]int{{1, 1, 4}, {5, 33, 12}, {12, 32, 8}, {13, 70, 36}, {24, 100, 96}, {7, 31, qkc + 44}, {30, 200, 2*qkc + 8},
			{16, 64, 36}, {20, 69, qkc + 8}, {4, 32, 8}, {8, 64, 12}, {28, 96, 40}} { // short last row panels
			m, n, k := s[0], s[1], s[2]
			for _, aSigned := range []bool{false, true} {
				for _, slack := range []int{0, 128} {
					fill := []string{"random", "extreme"}[r.IntN(2)]
					lda, ldc := k+r.IntN(3), n+r.IntN(3)
					a := make([]byte, m*lda)
					groups := k / 4
					b := make([]byte, 4*n*(1+groups/3)+4*r.IntN(9)+slack)
					fillRand(r, a, b)
					if fill == "extreme" { // unsigned 255, signed -128
						a, b = fillBytes(a, pick(aSigned, 0x80, 255)), fillBytes(b, pick(aSigned, 255, 0x80))
					}
					top := len(b) - slack - 4*n // the last offset whose n columns fit
					off := make([]int, groups)
					for g := range off {
						switch r.IntN(4) {
						case 0: // a neighbouring tap: one column on
							if g > 0 && off[g-1]+4 <= top {
								off[g] = off[g-1] + 4
								continue
							}
						case 1: // the last place, right at b's end
							off[g] = top
							continue
						}
						off[g] = r.IntN(top + 1)
					}
					dense := make([]byte, k*n)
					for p := range k {
						for j := range n {
							dense[p*n+j] = b[off[p/4]+4*j+p%4]
						}
					}
					want := qgemmNaive(m, n, k, a, lda, aSigned, dense, n)
					for _, pack := range []bool{false, true} {
						var pa *QPackedA
						if pack {
							pa = QPackA(m, k, a, lda, aSigned)
						}
						for _, th := range []int{1, 3} {
							parallel.SetThreads(th)
							c := staleC(m, ldc)
							QGEMMGroups(m, n, k, a, lda, aSigned, pa, b, off, c, ldc)
							checkQTile(t, fmt.Sprintf("%s %v aSigned=%v %s slack %d packed=%v threads %d", QKernel(), s, aSigned, fill, slack, pack, th), c, want, m, n, ldc)
						}
					}
				}
			}
		}
	})
}

// TestInterleave4 checks the vector 4-row byte interleave
// (Kernels.Interleave4Bytes8) at every level that has it against the
// definition dst[4j+t] = src[t·ld+j], on every n up to 100 (the prefix it
// takes is a multiple of 32), and that it writes nothing past the prefix.
func TestInterleave4(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		ilv := interleave4Kernel()
		if ilv == nil {
			t.Skip("no vector interleave at this level")
		}
		r := rand.New(rand.NewPCG(45, 46))
		for n := range 101 {
			ld := n + r.IntN(5)
			src := make([]byte, 3*ld+n)
			for i := range src {
				src[i] = byte(r.Uint32())
			}
			dst := fillBytes(make([]byte, 4*n+8), 0xa5)
			got := ilv(dst, src, ld, n)
			if got != n&^31 {
				t.Fatalf("n %d: took %d columns, want %d", n, got, n&^31)
			}
			for i, v := range dst {
				want := byte(0xa5)
				if j := i / 4; j < got {
					want = src[i%4*ld+j]
				}
				if v != want {
					t.Fatalf("n %d ld %d: dst[%d] = %#x, want %#x", n, ld, i, v, want)
				}
			}
		}
	})
}
