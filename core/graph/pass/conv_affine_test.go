package pass_test

import (
	"math/rand/v2"
	"testing"

	"paddle/core/graph"
	"paddle/core/graph/pass"
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

// The folded float32 weights are the float64 products rounded once:
// float32(float64(w)·k), bitwise, for float32 and float64 convs alike.
func TestConvAffineWeightRounding(t *testing.T) {
	for _, d := range []tensor.DType{tensor.Float32, tensor.Float64} {
		bd, x := newB(1, 2, 4, 4)
		r := rand.New(rand.NewPCG(7, 8))
		w0 := tensor.Rand(r, tensor.Float32, -1, 1, 3, 2, 3, 3).Cast(d)
		w := bd.konst("w", w0, true)
		cb := bd.konst("cb", tensor.Rand(r, tensor.Float32, -1, 1, 3).Cast(d), true)
		conv := bd.node("conv2d", op.Attrs{"pads": []int{1, 1, 1, 1}}, x, w, cb)
		const k = 1.7
		bd.g.Outputs = []*graph.Value{bd.node("mul", nil, conv, bd.konst("s", tensor.FromSlice([]float64{k}, 1).Cast(d), true))}
		if err := pass.Apply(bd.g, []string{"conv_affine"}); err != nil {
			t.Fatal(err)
		}
		var got *tensor.Tensor
		for _, n := range bd.g.Nodes {
			if n.Op.Name == "conv2d" {
				got = n.In[1].Const
			}
		}
		if got == nil || got.DType() != d {
			t.Fatalf("%v: no folded conv weight (%v)", d, got)
		}
		kk := tensor.FromSlice([]float64{k}, 1).Cast(d).Float64s()[0]
		for i, v := range w0.Float64s() {
			want := v * kk
			if d == tensor.Float32 {
				want = float64(float32(want))
			}
			if g := got.Float64s()[i]; g != want {
				t.Fatalf("%v: w[%d] = %v, want %v", d, i, g, want)
			}
		}
	}
}
