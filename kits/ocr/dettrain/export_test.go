package dettrain

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/cli/iostreams"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/runtime"
	"paddle/core/runtime/ortcheck"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

const exportConfig = `
Global: {seed: 3}
Architecture:
  model_type: det
  algorithm: DB
  Backbone: {name: PPLCNet, scale: 0.25}
  Neck: {name: DBFPN, out_channels: 32}
  Head: {name: DBHead, k: 50}
PostProcess: {name: DBPostProcess, thresh: 0.3, box_thresh: 0.6, unclip_ratio: 1.5}
Eval:
  dataset:
    name: SimpleDataSet
    label_file_list: [none.txt]
    transforms:
      - DecodeImage: {img_mode: BGR}
      - DetResizeForTest: {image_shape: [96, 160]}
      - NormalizeImage: {scale: 1./255.}
`

// The export (model.onnx with dynamic batch, height and width) computes the
// checkpoint's probability map within 1e-4 at two sizes the tracer did not
// use, in paddle's runtime and in ONNX Runtime (when installed).
func TestExportMatchesCheckpoint(t *testing.T) {
	cfg, err := config.Parse("ocr", "exp.yaml", []byte(exportConfig))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	model, err := r.(*runner).newModel()
	if err != nil {
		t.Fatal(err)
	}
	// batch-norm statistics that are not the identity, so they must be exported
	rng := rand.New(rand.NewPCG(7, 7))
	for _, b := range model.Buffers() {
		if b.V.T.DType() != tensor.Float32 {
			continue // num_batches_tracked
		}
		v := b.V.T.F32()
		for i := range v {
			v[i] = float32(0.5 + rng.Float64())
		}
	}
	// and weights with some noise: fresh ones give a constant probability map
	for _, p := range model.Params() {
		v := p.V.T.F32()
		for i := range v {
			v[i] += float32(0.3 * rng.NormFloat64())
		}
	}
	dir := t.TempDir()
	ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "exp")
	if err := workflow.SaveCheckpoint(ckpt, model, nil, workflow.State{}, []byte(exportConfig)); err != nil {
		t.Fatal(err)
	}
	ios, _, _, _ := iostreams.Test()
	if err := r.(workflow.Exporter).Export(context.Background(), workflow.Env{IO: workflow.IO{In: ios.In, Out: ios.Out}, Weights: ckpt}, exp); err != nil {
		t.Fatal(err)
	}
	inf, err := os.ReadFile(filepath.Join(exp, workflow.ExportInferenceFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("inference.yaml:\n%s", inf)
	if !strings.Contains(string(inf), "shape: [-1, 3, -1, -1]") {
		t.Errorf("inference.yaml: want the input shape [-1, 3, -1, -1]")
	}
	model2 := filepath.Join(exp, workflow.ExportModelFile)
	p, err := runtime.Load(model2, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// two sizes, neither one the tracer used, and two batch sizes
	for _, sz := range [][3]int{{1, 96, 160}, {2, 224, 64}} {
		x := tensor.Randn(rng, tensor.Float32, 0, 1, sz[0], 3, sz[1], sz[2])
		outs, err := p.Run(map[string]*tensor.Tensor{"x": x})
		if err != nil {
			t.Fatalf("%v: %v", sz, err)
		}
		got := outs["output"]
		var want *tensor.Tensor
		ag.NoGrad(func() { want = model.Forward(ag.Const(x), false).T })
		if !got.Shape().Equal(tensor.Shape{sz[0], 1, sz[1], sz[2]}) {
			t.Fatalf("export output %v, want (%d, 1, %d, %d)", got.Shape(), sz[0], sz[1], sz[2])
		}
		lo, hi := 1.0, 0.0
		for _, v := range want.Contiguous().F32() {
			lo, hi = min(lo, float64(v)), max(hi, float64(v))
		}
		t.Logf("%v: probabilities in [%.3g, %.3g]", sz, lo, hi)
		if d, _ := tensor.MaxDiff(got, want, 0, 0); d > 1e-4 {
			t.Errorf("%v: export differs from the checkpoint by %g", sz, d)
		} else {
			t.Logf("%v: paddle runtime vs the Go model: max abs diff %.3g", sz, d)
		}
		ortcheck.Compare(t, model2, map[string]*tensor.Tensor{"x": x}, ortcheck.Output{Name: "output", Want: want, Tol: 1e-4})
	}
	if nn.NumParams(model) == 0 {
		t.Fatal("no parameters")
	}
}
