package rectrain

import (
	"testing"

	"paddle/core/onnx"
	"paddle/core/onnx/onnxpb"
)

// Logits looks through the flatten → softmax → reshape an opset-11 Softmax
// imports as, but not through a Reshape the model has before its softmax (an
// upsampled CTC head's).
func TestLogits(t *testing.T) {
	vi := func(name string) *onnxpb.ValueInfo {
		return &onnxpb.ValueInfo{Name: name, Type: &onnxpb.TypeProto{TensorType: &onnxpb.TensorType{ElemType: onnxpb.Float,
			Shape: &onnxpb.Shape{Dim: []onnxpb.Dim{{Value: 1, HasValue: true}, {Value: 2, HasValue: true}, {Value: 4, HasValue: true}}}}}}
	}
	softmax := &onnxpb.Node{OpType: "Softmax", Output: []string{"y"}, Attribute: []*onnxpb.Attribute{{Name: "axis", Type: onnxpb.AttrInt, I: 2}}}
	for _, c := range []struct {
		name    string
		reshape bool
		want    string // the producer's op of the value Logits returns
	}{{"plain", false, "add"}, {"upsampled", true, "reshape"}} {
		nodes := []*onnxpb.Node{{OpType: "Add", Input: []string{"x", "x"}, Output: []string{"logits"}}}
		softmax.Input = []string{"logits"}
		if c.reshape {
			nodes = append(nodes, &onnxpb.Node{OpType: "Reshape", Input: []string{"logits", "shape"}, Output: []string{"up"}})
			softmax.Input = []string{"up"}
		}
		m := &onnxpb.Model{IRVersion: 6, OpsetImport: []onnxpb.OpsetID{{Version: 11}}, Graph: &onnxpb.Graph{
			Node:        append(nodes, softmax),
			Initializer: []*onnxpb.Tensor{onnxpb.FromInt64s("shape", []int64{3}, []int64{0, -1, 2})},
			Input:       []*onnxpb.ValueInfo{vi("x")},
			Output:      []*onnxpb.ValueInfo{vi("y")},
		}}
		g, err := onnx.Import(m)
		if err != nil {
			t.Fatal(err)
		}
		v := Logits(g, g.Outputs[0])
		if p := g.Producers()[v]; p == nil || p.Op.Name != c.want {
			t.Errorf("%s: Logits is the output of %v, want %s", c.name, p, c.want)
		}
	}
}
