package pass_test

import (
	"math/rand/v2"
	"testing"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// A DB head's conv_transpose2d → add (per-channel constant) → batch_norm
// becomes one conv_transpose2d with the folded weight and bias; so does a
// grouped conv_transpose2d → batch_norm (the channel of each weight element
// is its group's block of the second axis).
func TestConvBNTranspose(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	bnOf := func(bd *b, in *graph.Value, oc int) *graph.Value {
		return bd.node("batch_norm", op.Attrs{"epsilon": 1e-5}, in,
			bd.konst("s", tensor.Rand(r, tensor.Float32, 0.5, 2, oc), true), bd.konst("b", tensor.Rand(r, tensor.Float32, -1, 1, oc), true),
			bd.konst("m", tensor.Rand(r, tensor.Float32, -1, 1, oc), false), bd.konst("v", tensor.Rand(r, tensor.Float32, 0.1, 2, oc), false))
	}
	bd, x := newB(1, 4, 5, 5)
	w := bd.konst("w", tensor.Rand(r, tensor.Float32, -1, 1, 4, 3, 2, 2), true)
	ct := bd.node("conv_transpose2d", op.Attrs{"strides": []int{2, 2}}, x, w)
	added := bd.node("add", nil, ct, bd.konst("c", tensor.Rand(r, tensor.Float32, -1, 1, 1, 3, 1, 1), true))
	bd.g.Outputs = []*graph.Value{bd.node("relu", nil, bnOf(bd, added, 3))}
	check(t, bd.g, "conv_bn", rnd(1, 4, 5, 5), 1e-5, []string{"batch_norm(%add2", "add(%conv_transpose2d1, $c)"},
		[]string{"!batch_norm", "!add(", "= conv_transpose2d(%x, $w/bn, $conv_transpose2d1/bn_bias)"})

	bd, x = newB(2, 4, 3, 4)
	w = bd.konst("w", tensor.Rand(r, tensor.Float32, -1, 1, 4, 3, 3, 3), true)
	cb := bd.konst("cb", tensor.Rand(r, tensor.Float32, -1, 1, 6), true)
	ct = bd.node("conv_transpose2d", op.Attrs{"groups": 2, "pads": []int{1, 1, 1, 1}}, x, w, cb)
	bd.g.Outputs = []*graph.Value{bnOf(bd, ct, 6)}
	check(t, bd.g, "conv_bn", rnd(2, 4, 3, 4), 1e-5, []string{"batch_norm(%conv_transpose2d1"},
		[]string{"!batch_norm", "= conv_transpose2d(%x, $w/bn, $conv_transpose2d1/bn_bias)"})
}

// conv_transpose2d + a (1, OC, 1, 1) constant takes it as its bias, bitwise
// (and the sigmoid after it as its activation).
func TestFuseConvTransposeBias(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	bd, x := newB(1, 3, 4, 4)
	w := bd.konst("w", tensor.Rand(r, tensor.Float32, -1, 1, 3, 1, 2, 2), true)
	ct := bd.node("conv_transpose2d", op.Attrs{"strides": []int{2, 2}}, x, w)
	bd.g.Outputs = []*graph.Value{bd.node("sigmoid", nil, bd.node("add", nil, ct, bd.konst("c", tensor.FromSlice([]float32{0.3}, 1, 1, 1, 1), true)))}
	check(t, bd.g, "fuse", rnd(1, 3, 4, 4), 0, []string{"add(%conv_transpose2d1, $c)"},
		[]string{"!add(", "= conv_transpose2d_act(%x, $w, $c/bias) {act=sigmoid"})
}

// conv_transpose2d (+ bias) → relu becomes conv_transpose2d_act, bitwise:
// relu in the store of non-overlapping windows (2×2 stride 2, the DB head's)
// and, for overlapping ones (3×3 stride 2) or another activation, run after
// the convolution.
func TestFuseConvTransposeAct(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, tc := range []struct {
		act   string
		k     int
		attrs op.Attrs
	}{
		{"relu", 2, op.Attrs{"strides": []int{2, 2}}},
		{"relu", 3, op.Attrs{"strides": []int{2, 2}, "pads": []int{1, 1, 1, 1}}},
		{"sigmoid", 2, op.Attrs{"strides": []int{2, 2}}},
	} {
		bd, x := newB(2, 3, 5, 6)
		w := bd.konst("w", tensor.Rand(r, tensor.Float32, -1, 1, 3, 4, tc.k, tc.k), true)
		cb := bd.konst("cb", tensor.Rand(r, tensor.Float32, -1, 1, 4), true)
		ct := bd.node("conv_transpose2d", tc.attrs, x, w, cb)
		bd.g.Outputs = []*graph.Value{bd.node(tc.act, nil, ct)}
		check(t, bd.g, "fuse", rnd(2, 3, 5, 6), 0, []string{tc.act + "(%conv_transpose2d1)"},
			[]string{"!" + tc.act + "(", "= conv_transpose2d_act(%x, $w, $cb) {act=" + tc.act})
	}
}
