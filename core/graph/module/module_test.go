package module

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/ag"
	"paddle/core/onnx"
	"paddle/core/onnx/onnxpb"
	"paddle/core/op"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// tinyCNN is an ONNX model in float64: Conv → BatchNormalization → Relu →
// GlobalAveragePool → Flatten → MatMul → Softmax.
func tinyCNN(t *testing.T) *onnxpb.Model {
	r := rand.New(rand.NewPCG(7, 8))
	init := func(name string, lo, hi float64, shape ...int) *onnxpb.Tensor {
		return onnx.TensorProto(name, tensor.Rand(r, tensor.Float64, lo, hi, shape...))
	}
	typ := &onnxpb.TypeProto{TensorType: &onnxpb.TensorType{ElemType: onnxpb.Double,
		Shape: &onnxpb.Shape{Dim: []onnxpb.Dim{{Param: "n"}, {Value: 2, HasValue: true}, {Param: "h"}, {Param: "w"}}}}}
	return &onnxpb.Model{OpsetImport: []onnxpb.OpsetID{{Version: 13}}, Graph: &onnxpb.Graph{
		Name: "tiny",
		Node: []*onnxpb.Node{
			{Name: "conv", OpType: "Conv", Input: []string{"x", "W", "B"}, Output: []string{"c"},
				Attribute: []*onnxpb.Attribute{{Name: "pads", Type: onnxpb.AttrInts, Ints: []int64{1, 1, 1, 1}}}},
			{Name: "bn", OpType: "BatchNormalization", Input: []string{"c", "s", "b", "m", "v"}, Output: []string{"bnout"}},
			{Name: "relu", OpType: "Relu", Input: []string{"bnout"}, Output: []string{"r"}},
			{Name: "gap", OpType: "GlobalAveragePool", Input: []string{"r"}, Output: []string{"g"}},
			{Name: "flat", OpType: "Flatten", Input: []string{"g"}, Output: []string{"f"}},
			{Name: "fc", OpType: "MatMul", Input: []string{"f", "W2"}, Output: []string{"z"}},
			{Name: "sm", OpType: "Softmax", Input: []string{"z"}, Output: []string{"y"}},
		},
		Initializer: []*onnxpb.Tensor{init("W", -1, 1, 4, 2, 3, 3), init("B", -1, 1, 4), init("s", 0.5, 2, 4),
			init("b", -1, 1, 4), init("m", -0.5, 0.5, 4), init("v", 0.5, 2, 4), init("W2", -1, 1, 4, 3)},
		Input:  []*onnxpb.ValueInfo{{Name: "x", Type: typ}},
		Output: []*onnxpb.ValueInfo{{Name: "y"}},
	}}
}

func TestImportedGraphTrains(t *testing.T) {
	g, err := onnx.Import(tinyCNN(t))
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(g)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range m.Params() {
		names = append(names, p.Name)
	}
	if len(names) != 5 || len(m.Buffers()) != 2 {
		t.Fatalf("params %v, %d buffers: want W B s b W2 and the two statistics", names, len(m.Buffers()))
	}
	x := tensor.Rand(rand.New(rand.NewPCG(9, 10)), tensor.Float64, -1, 1, 3, 2, 5, 4)

	// eval mode agrees with the inference runtime
	p, err := runtime.New(g, runtime.Options{Passes: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := p.Run(map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	y := m.Forward(ag.Const(x), false)
	if d, _ := tensor.MaxDiff(y.T, ref["y"], 0, 0); d > 1e-12 {
		t.Fatalf("eval output differs from the runtime by %g", d)
	}

	// gradients match central differences: loss = Σ y·target
	target := tensor.Rand(rand.New(rand.NewPCG(11, 12)), tensor.Float64, 0, 1, 3, 3)
	loss := func() *ag.Var {
		return ag.Apply(op.Lookup("sum"), nil, ag.Apply(op.Lookup("mul"), nil, m.Forward(ag.Const(x), false), ag.Const(target))[0])[0]
	}
	l := loss()
	l.Backward()
	for _, pp := range m.Params() {
		if pp.V.Grad == nil {
			t.Fatalf("%s got no gradient", pp.Name)
		}
		for _, i := range []int{0, pp.V.T.Len() - 1} {
			data := pp.V.T.F64()
			old, h := data[i], 1e-6
			data[i] = old + h
			up := loss().T.Item()
			data[i] = old - h
			down := loss().T.Item()
			data[i] = old
			fd, an := (up-down)/(2*h), pp.V.Grad.F64()[i]
			if math.Abs(fd-an) > 1e-6*max(1, math.Abs(fd)) {
				t.Errorf("%s[%d]: gradient %g, finite difference %g", pp.Name, i, an, fd)
			}
		}
	}

	// training mode normalises with batch statistics and moves the running mean
	before := m.Buffers()[0].V.T.Clone()
	yt := m.Forward(ag.Const(x), true)
	if d, _ := tensor.MaxDiff(yt.T, y.T, 0, 0); d == 0 {
		t.Error("training-mode output equals eval-mode output")
	}
	if d, _ := tensor.MaxDiff(m.Buffers()[0].V.T, before, 0, 0); d == 0 {
		t.Error("running mean did not move")
	}
}
