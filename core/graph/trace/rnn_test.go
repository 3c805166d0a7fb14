package trace_test

import (
	"math/rand/v2"
	"testing"

	"paddle/core/ag"
	"paddle/core/graph/trace"
	"paddle/core/nn"
	"paddle/core/tensor"
)

// A 2-layer bidirectional LSTM traces to ONNX LSTM ops, so one exported file
// runs at any sequence length: checked at lengths 5 and 9 (and another batch
// size) against the Go layer, in paddle's runtime and in ONNX Runtime.
func TestBiLSTMExportsWithDynamicLength(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	m, err := nn.NewLSTM(nn.RNNOptions{InputSize: 6, HiddenSize: 8, NumLayers: 2, Bidirectional: true}, r)
	if err != nil {
		t.Fatal(err)
	}
	spec := trace.InputSpec{Name: "x", Shape: []int{-1, -1, 6}, DimNames: []string{"seq", "batch", ""}}
	g, err := trace.Layer(m, spec, tensor.Randn(r, tensor.Float32, 0, 1, 3, 2, 6))
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]int{}
	for _, n := range g.Nodes {
		ops[n.Op.Name]++
	}
	if ops["onnx_lstm"] != 2 || ops["reshape"] != 0 || ops["sigmoid"] != 0 {
		t.Errorf("traced ops %v, want 2 onnx_lstm and no unrolled cell", ops)
	}
	checkExport(t, m, spec, []int{5, 2, 6}, []int{9, 2, 6}, []int{7, 3, 6})
}

// A batch-first GRU (PyTorch's gate equations = ONNX's linear_before_reset).
func TestGRUExportsWithDynamicLength(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	m, err := nn.NewGRU(nn.RNNOptions{InputSize: 4, HiddenSize: 5, BatchFirst: true}, r)
	if err != nil {
		t.Fatal(err)
	}
	spec := trace.InputSpec{Name: "x", Shape: []int{-1, -1, 4}, DimNames: []string{"batch", "seq", ""}}
	checkExport(t, m, spec, []int{2, 5, 4}, []int{2, 9, 4}, []int{3, 4, 4})
}

// LayerNorm and softmax trace as the registry primitives layer_norm and
// softmax, so they export as ONNX LayerNormalization and Softmax; a Linear
// on a (batch, seq, E) input keeps both dims dynamic.
func TestLayerNormAndSoftmaxExportAsTwins(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	fc, err := nn.NewLinear(nn.LinearOptions{In: 6, Out: 8}, r)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := nn.NewLayerNorm(nn.LayerNormOptions{Shape: []int{8}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ln.Params() { // not the identity affine of a fresh layer
		p.V.T.CopyFrom(tensor.Randn(r, tensor.Float32, 0.5, 1, p.V.T.Shape()...))
	}
	m := nn.NewSequential(fc, ln, &softmaxLayer{})
	spec := trace.InputSpec{Name: "x", Shape: []int{-1, -1, 6}, DimNames: []string{"batch", "seq", ""}}
	g, err := trace.Layer(m, spec, tensor.Randn(r, tensor.Float32, 0, 1, 2, 3, 6))
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]int{}
	for _, n := range g.Nodes {
		ops[n.Op.Name]++
	}
	if ops["layer_norm"] != 1 || ops["softmax"] != 1 || ops["exp"] != 0 || ops["mean"] != 0 {
		t.Errorf("traced ops %v, want one layer_norm and one softmax", ops)
	}
	checkExport(t, m, spec, []int{2, 3, 6}, []int{4, 7, 6})
}

type softmaxLayer struct{}

func (*softmaxLayer) Params() []nn.Param                { return nil }
func (*softmaxLayer) Forward(x *ag.Var, _ bool) *ag.Var { return ag.Softmax(x, -1) }
