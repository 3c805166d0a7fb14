package runtime

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/onnx"
	"paddle/core/onnx/onnxpb"
	"paddle/core/tensor"
)

// quantConvModels builds the same quantized 3×3 convolution (+ bias, relu)
// twice: as a QDQ model (QuantizeLinear/DequantizeLinear around a float
// Conv, int8 per-channel weights, uint8 activations) and as a QLinearConv
// model (int32 bias in units of x_scale·w_scale), both dequantizing their
// uint8 output.
func quantConvModels(r *rand.Rand) (qdq, qlinear *onnxpb.Model, ys float32) {
	const oc, c = 5, 3
	xs, ys := float32(0.02), float32(0.03)
	wq := tensor.New(tensor.Int8, oc, c, 3, 3)
	for i := range wq.I8() {
		wq.I8()[i] = int8(r.IntN(255) - 127)
	}
	ws := tensor.New(tensor.Float32, oc)
	bf := tensor.New(tensor.Float32, oc)
	bi := tensor.New(tensor.Int32, oc)
	for o := range oc {
		ws.F32()[o] = 0.002 + 0.003*r.Float32()
		bf.F32()[o] = r.Float32() - 0.5
		bi.I32()[o] = int32(math.RoundToEven(float64(bf.F32()[o] / (xs * ws.F32()[o]))))
		bf.F32()[o] = float32(bi.I32()[o]) * xs * ws.F32()[o] // the bias both models hold
	}
	init := func(name string, t *tensor.Tensor) *onnxpb.Tensor { return onnx.TensorProto(name, t) }
	common := []*onnxpb.Tensor{init("xs", tensor.Scalar(xs)), init("xz", tensor.Scalar[uint8](128)),
		init("ys", tensor.Scalar(ys)), init("yz", tensor.Scalar[uint8](0)), init("wq", wq), init("ws", ws),
		init("wz", tensor.New(tensor.Int8, oc))}
	f := func(name string) *onnxpb.ValueInfo {
		return &onnxpb.ValueInfo{Name: name, Type: &onnxpb.TypeProto{TensorType: &onnxpb.TensorType{ElemType: onnxpb.Float,
			Shape: &onnxpb.Shape{Dim: []onnxpb.Dim{{Param: "n"}, {Value: c, HasValue: true}, {Param: "h"}, {Param: "w"}}}}}}
	}
	pads := &onnxpb.Attribute{Name: "pads", Type: onnxpb.AttrInts, Ints: []int64{1, 1, 1, 1}}
	axis0 := &onnxpb.Attribute{Name: "axis", Type: onnxpb.AttrInt, I: 0}
	model := func(nodes []*onnxpb.Node, extra ...*onnxpb.Tensor) *onnxpb.Model {
		return &onnxpb.Model{OpsetImport: []onnxpb.OpsetID{{Version: 13}}, Graph: &onnxpb.Graph{Name: "q", Node: nodes,
			Input: []*onnxpb.ValueInfo{f("x")}, Output: []*onnxpb.ValueInfo{f("y")}, Initializer: append(append([]*onnxpb.Tensor{}, common...), extra...)}}
	}
	qdq = model([]*onnxpb.Node{
		{Name: "qx", OpType: "QuantizeLinear", Input: []string{"x", "xs", "xz"}, Output: []string{"xq"}},
		{Name: "dqx", OpType: "DequantizeLinear", Input: []string{"xq", "xs", "xz"}, Output: []string{"xd"}},
		{Name: "dqw", OpType: "DequantizeLinear", Input: []string{"wq", "ws", "wz"}, Output: []string{"wd"}, Attribute: []*onnxpb.Attribute{axis0}},
		{Name: "conv", OpType: "Conv", Input: []string{"xd", "wd", "bf"}, Output: []string{"h"}, Attribute: []*onnxpb.Attribute{pads}},
		{Name: "relu", OpType: "Relu", Input: []string{"h"}, Output: []string{"hr"}},
		{Name: "qy", OpType: "QuantizeLinear", Input: []string{"hr", "ys", "yz"}, Output: []string{"yq"}},
		{Name: "dqy", OpType: "DequantizeLinear", Input: []string{"yq", "ys", "yz"}, Output: []string{"y"}},
	}, init("bf", bf))
	qlinear = model([]*onnxpb.Node{
		{Name: "qx", OpType: "QuantizeLinear", Input: []string{"x", "xs", "xz"}, Output: []string{"xq"}},
		{Name: "conv", OpType: "QLinearConv", Input: []string{"xq", "xs", "xz", "wq", "ws", "wz", "ys", "yz", "bi"}, Output: []string{"yq"}, Attribute: []*onnxpb.Attribute{pads}},
		{Name: "dqy", OpType: "DequantizeLinear", Input: []string{"yq", "ys", "yz"}, Output: []string{"y"}},
	}, init("bi", bi))
	return qdq, qlinear, ys
}

// TestQuantizedConvModels runs the QDQ and the QLinearConv form of one
// quantized convolution (with the default passes and without) and checks
// that they agree within one quantization step of the output.
func TestQuantizedConvModels(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	qdq, ql, ys := quantConvModels(r)
	x := tensor.New(tensor.Float32, 2, 3, 9, 7)
	for i := range x.F32() {
		x.F32()[i] = r.Float32()*4 - 2
	}
	for _, passes := range [][]string{nil, {}} {
		var outs []*tensor.Tensor
		for _, m := range []*onnxpb.Model{qdq, ql} {
			g, err := onnx.Import(m)
			if err != nil {
				t.Fatal(err)
			}
			p, err := New(g, Options{Passes: passes})
			if err != nil {
				t.Fatal(err)
			}
			out, err := p.Run(map[string]*tensor.Tensor{"x": x})
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, out["y"])
		}
		a, b := outs[0].F32(), outs[1].F32()
		worst, nonzero := float32(0), 0
		for i := range a {
			worst = max(worst, float32(math.Abs(float64(a[i]-b[i]))))
			if a[i] != 0 {
				nonzero++
			}
		}
		if worst > ys*1.0001 || nonzero < len(a)/4 {
			t.Fatalf("passes %v: QDQ and QLinearConv differ by %g (one step %g); %d of %d outputs nonzero", passes, worst, ys, nonzero, len(a))
		}
		t.Logf("passes %v: max difference %g (one step %g)", passes, worst, ys)
	}
}
