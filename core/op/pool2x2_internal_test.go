package op

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The 2×2 stride-2 fast path equals the general loop, forward and
// backward, bit for bit: odd sizes (the last row/column unused), ties
// (values from a few levels) and NaNs (the last NaN of a window wins).
func TestMaxPool2x2MatchesGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, hw := range [][2]int{{4, 4}, {5, 7}, {8, 6}, {2, 2}, {3, 3}} {
		h, w := hw[0], hw[1]
		g := geom2{H: h, W: w, KH: 2, KW: 2, SH: 2, SW: 2, DH: 1, DW: 1, OH: h / 2, OW: w / 2}
		planes := 3
		x := make([]float32, planes*h*w)
		for i := range x {
			x[i] = float32(r.IntN(3))
			if r.IntN(10) == 0 {
				x[i] = float32(math.NaN())
			}
		}
		y1 := make([]float32, planes*g.OH*g.OW)
		y2 := slices.Clone(y1)
		maxPool2x2(x, y1, nil, planes, g)
		maxPoolAny(x, y2, nil, planes, g)
		gy := make([]float32, len(y1))
		for i := range gy {
			gy[i] = r.Float32()
		}
		d1, d2 := make([]float32, len(x)), make([]float32, len(x))
		maxPool2x2(x, slices.Clone(gy), d1, planes, g)
		maxPoolAny(x, slices.Clone(gy), d2, planes, g)
		for i := range y1 {
			if math.Float32bits(y1[i]) != math.Float32bits(y2[i]) {
				t.Fatalf("%dx%d forward %d: %v, general %v", h, w, i, y1[i], y2[i])
			}
		}
		for i := range d1 {
			if d1[i] != d2[i] {
				t.Fatalf("%dx%d backward %d: %v, general %v", h, w, i, d1[i], d2[i])
			}
		}
	}
}
