package trace_test

import (
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/graph/trace"
	"paddle/core/nn"
	"paddle/core/onnx"
	"paddle/core/op"
	"paddle/core/runtime"
	"paddle/core/runtime/ortcheck"
	"paddle/core/tensor"
	"paddle/core/zoo"
)

// ortRun runs file with ONNX Runtime on x (input "x") and returns output
// "output", or nil when ONNX Runtime is not installed.
func ortRun(t *testing.T, file string, x *tensor.Tensor) *tensor.Tensor {
	t.Helper()
	out := ortcheck.Run(t, file, map[string]*tensor.Tensor{"x": x}, "output")
	if out == nil {
		return nil
	}
	return out["output"]
}

// eval runs the Go layer in eval mode.
func eval(l nn.Layer, x *tensor.Tensor) *tensor.Tensor {
	var y *tensor.Tensor
	ag.NoGrad(func() { y = l.Forward(ag.Const(x), false).T })
	return y
}

// trainSteps runs a few SGD steps in training mode on random data, then
// training-mode forwards until the batch-norm running statistics are near
// the batch statistics (with the initial ones the deep nets' features
// vanish and every output is the classifier's bias: a weak test).
func trainSteps(t *testing.T, l nn.Layer, r *rand.Rand, shape ...int) {
	t.Helper()
	defer ag.NoGrad(func() {
		for range 30 {
			l.Forward(ag.Const(tensor.Randn(r, tensor.Float32, 0, 1, shape...)), true)
		}
	})
	for range 3 {
		x := tensor.Randn(r, tensor.Float32, 0, 1, shape...)
		y := l.Forward(ag.Const(x), true)
		// a linear loss against a random sign pattern moves the outputs away from 0
		c := tensor.Rand(r, tensor.Float32, -1, 1, y.Shape()...)
		loss := ag.Neg(ag.Mean(ag.Mul(y, ag.Const(c)), nil, false))
		nn.ZeroGrad(l)
		loss.Backward()
		for _, p := range l.Params() {
			if p.V.Grad != nil {
				p.V.T.CopyFrom(op.Sub(p.V.T, op.Mul(p.V.Grad, op.ScalarLike(p.V.T, 0.05))))
			}
		}
	}
}

