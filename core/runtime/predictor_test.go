package runtime

import (
	"strings"
	"testing"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/tensor"
)

// tiny is y = reshape(flatten(relu(x)), shape(x)) with x (?, 4): shape
// arithmetic at run time and a dynamic batch.
func tiny() *graph.Graph {
	x := &graph.Value{Name: "x", Meta: op.Meta{DType: tensor.Float32, Shape: tensor.Shape{-1, 4}}}
	r := &graph.Value{Name: "r", Meta: op.Meta{DType: tensor.Float32}}
	f := &graph.Value{Name: "f", Meta: op.Meta{DType: tensor.Float32}}
	s := &graph.Value{Name: "s", Meta: op.Meta{DType: tensor.Int64}}
	y := &graph.Value{Name: "y", Meta: op.Meta{DType: tensor.Float32}}
	return &graph.Graph{Inputs: []*graph.Value{x}, Outputs: []*graph.Value{y}, Nodes: []*graph.Node{
		{Op: op.Lookup("relu"), In: []*graph.Value{x}, Out: []*graph.Value{r}, Name: "relu"},
		{Op: op.Lookup("flatten"), Attrs: op.Attrs{"axis": 0}, In: []*graph.Value{r}, Out: []*graph.Value{f}, Name: "flat"},
		{Op: op.Lookup("shape"), In: []*graph.Value{x}, Out: []*graph.Value{s}, Name: "shape"},
		{Op: op.Lookup("reshape"), Attrs: op.Attrs{}, In: []*graph.Value{f}, Out: []*graph.Value{y}, Name: "back",
			AttrIn: []graph.AttrIn{{Attr: "shape", Kind: graph.AttrInts, V: s}}},
	}}
}

// New input sizes work, and the plan cache stays bounded.
func TestPlanCacheBounded(t *testing.T) {
	p, err := New(tiny(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= PlanCacheSize+8; n++ {
		x := tensor.Full(tensor.Float32, -1, n, 4)
		x.F32()[0] = 2
		out, err := p.Run(map[string]*tensor.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		y := out["y"]
		if !y.Shape().Equal(tensor.Shape{n, 4}) || y.F32()[0] != 2 || y.F32()[1] != 0 {
			t.Fatalf("n=%d: y %v %v", n, y.Shape(), y.F32()[:2])
		}
	}
	if got := p.PlanCount(); got != PlanCacheSize {
		t.Fatalf("%d plans cached, want %d", got, PlanCacheSize)
	}
}

func TestRunErrors(t *testing.T) {
	p, err := New(tiny(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		in   map[string]*tensor.Tensor
		want string
	}{
		{map[string]*tensor.Tensor{}, `missing input "x"`},
		{map[string]*tensor.Tensor{"x": tensor.New(tensor.Float64, 2, 4)}, `input "x" is float64, want float32`},
		{map[string]*tensor.Tensor{"x": tensor.New(tensor.Float32, 2, 5)}, `input "x" wants shape (-1, 4), got (2, 5)`},
		{map[string]*tensor.Tensor{"x": tensor.New(tensor.Float32, 2, 4), "z": tensor.New(tensor.Float32, 1)}, "unknown inputs z"},
	} {
		if _, err := p.Run(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	if _, err := New(tiny(), Options{Passes: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), `unknown pass "nope"`) {
		t.Errorf("unknown pass: %v", err)
	}
}

// A model whose weights are ONNX external data (onnxpb's testdata, saved by
// the onnx package) loads and runs: y = x·w, w = arange(6)/4 - 0.5 as (2, 3).
func TestExternalDataModel(t *testing.T) {
	p, err := Load("../onnx/onnxpb/testdata/external/model.onnx", Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Run(map[string]*tensor.Tensor{"x": tensor.FromSlice([]float32{1, 0, 0, 1}, 2, 2)})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range out["y"].F32() {
		if want := float32(i)/4 - 0.5; v != want {
			t.Fatalf("y[%d] = %v, want %v", i, v, want)
		}
	}
}
