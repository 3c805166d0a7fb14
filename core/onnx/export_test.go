package onnx_test

import (
	"math/rand/v2"
	"testing"

	"paddle/core/graph"
	"paddle/core/onnx"
	"paddle/core/onnx/onnxpb"
	"paddle/core/op"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// Ops without an ONNX twin export as small subgraphs with the same values.
func TestExportComposites(t *testing.T) {
	x := &graph.Value{Name: "x", Meta: op.Meta{DType: tensor.Float32, Shape: tensor.Shape{-1, 5}}, DimNames: []string{"n", ""}}
	g := &graph.Graph{Name: "composites", Inputs: []*graph.Value{x}}
	for _, c := range []struct {
		name string
		a    op.Attrs
	}{{"relu6", nil}, {"silu", nil}, {"gelu", op.Attrs{"approximate": "tanh"}}, {"gelu", nil}, {"exp", nil}, {"rsqrt", nil}} {
		y := &graph.Value{Name: "y_" + c.name + string(rune('0'+len(g.Outputs))), Meta: op.Meta{DType: tensor.Float32}}
		in := x
		if c.name == "rsqrt" {
			in = g.Outputs[len(g.Outputs)-1] // exp(x) > 0
		}
		g.Nodes = append(g.Nodes, &graph.Node{Op: op.Lookup(c.name), Attrs: c.a, In: []*graph.Value{in}, Out: []*graph.Value{y}, Name: c.name})
		g.Outputs = append(g.Outputs, y)
	}
	xv := tensor.Rand(rand.New(rand.NewPCG(5, 6)), tensor.Float32, -8, 8, 3, 5)
	run := func(g *graph.Graph) map[string]*tensor.Tensor {
		p, err := runtime.New(g, runtime.Options{Passes: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.Run(map[string]*tensor.Tensor{"x": xv})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := run(g)
	m, err := onnx.Export(g)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	m2, err := onnxpb.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if d := m2.Graph.Input[0].Type.TensorType.Shape.Dim[0]; d.Param != "n" {
		t.Errorf("dynamic dim exported as %v, want n", d)
	}
	g2, err := onnx.Import(m2)
	if err != nil {
		t.Fatal(err)
	}
	got := run(g2)
	for name, w := range want {
		if !tensor.AllClose(got[name], w, 1e-6, 1e-6) {
			d, _ := tensor.MaxDiff(got[name], w, 0, 0)
			t.Errorf("%s: export differs by %g", name, d)
		}
	}
}
