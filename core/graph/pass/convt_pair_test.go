package pass_test

import (
	"math/rand/v2"
	"testing"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// Two non-overlapping transposed convs in a row (a DB head: 2×2 stride 2,
// relu, then 2×2 stride 2 to one channel, sigmoid) become
// conv_transpose2d_pair, bitwise: maps of several row tiles, other kernels
// (3×2), more output channels, no activation on either; overlapping
// windows and a middle map read twice stay as they are. The fused graph
// exports (two ConvTranspose and their activations) and reads back with
// the same output.
func TestFuseConvTransposePair(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	for _, tc := range []struct {
		name        string
		c0, c1, c2  int
		k1, k2      [2]int
		act1, act2  string
		overlap     bool // the second conv's stride is 1
		middleTwice bool
		n, h, w     int
		fused       bool
	}{
		{name: "DB head", c0: 24, c1: 24, c2: 1, k1: [2]int{2, 2}, k2: [2]int{2, 2}, act1: "relu", act2: "sigmoid", n: 1, h: 40, w: 60, fused: true},
		{name: "batch and odd sizes", c0: 5, c1: 6, c2: 3, k1: [2]int{3, 2}, k2: [2]int{2, 3}, act1: "relu", act2: "relu", n: 2, h: 7, w: 9, fused: true},
		{name: "no activations", c0: 4, c1: 3, c2: 2, k1: [2]int{2, 2}, k2: [2]int{2, 2}, n: 1, h: 5, w: 33, fused: true},
		{name: "sigmoid first", c0: 4, c1: 3, c2: 1, k1: [2]int{2, 2}, k2: [2]int{2, 2}, act1: "sigmoid", act2: "relu", n: 1, h: 6, w: 8, fused: true},
		{name: "overlapping windows", c0: 4, c1: 3, c2: 1, k1: [2]int{2, 2}, k2: [2]int{2, 2}, act1: "relu", overlap: true, n: 1, h: 6, w: 8},
		{name: "middle read twice", c0: 4, c1: 3, c2: 1, k1: [2]int{2, 2}, k2: [2]int{2, 2}, act1: "relu", middleTwice: true, n: 1, h: 6, w: 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bd, x := newB(tc.n, tc.c0, tc.h, tc.w)
			conv := func(in *graph.Value, name string, c, oc int, k [2]int, stride [2]int, act string) *graph.Value {
				w := bd.konst(name+"_w", tensor.Rand(r, tensor.Float32, -1, 1, c, oc, k[0], k[1]), true)
				b := bd.konst(name+"_b", tensor.Rand(r, tensor.Float32, -1, 1, oc), true)
				y := bd.node("conv_transpose2d", op.Attrs{"strides": []int{stride[0], stride[1]}}, in, w, b)
				if act != "" {
					y = bd.node(act, nil, y)
				}
				return y
			}
			mid := conv(x, "first", tc.c0, tc.c1, tc.k1, tc.k1, tc.act1)
			s2 := tc.k2
			if tc.overlap {
				s2 = [2]int{1, 1}
			}
			y := conv(mid, "second", tc.c1, tc.c2, tc.k2, s2, tc.act2)
			bd.g.Outputs = []*graph.Value{y}
			if tc.middleTwice {
				bd.g.Outputs = append(bd.g.Outputs, mid)
			}
			after := []string{"= conv_transpose2d_pair(", "first=", "second="}
			if !tc.fused {
				after = []string{"!conv_transpose2d_pair"}
			}
			in := tensor.Rand(r, tensor.Float32, -2, 2, tc.n, tc.c0, tc.h, tc.w)
			want := run(t, bd.g, in)
			check(t, bd.g, "fuse", in, 0, []string{"= conv_transpose2d("}, after)
			if got := run(t, bd.g, in); !bitsEqual(got, want) {
				t.Errorf("the fused output is not bitwise the unfused one")
			}
			if !bitsEqual(run(t, exportedBack(t, bd.g), in), want) {
				t.Errorf("the exported model's output differs")
			}
		})
	}
}
