package pass_test

import (
	"math/rand/v2"
	"testing"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

func TestConvAffine(t *testing.T) {
	bd, x := newB(1, 2, 5, 5)
	r := rand.New(rand.NewPCG(5, 6))
	w := bd.konst("w", tensor.Rand(r, tensor.Float32, -1, 1, 3, 2, 3, 3), true)
	cb := bd.konst("cb", tensor.Rand(r, tensor.Float32, -1, 1, 3), true)
	conv := bd.node("conv2d", op.Attrs{"pads": []int{1, 1, 1, 1}}, x, w, cb)
	scaled := bd.node("mul", nil, bd.konst("s", tensor.FromSlice([]float32{1.7}, 1), true), conv)
	shifted := bd.node("add", nil, scaled, bd.konst("c", tensor.FromSlice([]float32{-0.3}, 1), true))
	// a second conv without bias whose output is also read elsewhere: not folded
	conv2 := bd.node("conv2d", op.Attrs{"pads": []int{1, 1, 1, 1}}, x, w)
	kept := bd.node("mul", nil, conv2, bd.konst("s2", tensor.FromSlice([]float32{2}, 1), true))
	sum := bd.node("add", nil, bd.node("add", nil, shifted, kept), conv2)
	bd.g.Outputs = []*graph.Value{sum}
	check(t, bd.g, "conv_affine", rnd(1, 2, 5, 5), 1e-5, []string{"mul($s, %conv2d1)"},
		[]string{"!mul($s", "!add(%mul", "conv2d(%x, $w/scaled, $conv2d1/affine_bias)", "param $w/scaled", "mul(%conv2d4, $s2)"})
}
