package pass_test

import (
	"testing"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// A per-tensor quantize_linear after a concat of x and a nearest ×2
// upsampling of pooled x moves above both (the concat and the resize then
// move uint8), bitwise: the dequantized output is unchanged. Per-channel
// scales, a linear resize and a concat read twice stop it.
func TestQPush(t *testing.T) {
	for _, tc := range []struct {
		name     string
		perChan  bool
		linear   bool
		readBoth bool
		after    []string
	}{
		{name: "concat and nearest resize", after: []string{"!= quantize_linear(%concat", "!= quantize_linear(%resize",
			"uint8[*] = quantize_linear(%max_pool2d1)", "uint8[1,2,6,8] = quantize_linear(%x)", "uint8[*] = resize(%max_pool2d1/q)", "uint8[*] = concat(%x/q, %resize2)"}},
		{name: "per-channel scales", perChan: true, after: []string{"= quantize_linear(%concat3)"}},
		{name: "linear resize", linear: true, after: []string{"!= quantize_linear(%concat", "float32[*] = resize(%max_pool2d1)", "uint8[*] = quantize_linear(%resize2)"}},
		{name: "concat read twice", readBoth: true, after: []string{"= quantize_linear(%concat3)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bd, x := newB(1, 2, 6, 8)
			mp := bd.node("max_pool2d", op.Attrs{"kernel_shape": []int{2, 2}, "strides": []int{2, 2}}, x)
			mode := "nearest"
			if tc.linear {
				mode = "linear"
			}
			r := bd.node("resize", op.Attrs{"mode": mode, "scales": []float64{2, 2}, "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}, mp)
			c := bd.node("concat", op.Attrs{"axis": 1}, x, r)
			qa := op.QDQAttrs([]float64{0.013}, []int{131}, 1, tensor.Uint8)
			if tc.perChan {
				qa = op.QDQAttrs([]float64{0.013, 0.02, 0.011, 0.03}, []int{131, 120, 128, 127}, 1, tensor.Uint8)
			}
			q := bd.node("quantize_linear", qa, c)
			q.Meta.DType = tensor.Uint8
			bd.g.Outputs = []*graph.Value{bd.node("dequantize_linear", qa, q)}
			if tc.readBoth {
				bd.g.Outputs = append(bd.g.Outputs, c)
			}
			check(t, bd.g, "qpush", rnd(1, 2, 6, 8), 0, []string{"= quantize_linear(%concat3)"}, tc.after)
		})
	}
}
