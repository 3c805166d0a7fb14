package onnx

import (
	"strings"
	"testing"

	"paddle/core/onnx/onnxpb"
)

func tinyModel(opset int64, nodes ...*onnxpb.Node) *onnxpb.Model {
	f := &onnxpb.TypeProto{TensorType: &onnxpb.TensorType{ElemType: onnxpb.Float,
		Shape: &onnxpb.Shape{Dim: []onnxpb.Dim{{Param: "n"}, {Value: 4, HasValue: true}}}}}
	return &onnxpb.Model{OpsetImport: []onnxpb.OpsetID{{Version: opset}}, Graph: &onnxpb.Graph{
		Name:  "tiny",
		Node:  nodes,
		Input: []*onnxpb.ValueInfo{{Name: "x", Type: f}},
		Initializer: []*onnxpb.Tensor{onnxpb.FromFloat32s("w", []int64{4, 2}, []float32{1, 2, 3, 4, 5, 6, 7, 8}),
			onnxpb.FromFloat32s("k", []int64{2}, []float32{1, 1})},
		Output: []*onnxpb.ValueInfo{{Name: "y", Type: f}},
	}}
}

func TestUnsupportedOpError(t *testing.T) {
	m := tinyModel(11, &onnxpb.Node{Name: "Conv_12", OpType: "Foo", Input: []string{"x"}, Output: []string{"y"}})
	_, err := Import(m)
	if err == nil || err.Error() != `onnx: node "Conv_12" (Foo, opset 11): unsupported op` {
		t.Fatalf("got %v", err)
	}
}

func TestParamsAndDump(t *testing.T) {
	m := tinyModel(13,
		&onnxpb.Node{Name: "mm", OpType: "MatMul", Input: []string{"x", "w"}, Output: []string{"h"}},
		&onnxpb.Node{Name: "add", OpType: "Add", Input: []string{"h", "k"}, Output: []string{"y0"}},
		&onnxpb.Node{Name: "id", OpType: "Identity", Input: []string{"y0"}, Output: []string{"y"}})
	g, err := Import(m)
	if err != nil {
		t.Fatal(err)
	}
	ps := g.Params()
	if len(ps) != 1 || ps[0].Name != "w" {
		t.Fatalf("params %v: want only w (k feeds Add, not a weight input)", ps)
	}
	if g.OutputName(0) != "y" || g.Outputs[0].Name != "y0" {
		t.Fatalf("output %q is value %q", g.OutputName(0), g.Outputs[0].Name)
	}
	dump := g.String()
	for _, want := range []string{"input %x float32[?,4]", "param $w float32[4,2]", "const $k float32[2]",
		"= matmul(%x, $w)  # mm", "= add(%h, $k)  # add"} {
		if !strings.Contains(dump, want) {
			t.Errorf("dump lacks %q:\n%s", want, dump)
		}
	}
}
