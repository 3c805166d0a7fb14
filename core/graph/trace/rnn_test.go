package trace_test

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"paddle/core/ag"
	"paddle/core/graph/trace"
	"paddle/core/nn"
	"paddle/core/onnx"
	"paddle/core/runtime"
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

// LSTM.Run with initial states traces with three inputs and three outputs
// (sequence, final h and c), and the export re-imports to the Go values at
// two lengths.
func TestLSTMWithStatesTraces(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	m, err := nn.NewLSTM(nn.RNNOptions{InputSize: 3, HiddenSize: 4, NumLayers: 2, Bidirectional: true}, r)
	if err != nil {
		t.Fatal(err)
	}
	run := func(xs []*ag.Var) []*ag.Var {
		y, hn, cn, err := m.Run(xs[0], xs[1], xs[2], nil, false)
		if err != nil {
			t.Fatal(err)
		}
		return []*ag.Var{y, hn, cn}
	}
	specs := []trace.InputSpec{
		{Name: "x", Shape: []int{-1, -1, 3}, DimNames: []string{"seq", "batch"}},
		{Name: "h0", Shape: []int{4, -1, 4}, DimNames: []string{"", "batch"}},
		{Name: "c0", Shape: []int{4, -1, 4}, DimNames: []string{"", "batch"}},
	}
	rnd := func(s ...int) *tensor.Tensor { return tensor.Randn(r, tensor.Float32, 0, 1, s...) }
	g, err := trace.Func(m, specs, []*tensor.Tensor{rnd(3, 2, 3), rnd(4, 2, 4), rnd(4, 2, 4)}, []string{"y", "hn", "cn"}, run)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "lstm.onnx")
	if err := onnx.WriteFile(file, g); err != nil {
		t.Fatal(err)
	}
	p, err := runtime.Load(file, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tn := range [][2]int{{5, 2}, {8, 3}} {
		in := []*tensor.Tensor{rnd(tn[0], tn[1], 3), rnd(4, tn[1], 4), rnd(4, tn[1], 4)}
		var want []*ag.Var
		ag.NoGrad(func() { want = run([]*ag.Var{ag.Const(in[0]), ag.Const(in[1]), ag.Const(in[2])}) })
		got, err := p.Run(map[string]*tensor.Tensor{"x": in[0], "h0": in[1], "c0": in[2]})
		if err != nil {
			t.Fatal(err)
		}
		for i, name := range []string{"y", "hn", "cn"} {
			if d, _ := tensor.MaxDiff(got[name], want[i].T, 0, 0); d > 1e-5 {
				t.Errorf("T=%d N=%d: %s differs by %g", tn[0], tn[1], name, d)
			}
		}
	}
}
