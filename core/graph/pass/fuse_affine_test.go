package pass_test

import (
	"math/rand/v2"
	"testing"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// conv2d → hardswish → ·s → +c becomes one conv2d_act with scale and shift,
// bitwise equal; a second scale after the shift is left alone.
func TestFuseActAffine(t *testing.T) {
	bd, x := newB(1, 2, 5, 5)
	r := rand.New(rand.NewPCG(23, 24))
	w := bd.konst("w", tensor.Rand(r, tensor.Float32, -1, 1, 3, 2, 3, 3), true)
	cb := bd.konst("cb", tensor.Rand(r, tensor.Float32, -1, 1, 3), true)
	conv := bd.node("conv2d", op.Attrs{"pads": []int{1, 1, 1, 1}}, x, w, cb)
	hs := bd.node("hardswish", nil, conv)
	scaled := bd.node("mul", nil, bd.konst("s", tensor.FromSlice([]float32{0.37}, 1), true), hs)
	shifted := bd.node("add", nil, scaled, bd.konst("c", tensor.Scalar[float32](-0.21), true))
	again := bd.node("mul", nil, shifted, bd.konst("s2", tensor.Scalar[float32](3), true))
	bd.g.Outputs = []*graph.Value{again}
	check(t, bd.g, "fuse", rnd(1, 2, 5, 5), 0, []string{"hardswish(%conv2d1)"},
		[]string{"= conv2d_act(%x, $w, $cb) {act=hardswish act_attrs=map[] pads=[1 1 1 1] scale=0.3700000047683716 shift=-0.20999999344348907}",
			"!hardswish(", "!add(", "mul(%conv2d1, $s2)"})
}
