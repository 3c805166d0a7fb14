package op

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/tensor"
)

// TestConvTransposePairTiles checks that the tiled pair runs where both
// convs are non-overlapping (so the pass tests' bitwise comparisons cover
// it, not the two-op fallback), bitwise the two ops, and that it declines
// overlapping windows, pads and groups.
func TestConvTransposePairTiles(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	relu := Attrs{"strides": []int{2, 2}, "act": "relu"}
	for _, tc := range []struct {
		name          string
		n, c0, h, w   int
		c1, c2        int
		first, second Attrs
		k2            int
		takes         bool
	}{
		{"DB head", 1, 24, 30, 31, 24, 1, relu, Attrs{"strides": []int{2, 2}, "act": "sigmoid"}, 2, true},
		{"batch, hardswish", 3, 3, 5, 4, 5, 2, Attrs{"strides": []int{2, 2}, "act": "hardswish"}, Attrs{"strides": []int{2, 2}}, 2, true},
		{"overlapping second", 1, 3, 5, 4, 5, 2, relu, Attrs{"strides": []int{1, 1}}, 2, false},
		{"padded second", 1, 3, 5, 4, 5, 2, relu, Attrs{"strides": []int{2, 2}, "pads": []int{1, 1, 1, 1}}, 2, false},
		{"groups", 1, 4, 5, 4, 4, 2, Attrs{"strides": []int{2, 2}, "groups": 2}, relu, 2, false},
	} {
		x := tensor.Rand(r, tensor.Float32, -2, 2, tc.n, tc.c0, tc.h, tc.w)
		w1 := tensor.Rand(r, tensor.Float32, -1, 1, tc.c0, tc.c1/tc.first.Int("groups", 1), 2, 2)
		b1 := tensor.Rand(r, tensor.Float32, -1, 1, tc.c1)
		w2 := tensor.Rand(r, tensor.Float32, -1, 1, tc.c1, tc.c2, tc.k2, tc.k2)
		b2 := tensor.Rand(r, tensor.Float32, -1, 1, tc.c2)
		in := []*T{x, w1, b1, w2, b2}
		mid := call1(pairDef(tc.first), tc.first, x, w1, b1)
		want := call1(pairDef(tc.second), tc.second, mid, w2, b2)
		got := tensor.New(tensor.Float32, want.Shape()...)
		if took := convTransposePairTiles(got, in, tc.first, tc.second); took != tc.takes {
			t.Fatalf("%s: tiles ran = %v, want %v", tc.name, took, tc.takes)
		}
		if !tc.takes {
			continue
		}
		for i, v := range got.F32() {
			if math.Float32bits(v) != math.Float32bits(want.F32()[i]) {
				t.Fatalf("%s: element %d is %v, the two ops give %v", tc.name, i, v, want.F32()[i])
			}
		}
		viaOp := call1(convTransposePairDef, Attrs{"first": tc.first, "second": tc.second}, in...)
		if d, _ := tensor.MaxDiff(viaOp, want, 0, 0); d != 0 {
			t.Errorf("%s: the op differs from the two ops by %g", tc.name, d)
		}
	}
}
