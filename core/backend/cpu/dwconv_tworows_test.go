//go:build (amd64 || arm64) && !purego

package cpu

import (
	"math/rand/v2"
	"testing"
)

// TestDepthwiseTwoRows checks the two-row depthwise kernel (dwRow2) at
// every level that has one against two calls of the row kernel it goes
// with, bitwise: every row width to 130 (each block split of 1..6 vectors
// and the masked tail) and three of over 64 vectors, interior rows of kernel heights 2–7 with row
// shifts 1 to 3 and rows cut by the padding at a plane's top (no rows of
// the first alone) and bottom (none of the second alone), each fused
// epilogue kind and none; the columns between and after the two output
// rows stay untouched.
func TestDepthwiseTwoRows(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(11, 12))
		eps := []*Epilogue{nil, {Act: ActRelu}, {Act: ActHardSwish6}, {Act: ActHardSwish6, Affine: true, Scale: 0.37, Shift: -0.21}, {Affine: true, Scale: -1.5, Shift: 0.25}}
		// a0: the first row's first filter row; nf, nb, ns: the input
		// rows of the first alone, of both, of the second alone
		type geom struct{ a0, nf, nb, ns, kw, sh int }
		var gs []geom
		for _, g := range [][3]int{{3, 3, 1}, {5, 5, 1}, {5, 5, 2}, {3, 3, 2}, {2, 1, 1}, {7, 7, 1}, {7, 2, 2}, {4, 5, 3}} {
			kh, kw, sh := g[0], g[1], g[2]
			gs = append(gs, geom{0, sh, kh - sh, sh, kw, sh})
		}
		gs = append(gs,
			geom{2, 0, 3, 1, 5, 1}, geom{1, 0, 4, 1, 5, 1}, geom{1, 0, 2, 1, 3, 1}, // top edge
			geom{0, 1, 4, 0, 5, 1}, geom{0, 1, 3, 0, 5, 1}, geom{0, 1, 1, 0, 3, 1}, // bottom edge
			geom{2, 0, 1, 2, 5, 2}, geom{0, 2, 1, 0, 5, 2}) // stride 2 cut rows
		var widths []int
		for n := 1; n <= 130; n++ {
			widths = append(widths, n)
		}
		widths = append(widths, 519, 520, 777) // rows of over 64 vectors
		ran := false
		for _, e := range eps {
			two := dwRow2(e)
			if two == nil {
				continue
			}
			ran = true
			one := dwRow()
			if e != nil {
				one = dwRowEp(e)
			}
			for gi, g := range gs {
				b0 := g.a0 + g.nf - g.sh // the second row's first filter row
				kh := max(g.a0+g.nf+g.nb, b0+g.nb+g.ns)
				for _, n := range widths {
					if gi > 0 && n%7 != 0 && n > 20 && n <= 130 {
						continue // the block splits are covered by the first
					}
					ld := n + g.kw - 1 + n%3
					src := randSlice(r, (g.nf+g.nb+g.ns)*ld)
					for i := range src {
						src[i] *= 4 // across hardswish's kinks at ±3
					}
					w := randSlice(r, kh*g.kw)
					bias := float32(r.NormFloat64())
					ldd := n + 5
					want := make([]float32, 2*ldd+3)
					for i := range want {
						want[i] = -7
					}
					got := append([]float32(nil), want...)
					one(&want[0], &src[0], ld, n, &w[g.a0*g.kw], g.nf+g.nb, g.kw, bias, 0)
					one(&want[ldd], &src[g.nf*ld], ld, n, &w[b0*g.kw], g.nb+g.ns, g.kw, bias, 0)
					two(&got[0], ldd, &src[0], ld, n, &w[g.a0*g.kw], g.nf, g.nb, g.ns, g.kw, g.sh, bias)
					for i := range want {
						if !sameBits(got[i], want[i]) {
							t.Fatalf("ep %+v, %+v, n %d: dst[%d] = %v, want %v", e, g, n, i, got[i], want[i])
						}
					}
				}
			}
		}
		if !ran && Level() == "avx2" {
			t.Fatal("no two-row kernel at avx2")
		}
	})
}
