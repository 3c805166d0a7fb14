package op

import (
	"math/rand/v2"
	"slices"
	"testing"

	"paddle/core/tensor"
)

// gatherCoords' row copies equal the element-wise index map's gather on
// random movements: ranks 1-4, runs at any offset in the last axis, outer
// coordinates repeated, reversed or < 0 (pad), every element type kind.
func TestGatherCoordsRunsMatchIndexMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for it := range 300 {
		rank := 1 + r.IntN(4)
		in, out := make(tensor.Shape, rank), make(tensor.Shape, rank)
		coord := make([][]int, rank)
		for ax := range rank {
			in[ax] = 1 + r.IntN(6)
			out[ax] = 1 + r.IntN(6)
			coord[ax] = make([]int, out[ax])
			for o := range coord[ax] {
				coord[ax][o] = r.IntN(in[ax]+1) - 1 // -1: no source
			}
		}
		// the last axis: a unit run inside the input, except in one case of four
		if it%4 != 0 {
			out[rank-1] = 1 + r.IntN(in[rank-1])
			c0 := r.IntN(in[rank-1] - out[rank-1] + 1)
			coord[rank-1] = make([]int, out[rank-1])
			for j := range coord[rank-1] {
				coord[rank-1][j] = c0 + j
			}
			if !unitRun(coord[rank-1]) {
				t.Fatalf("case %d: %v is a unit run", it, coord[rank-1])
			}
		}
		for _, d := range []tensor.DType{tensor.Float32, tensor.Uint8, tensor.Int64} {
			x := tensor.Rand(r, tensor.Float32, -100, 100, in...).Cast(d)
			want, got := tensor.New(d, out...), tensor.New(d, out...)
			want.Fill(7)
			got.Fill(7)
			gatherRows(want, x, coordIndex(out, in, coord), 1)
			gatherCoords(got, x, coord)
			if w, g := want.Float64s(), got.Float64s(); !slices.Equal(w, g) {
				t.Fatalf("case %d %v: in %v coord %v: got %v, want %v", it, d, in, coord, g, w)
			}
		}
	}
}
