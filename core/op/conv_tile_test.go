package op

import (
	"math/rand/v2"
	"testing"

	"paddle/core/tensor"
)

// Tiling the im2col matrix by output rows must not change any result:
// compare one-tile runs with one-row tiles for conv2d's forward, input
// gradient (tiles overlap in dx) and filter gradient.
func TestConvTilesMatchWholeImage(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	x := tensor.Rand(r, tensor.Float64, -1, 1, 2, 4, 9, 7)
	w := tensor.Rand(r, tensor.Float64, -1, 1, 6, 2, 3, 3)
	b := tensor.Rand(r, tensor.Float64, -1, 1, 6)
	a := Attrs{"strides": []int{2, 1}, "pads": []int{1, 1, 2, 1}, "dilations": []int{2, 1}, "groups": 2}
	run := func() []*T {
		y := Call(conv2dDef, a, x, w, b)[0]
		dy := tensor.Rand(rand.New(rand.NewPCG(1, 1)), tensor.Float64, -1, 1, y.Shape()...)
		g := conv2dDef.VJP(&VJPCtx{In: []*T{x, w, b}, Out: []*T{y}, GradOut: []*T{dy}, Attrs: a})
		return append([]*T{y}, g...)
	}
	whole := run()
	defer func(old int) { colBudget = old }(colBudget)
	colBudget = 1
	tiled := run()
	for i := range whole {
		if d, ok := tensor.MaxDiff(tiled[i], whole[i], 1e-12, 1e-12); !ok {
			t.Errorf("result %d differs by %g with one-row tiles", i, d)
		}
	}
}
