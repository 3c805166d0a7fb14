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

// Ops written as other ONNX ops: embedding as Gather, one_hot as OneHot,
// a 1x1 adaptive average pool as GlobalAveragePool.
func TestExportIndexAndPool(t *testing.T) {
	ids := &graph.Value{Name: "ids", Meta: op.Meta{DType: tensor.Int64, Shape: tensor.Shape{-1}}}
	x := &graph.Value{Name: "x", Meta: op.Meta{DType: tensor.Float32, Shape: tensor.Shape{1, 2, 3, 3}}}
	w := &graph.Value{Name: "w", Const: tensor.Rand(rand.New(rand.NewPCG(1, 1)), tensor.Float32, -1, 1, 5, 3), Param: true}
	w.Meta = graph.ConstMeta(w.Const)
	val := func(name string, d tensor.DType) *graph.Value {
		return &graph.Value{Name: name, Meta: op.Meta{DType: d}}
	}
	e, oh, ap := val("emb", tensor.Float32), val("oh", tensor.Float32), val("ap", tensor.Float32)
	g := &graph.Graph{Name: "idx", Inputs: []*graph.Value{ids, x}, Outputs: []*graph.Value{e, oh, ap}, Nodes: []*graph.Node{
		{Op: op.Lookup("embedding"), In: []*graph.Value{ids, w}, Out: []*graph.Value{e}, Name: "emb"},
		{Op: op.Lookup("one_hot"), Attrs: op.Attrs{"depth": 5, "dtype": "float32"}, In: []*graph.Value{ids}, Out: []*graph.Value{oh}, Name: "oh"},
		{Op: op.Lookup("adaptive_avg_pool2d"), Attrs: op.Attrs{"output_size": []int{1, 1}}, In: []*graph.Value{x}, Out: []*graph.Value{ap}, Name: "ap"},
	}}
	in := map[string]*tensor.Tensor{"ids": tensor.FromSlice([]int64{4, 0, 2}, 3),
		"x": tensor.Rand(rand.New(rand.NewPCG(2, 2)), tensor.Float32, -1, 1, 1, 2, 3, 3)}
	run := func(g *graph.Graph) map[string]*tensor.Tensor {
		p, err := runtime.New(g, runtime.Options{Passes: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		out, err := p.Run(in)
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
	ops := map[string]bool{}
	for _, n := range m.Graph.Node {
		ops[n.OpType] = true
	}
	for _, o := range []string{"Gather", "OneHot", "GlobalAveragePool"} {
		if !ops[o] {
			t.Errorf("export lacks %s: %v", o, ops)
		}
	}
	g2, err := onnx.Import(m)
	if err != nil {
		t.Fatal(err)
	}
	got := run(g2)
	for name, w := range want {
		if !tensor.AllClose(got[name], w, 1e-6, 1e-6) {
			t.Errorf("%s differs after export", name)
		}
	}
}