// checkExport traces l at the first shape, writes ONNX, and compares the
// Go layer with paddle's runtime on the traced graph, on the re-imported
// file (≤ 1e-5) and with ONNX Runtime (≤ 1e-4) at every shape.
func checkExport(t *testing.T, l nn.Layer, spec trace.InputSpec, shapes ...[]int) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 8))
	g, err := trace.Layer(l, spec, tensor.Randn(r, tensor.Float32, 0, 1, shapes[0]...))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "model.onnx")
	if err := onnx.WriteFile(file, g); err != nil {
		t.Fatal(err)
	}
	direct, err := runtime.New(g, runtime.Options{Passes: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := runtime.Load(file, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// the passes rewrite the graph they get: trace a second copy for them
	g2, err := trace.Layer(l, spec, tensor.Randn(r, tensor.Float32, 0, 1, shapes[0]...))
	if err != nil {
		t.Fatal(err)
	}
	optimised, err := runtime.New(g2, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range shapes {
		x := tensor.Randn(r, tensor.Float32, 0, 1, s...)
		want := eval(l, x)
		for name, p := range map[string]*runtime.Predictor{"traced graph": direct, "traced graph, default passes": optimised, "re-imported ONNX": loaded} {
			got, err := p.Run(map[string]*tensor.Tensor{spec.Name: x})
			if err != nil {
				t.Fatalf("%s at %v: %v", name, s, err)
			}
			d, _ := tensor.MaxDiff(got["output"], want, 0, 0)
			t.Logf("%v: %s vs Go eval forward (max |y| %.3g, spread over the batch %.3g): max abs diff %.3g", s, name, maxAbs(want), spread(want), d)
			if d > 1e-5 {
				t.Errorf("%v: %s differs from the Go layer by %g", s, name, d)
			}
		}
		if ort := ortRun(t, file, x); ort != nil {
			d, _ := tensor.MaxDiff(ort, want, 0, 0)
			t.Logf("%v: ONNX Runtime vs Go eval forward: max abs diff %.3g", s, d)
			if d > 1e-4 {
				t.Errorf("%v: ONNX Runtime differs from the Go layer by %g", s, d)
			}
		} else if s[0] == shapes[0][0] {
			t.Log("ONNX Runtime not installed (scripts/ref/setup_ort.sh): export not run by it")
		}
	}
}

func imageSpec() trace.InputSpec {
	return trace.InputSpec{Name: "x", Shape: []int{-1, 3, -1, -1}, DimNames: []string{"batch", "", "height", "width"}}
}

func TestPPLCNetWithSEExports(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m, err := zoo.NewPPLCNet(zoo.PPLCNetOptions{Scale: 0.25, InChannels: 3, ClassNum: 5, SmallInput: true, LastConv: 32}, r)
	if err != nil {
		t.Fatal(err)
	}
	trainSteps(t, m, r, 4, 3, 16, 16)
	// the small head barely separates random images: scale it so the
	// logits differ by O(1) between inputs and the comparison means something
	for _, w := range []*ag.Var{m.LastConv.Weight, m.FC.Weight} {
		w.T.CopyFrom(op.Mul(w.T, op.ScalarLike(w.T, 20)))
	}
	checkExport(t, m, imageSpec(), []int{2, 3, 16, 16}, []int{3, 3, 24, 20}, []int{1, 3, 16, 16})
}

func TestResNetBasicBlocksExport(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m, err := zoo.NewResNet(zoo.ResNetOptions{Depth: 18, Width: 4, InChannels: 3, ClassNum: 6, SmallInput: true}, r)
	if err != nil {
		t.Fatal(err)
	}
	trainSteps(t, m, r, 4, 3, 16, 16)
	checkExport(t, m, imageSpec(), []int{2, 3, 16, 16}, []int{5, 3, 16, 24})
}

// The traced graph reads the parameters and buffers under their dotted
// names, parameters marked Param, buffers not.
func TestTraceNamesParameters(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	m, err := zoo.NewResNet(zoo.ResNetOptions{Depth: 18, Width: 4, InChannels: 3, ClassNum: 6, SmallInput: true}, r)
	if err != nil {
		t.Fatal(err)
	}
	g, err := trace.Layer(m, imageSpec(), tensor.Randn(r, tensor.Float32, 0, 1, 2, 3, 8, 8))
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]bool{}
	for _, v := range g.Consts() {
		consts[v.Name] = v.Param
	}
	for _, p := range m.Params() {
		if isParam, ok := consts[p.Name]; !ok || !isParam {
			t.Errorf("parameter %s: in graph %v, Param %v", p.Name, ok, isParam)
		}
	}
	for _, p := range nn.Buffers(m) {
		if strings.HasSuffix(p.Name, "num_batches_tracked") {
			continue
		}
		if isParam, ok := consts[p.Name]; !ok || isParam {
			t.Errorf("buffer %s: in graph %v, Param %v", p.Name, ok, isParam)
		}
	}
	in := g.Inputs[0]
	if !in.Meta.Shape.Equal(tensor.Shape{-1, 3, -1, -1}) || in.DimNames[0] != "batch" || in.DimNames[3] != "width" {
		t.Errorf("input %v %q", in.Meta.Shape, in.DimNames)
	}
	if out := g.Outputs[0]; !out.Meta.Shape.Equal(tensor.Shape{-1, 6}) || out.DimNames[0] != "batch" {
		t.Errorf("output %v %q, want [-1 6] with dim 0 batch", out.Meta.Shape, out.DimNames)
	}
}

func maxAbs(t *tensor.Tensor) float64 {
	m := 0.0
	for _, v := range t.Float64s() {
		m = max(m, v, -v)
	}
	return m
}

// spread is the largest difference between a sample's outputs and the first's.
func spread(t *tensor.Tensor) float64 {
	v := t.Float64s()
	n := t.Shape()[0]
	k := len(v) / max(n, 1)
	m := 0.0
	for i := k; i < len(v); i++ {
		m = max(m, v[i]-v[i%k], v[i%k]-v[i])
	}
	return m
}

// A model whose layers need a fixed size (LeNet's classifier reads 16·5·5
// features) cannot have a dynamic height: the error names the node.
func TestStaticModelRejectsDynamicHeight(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	conv, err := nn.NewConv2D(nn.ConvOptions{InChannels: 1, OutChannels: 2, KernelSize: []int{3}}, r)
	if err != nil {
		t.Fatal(err)
	}
	fc, err := nn.NewLinear(nn.LinearOptions{In: 2 * 6 * 6, Out: 3}, r)
	if err != nil {
		t.Fatal(err)
	}
	m := nn.NewSequential(conv, &nn.Flatten{}, fc)
	x := tensor.Randn(r, tensor.Float32, 0, 1, 2, 1, 8, 8)
	_, err = trace.Layer(m, trace.InputSpec{Name: "x", Shape: []int{-1, 1, -1, 8}, DimNames: []string{"batch", "", "height", ""}}, x)
	if err == nil || !strings.Contains(err.Error(), "matmul") || !strings.Contains(err.Error(), "height") {
		t.Fatalf("err = %v, want one naming the matmul node and the height dim", err)
	}
	// with the batch only dynamic it traces, and runs at another batch size
	g, err := trace.Layer(m, trace.InputSpec{Name: "x", Shape: []int{-1, 1, 8, 8}, DimNames: []string{"batch"}}, x)
	if err != nil {
		t.Fatal(err)
	}
	p, err := runtime.New(g, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x5 := tensor.Randn(r, tensor.Float32, 0, 1, 5, 1, 8, 8)
	got, err := p.Run(map[string]*tensor.Tensor{"x": x5})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := tensor.MaxDiff(got["output"], eval(m, x5), 0, 0); d > 1e-6 {
		t.Errorf("batch 5: differs by %g", d)
	}
}
