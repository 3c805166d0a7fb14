package op

import (
	"math"
	"math/rand/v2"
	"testing"
)

// avgPoolOne is average pooling worked out output by output, its window
// clipped as avgPool documents (the reference avgPool's precomputed
// windows must equal bitwise).
func avgPoolOne(x, y []float32, planes int, g geom2, countPad, back bool) {
	hw, ohw := g.H*g.W, g.OH*g.OW
	for p := range planes {
		xp, yp := x[p*hw:(p+1)*hw], y[p*ohw:(p+1)*ohw]
		if back {
			clear(xp)
		}
		for oh := range g.OH {
			for ow := range g.OW {
				h0, w0 := oh*g.SH-g.PT, ow*g.SW-g.PL
				h1, w1 := min(h0+g.KH, g.H+g.PB), min(w0+g.KW, g.W+g.PR)
				div := float32((h1 - h0) * (w1 - w0))
				h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, g.H), min(w1, g.W)
				if !countPad {
					div = float32((h1 - h0) * (w1 - w0))
				}
				if div <= 0 || h0 >= h1 || w0 >= w1 {
					continue
				}
				var s float32
				for ih := h0; ih < h1; ih++ {
					for iw := w0; iw < w1; iw++ {
						if back {
							xp[ih*g.W+iw] += yp[oh*g.OW+ow] / div
						} else {
							s += xp[ih*g.W+iw]
						}
					}
				}
				if !back {
					yp[oh*g.OW+ow] = s / div
				}
			}
		}
	}
}

// avgPool (forward and backward, with and without the padding counted)
// is bitwise the output-by-output reference on windows that overlap, skip
// inputs, hang over the padding and lie wholly in it (those outputs are
// left as they were), among them rec's 3×2 windows of stride (3, 2).
func TestAvgPoolWindowsBitwise(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, c := range [][8]int{ // H, W, KH, KW, SH, SW, pad top/left, pad bottom/right
		{3, 80, 3, 2, 3, 2, 0, 0}, {7, 9, 3, 3, 2, 2, 1, 1}, {5, 5, 2, 2, 1, 1, 0, 1},
		{6, 11, 4, 3, 3, 2, 2, 2}, {2, 2, 3, 3, 1, 1, 2, 2}, {9, 4, 5, 1, 1, 3, 2, 0},
	} {
		g := geom2{H: c[0], W: c[1], KH: c[2], KW: c[3], SH: c[4], SW: c[5], DH: 1, DW: 1, PT: c[6], PL: c[6], PB: c[7], PR: c[7]}
		g.OH, g.OW = (g.H+g.PT+g.PB-g.KH)/g.SH+1, (g.W+g.PL+g.PR-g.KW)/g.SW+1
		const planes = 3
		for _, countPad := range []bool{false, true} {
			for _, back := range []bool{false, true} {
				x := make([]float32, planes*g.H*g.W)
				y := make([]float32, planes*g.OH*g.OW)
				src := x
				if back {
					src = y
				}
				for i := range src {
					src[i] = float32(r.NormFloat64())
				}
				x2, y2 := append([]float32(nil), x...), append([]float32(nil), y...)
				avgPool(x, y, planes, g, countPad, back)
				avgPoolOne(x2, y2, planes, g, countPad, back)
				got, want := y, y2
				if back {
					got, want = x, x2
				}
				for i := range want {
					if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
						t.Fatalf("%v countPad=%v back=%v: [%d] = %v, want %v", c, countPad, back, i, got[i], want[i])
					}
				}
			}
		}
	}
}
