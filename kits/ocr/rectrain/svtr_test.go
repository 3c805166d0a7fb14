package rectrain

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"paddle/core/ag"
	"paddle/core/cli/iostreams"
	"paddle/core/config"
	"paddle/core/runtime"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// svtrConfig is a small SVTR-tiny style recogniser for the digit lines of
// render (%[1]d: input channels, %[2]s: the data folder, %[3]s: the decode mode).
const svtrConfig = `
Global:
  epoch_num: %[4]d
  print_batch_step: 50
  max_text_length: 8
  seed: 3
Architecture:
  model_type: rec
  algorithm: SVTR
  Backbone:
    name: SVTRNet
    in_channels: %[1]d
    embed_dim: [32, 64]
    depth: [1, 2]
    num_heads: [2, 4]
    mixer: [Conv, Global, Global]
    mlp_ratio: 2
    out_channels: 64
  Neck: {name: SequenceEncoder, encoder_type: reshape}
  Head: {name: CTCHead}
Loss: {name: CTCLoss}
Optimizer:
  name: Adam
  clip_norm: 5
  lr: {name: Const, learning_rate: 0.003}
PostProcess: {name: CTCLabelDecode}
Metric: {name: RecMetric, main_indicator: acc}
Train:
  dataset:
    name: SimpleDataSet
    data_dir: %[2]s/train
    label_file_list: [%[2]s/train/rec_gt.txt]
    transforms:
      - DecodeImage: {img_mode: %[3]s}
      - CTCLabelEncode:
      - RecResizeImg: {image_shape: [%[1]d, 32, 80]}
  loader: {shuffle: true, batch_size_per_card: 16, drop_last: true, num_workers: 1}
Eval:
  dataset:
    name: SimpleDataSet
    data_dir: %[2]s/eval
    label_file_list: [%[2]s/eval/rec_gt.txt]
    transforms:
      - DecodeImage: {img_mode: %[3]s}
      - CTCLabelEncode:
      - RecResizeImg: {image_shape: [%[1]d, 32, 80]}
  loader: {batch_size_per_card: 100}
`

func svtrRunner(t *testing.T, channels int, dir string, epochs int) *runner {
	t.Helper()
	mode := map[int]string{1: "GRAY", 3: "BGR"}[channels]
	cfg, err := config.Parse("ocr", "svtr.yaml", []byte(fmt.Sprintf(svtrConfig, channels, dir, mode, epochs)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r.(*runner)
}

// An untrained SVTR model gives logits (T = W/4, N, K); its export runs in
// paddle's runtime and ONNX Runtime at another batch and width and matches the Go forward
// (the width stays dynamic through the token reshapes and the attention).
func TestSVTRExportMatchesForward(t *testing.T) {
	dir := t.TempDir()
	r := svtrRunner(t, 3, dir, 1)
	model, err := r.newModel()
	if err != nil {
		t.Fatal(err)
	}
	// untrained, the probabilities are all near 1/K: sharpen them so the check means something
	fc := model.(*CRNN).FC.Weight.T.F32()
	for i := range fc {
		fc[i] *= 40
	}
	ckpt := filepath.Join(dir, "ckpt")
	y, _ := r.cfg.YAML()
	if err := workflow.SaveCheckpoint(ckpt, model, nil, workflow.State{}, y); err != nil {
		t.Fatal(err)
	}
	exp := filepath.Join(dir, "exp")
	ios, _, _, _ := iostreams.Test()
	if err := r.Export(context.Background(), workflow.Env{IO: workflow.IO{In: ios.In, Out: ios.Out}, Weights: ckpt}, exp); err != nil {
		t.Fatal(err)
	}
	x := tensor.Rand(rand.New(rand.NewPCG(5, 6)), tensor.Float32, -1, 1, 3, 3, 32, 104)
	var logits, want *tensor.Tensor
	ag.NoGrad(func() {
		l := model.Forward(ag.Const(x), false)
		logits, want = l.T, exportHead(l).T.Contiguous()
	})
	if s := logits.Shape(); s[0] != 26 || s[1] != 3 || s[2] != 37 {
		t.Fatalf("logits %v, want (T=26, N=3, K=37)", s)
	}
	p, err := runtime.Load(filepath.Join(exp, workflow.ExportModelFile), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Run(map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := tensor.MaxDiff(got[ExportOutput], want, 0, 0)
	t.Logf("SVTR export in paddle's runtime vs Go forward: max abs diff %.3g", d)
	if d > 1e-5 {
		t.Errorf("export differs by %g", d)
	}
	checkORT(t, exp, ExportOutput, x, want)
}
