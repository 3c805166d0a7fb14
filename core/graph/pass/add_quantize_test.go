package pass_test

import (
	"math/rand/v2"
	"testing"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// quantize_linear(a + b) with one scale becomes add_quantize(a, b),
// bitwise: uint8 and int8, planes past one chunk, and a broadcast addend
// (the add-then-quantize fallback). Per-channel scales and a sum read
// twice stay as they are. The fused graph exports (Add + QuantizeLinear)
// and reads back with the same output.
func TestFuseAddQuantize(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, tc := range []struct {
		name      string
		dtype     tensor.DType
		broadcast bool
		perChan   bool
		sumTwice  bool
		h, w      int
	}{
		{name: "uint8", dtype: tensor.Uint8, h: 100, w: 90},
		{name: "int8", dtype: tensor.Int8, h: 7, w: 5},
		{name: "broadcast addend", dtype: tensor.Uint8, broadcast: true, h: 6, w: 4},
		{name: "per-channel scales", dtype: tensor.Uint8, perChan: true, h: 6, w: 4},
		{name: "sum read twice", dtype: tensor.Uint8, sumTwice: true, h: 6, w: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bd, x := newB(2, 3, tc.h, tc.w)
			a := bd.node("relu", nil, x)
			b := bd.node("sigmoid", nil, x)
			if tc.broadcast {
				b = bd.konst("c", tensor.Rand(r, tensor.Float32, -1, 1, 1, 3, 1, 1), true)
			}
			sum := bd.node("add", nil, a, b)
			zero := 128
			if tc.dtype == tensor.Int8 {
				zero = -3
			}
			qa := op.QDQAttrs([]float64{0.009}, []int{zero}, 1, tc.dtype)
			if tc.perChan {
				qa = op.QDQAttrs([]float64{0.009, 0.01, 0.02}, []int{zero, 120, 130}, 1, tc.dtype)
			}
			q := bd.node("quantize_linear", qa, sum)
			q.Meta.DType = tc.dtype
			bd.g.Outputs = []*graph.Value{bd.node("dequantize_linear", qa, q)}
			after := []string{"= add_quantize(", "!= add(", "!= quantize_linear("}
			if tc.perChan || tc.sumTwice {
				after = []string{"!add_quantize", "= add(", "= quantize_linear("}
			}
			if tc.sumTwice {
				bd.g.Outputs = append(bd.g.Outputs, sum)
			}
			in := tensor.Rand(r, tensor.Float32, -3, 3, 2, 3, tc.h, tc.w)
			check(t, bd.g, "fuse", in, 0, []string{"= quantize_linear("}, after)
			// exported as Add + QuantizeLinear, read back: the same output
			g2 := exportedBack(t, bd.g)
			if d, _ := tensor.MaxDiff(run(t, g2, in), run(t, bd.g, in), 0, 0); d != 0 {
				t.Errorf("the exported model's output differs by %g", d)
			}
		})
	}
}
