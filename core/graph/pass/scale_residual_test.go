package pass_test

import (
	"math/rand/v2"
	"testing"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// An SE block's x + x·s (s = hardsigmoid of the pooled x, (N, C, 1, 1))
// becomes scale_residual(x, s), bitwise: with either operand order of the
// add and the mul, planes larger than one chunk (100×90 > 8192), and a
// scale of x's own shape (the mul-then-add fallback). A product that
// something else reads stays as it is.
func TestFuseScaleResidual(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	for _, tc := range []struct {
		name         string
		swapMul      bool
		swapAdd      bool
		fullScale    bool
		h, w         int
		productTwice bool
	}{
		{name: "SE planes", h: 100, w: 90},
		{name: "swapped operands", swapMul: true, swapAdd: true, h: 7, w: 5},
		{name: "full-shape scale", fullScale: true, h: 6, w: 4},
		{name: "product read twice", productTwice: true, h: 6, w: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bd, x := newB(2, 3, tc.h, tc.w)
			w := bd.konst("w", tensor.Rand(r, tensor.Float32, -1, 1, 4, 3, 3, 3), true)
			c := bd.node("conv2d", op.Attrs{"pads": []int{1, 1, 1, 1}}, x, w)
			s := bd.node("hardsigmoid", op.Attrs{"alpha": 0.2, "beta": 0.5}, bd.node("global_avg_pool", nil, c))
			if tc.fullScale {
				s = bd.node("sigmoid", nil, c)
			}
			mulIn := []*graph.Value{c, s}
			if tc.swapMul {
				mulIn[0], mulIn[1] = s, c
			}
			m := bd.node("mul", nil, mulIn...)
			addIn := []*graph.Value{c, m}
			if tc.swapAdd {
				addIn[0], addIn[1] = m, c
			}
			y := bd.node("add", nil, addIn...)
			bd.g.Outputs = []*graph.Value{y}
			after := []string{"= scale_residual(%conv2d1, ", "!= mul(", "!= add("}
			if tc.productTwice {
				bd.g.Outputs = append(bd.g.Outputs, m)
				after = []string{"!scale_residual", "= mul(", "= add("}
			}
			check(t, bd.g, "fuse", tensor.Rand(r, tensor.Float32, -1, 1, 2, 3, tc.h, tc.w), 0, []string{"= add("}, after)
		})
	}
}
