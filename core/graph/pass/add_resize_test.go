package pass_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// a + resize(b) (nearest) becomes add_resize(a, b), and under a
// quantize_linear add_quantize(a, b) with the resize's attributes,
// bitwise: the resized addend first or second, 2× scales (the widened
// rows' fast path) and sizes that are no multiple (the column table's
// gather), uint8 and int8, an addend that broadcasts (the resize-then-add
// fallback); the other addend an SE block's x + x·s, absorbed as attribute
// scaled (either order, quantized or not; an s that broadcasts over the
// batch runs the fallback). A linear resize and a resized map read twice
// stay as they are. The fused graph exports (Resize + Add [+
// QuantizeLinear], Mul + Add for the scaled addend) and reads back with
// the same output.
func TestFuseAddResize(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	for _, tc := range []struct {
		name        string
		first       bool         // resize(b) is the add's first operand
		sizes       bool         // sizes [2h+1, 3w-1] instead of scales [2, 2]
		quant       tensor.DType // 0: no quantize_linear after the add
		broadcast   bool
		linear      bool
		resizeTwice bool
		scaled      int // the other addend is x + x·s: 1 s per image and channel, 2 s per channel
		h, w        int
	}{
		{name: "2x", h: 30, w: 45},
		{name: "2x resized first", first: true, h: 7, w: 5},
		{name: "sizes", sizes: true, h: 9, w: 11},
		{name: "uint8 2x", quant: tensor.Uint8, h: 30, w: 45},
		{name: "int8 sizes first", quant: tensor.Int8, sizes: true, first: true, h: 6, w: 7},
		{name: "broadcast addend", broadcast: true, h: 6, w: 4},
		{name: "broadcast addend uint8", broadcast: true, quant: tensor.Uint8, h: 6, w: 4},
		{name: "scaled", scaled: 1, h: 30, w: 45},
		{name: "scaled resized first", scaled: 1, first: true, h: 7, w: 5},
		{name: "scaled uint8", scaled: 1, quant: tensor.Uint8, h: 30, w: 45},
		{name: "scaled int8 sizes first", scaled: 1, quant: tensor.Int8, sizes: true, first: true, h: 6, w: 7},
		{name: "scaled per channel", scaled: 2, quant: tensor.Uint8, h: 6, w: 4},
		{name: "linear", linear: true, h: 6, w: 4},
		{name: "resized map read twice", resizeTwice: true, h: 6, w: 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bd, x := newB(2, 3, tc.h, tc.w)
			ra := op.Attrs{"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor", "scales": []float64{2, 2}}
			la := op.Attrs{"mode": "linear", "scales": []float64{2, 2}}
			if tc.sizes {
				delete(ra, "scales")
				delete(la, "scales")
				ra["sizes"] = []int{2*tc.h + 1, 3*tc.w - 1}
				la["sizes"] = []int{2*tc.h + 1, 3*tc.w - 1}
			}
			if tc.linear {
				ra["mode"] = "linear"
			}
			a := bd.node("resize", la, bd.node("relu", nil, x)) // linear: not fused
			if tc.broadcast {
				a = bd.konst("c", tensor.Rand(r, tensor.Float32, -1, 1, 1, 3, 1, 1), true)
			}
			if tc.scaled > 0 {
				s := bd.node("hardsigmoid", nil, bd.node("global_avg_pool", nil, a))
				if tc.scaled == 2 {
					s = bd.konst("s", tensor.Rand(r, tensor.Float32, 0, 1, 1, 3, 1, 1), true)
				}
				a = bd.node("add", nil, a, bd.node("mul", nil, a, s))
			}
			up := bd.node("resize", ra, bd.node("sigmoid", nil, x))
			var sum *graph.Value
			if tc.first {
				sum = bd.node("add", nil, up, a)
			} else {
				sum = bd.node("add", nil, a, up)
			}
			fused, out := "= add_resize(", sum
			if tc.quant != 0 {
				zero := 128
				if tc.quant == tensor.Int8 {
					zero = -3
				}
				qa := op.QDQAttrs([]float64{0.009}, []int{zero}, 1, tc.quant)
				q := bd.node("quantize_linear", qa, sum)
				q.Meta.DType = tc.quant
				out, fused = bd.node("dequantize_linear", qa, q), "= add_quantize("
			}
			bd.g.Outputs = []*graph.Value{out}
			after := []string{fused, "!= add(", "mode=nearest", "resized="}
			if tc.scaled > 0 {
				after = append(after, "scaled=", "!scale_residual", "!= mul(")
			}
			if tc.linear || tc.resizeTwice {
				after = []string{"!add_resize", "!resized=", "= add("}
			}
			if tc.resizeTwice {
				bd.g.Outputs = append(bd.g.Outputs, up)
			}
			in := tensor.Rand(r, tensor.Float32, -3, 3, 2, 3, tc.h, tc.w)
			want := run(t, bd.g, in)
			check(t, bd.g, "fuse", in, 0, []string{"= resize("}, after)
			if got := run(t, bd.g, in); !bitsEqual(got, want) {
				t.Errorf("the fused output is not bitwise the unfused one")
			}
			// exported as Resize + Add (+ QuantizeLinear), read back: the same output
			g2 := exportedBack(t, bd.g)
			if !bitsEqual(run(t, g2, in), want) {
				t.Errorf("the exported model's output differs")
			}
		})
	}
}

// bitsEqual reports whether two float32 tensors have the same shape and bits.
func bitsEqual(a, b *tensor.Tensor) bool {
	if !a.Shape().Equal(b.Shape()) {
		return false
	}
	x, y := a.Contiguous().F32(), b.Contiguous().F32()
	for i := range x {
		if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
			return false
		}
	}
	return true
}
