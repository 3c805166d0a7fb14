package dettrain

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"paddle/core/ag"
	"paddle/core/cli/iostreams"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/runtime"
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

// The export (model.onnx with a dynamic batch and the Eval split's fixed
// 96×160 size) computes the checkpoint's probability map within 1e-4.
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
	dir := t.TempDir()
	ckpt, exp := filepath.Join(dir, "ckpt"), filepath.Join(dir, "exp")
	if err := workflow.SaveCheckpoint(ckpt, model, nil, workflow.State{}, []byte(exportConfig)); err != nil {
		t.Fatal(err)
	}
	ios, _, _, _ := iostreams.Test()
	if err := r.(workflow.Exporter).Export(context.Background(), workflow.Env{IO: ios, Weights: ckpt}, exp); err != nil {
		t.Fatal(err)
	}
	inf, err := os.ReadFile(filepath.Join(exp, workflow.ExportInferenceFile))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("inference.yaml:\n%s", inf)
	p, err := runtime.Load(filepath.Join(exp, workflow.ExportModelFile), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	x := tensor.Randn(rng, tensor.Float32, 0, 1, 1, 3, 96, 160)
	outs, err := p.Run(map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	got := outs["output"]
	var want *tensor.Tensor
	ag.NoGrad(func() { want = model.Forward(ag.Const(x), false).T })
	if !got.Shape().Equal(tensor.Shape{1, 1, 96, 160}) {
		t.Fatalf("export output %v, want (1, 1, 96, 160)", got.Shape())
	}
	gv, wv := got.Contiguous().F32(), want.Contiguous().F32()
	worst := 0.0
	for i := range gv {
		worst = max(worst, math.Abs(float64(gv[i]-wv[i])))
	}
	if worst > 1e-4 {
		t.Errorf("export differs from the checkpoint by %g", worst)
	}
	if nn.NumParams(model) == 0 {
		t.Fatal("no parameters")
	}
}
