package clas

import (
	"os"
	"path/filepath"
	"testing"

	"paddle/core/cli/clitest"
	"paddle/core/config"
	"paddle/core/workflow"
)

// goldenConfig is a small PP-LCNet whose Infer section reads any image.
const goldenConfig = `Global: {epochs: 1, class_num: 4, image_shape: [3, 16, 16], seed: 7}
Arch: {name: PPLCNet, scale: 0.25, small_input: true, class_expand: 32}
Optimizer: {name: Adam, lr: {name: Const, learning_rate: 0.001}}
DataLoader:
  Train:
    dataset: {name: Digits, split: train}
    sampler: {batch_size: 8}
Infer:
  transforms:
    - DecodeImage: {to_rgb: true}
    - ResizeImage: {size: [16, 16]}
    - NormalizeImage: {scale: 0.00392157, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225]}
    - ToCHWImage:
  PostProcess: {name: Topk, topk: 3}
`

// TestPredictGolden pins the records of `clas predict` (an untrained,
// seeded model; the shipped OCR test images; a broken file) in
// testdata/golden/predict.jsonl (-update rewrites it).
func TestPredictGolden(t *testing.T) {
	dir, ck := goldenCheckpoint(t)
	bad := filepath.Join(dir, "broken.png")
	os.WriteFile(bad, []byte("not a png"), 0o644)
	img := func(n string) string { return filepath.Join("..", "ocr", "testdata", "images", n) }
	code, out, errOut := paddle(t, "clas", "predict", "--weights", ck, "--format", "jsonl", img("line.png"), bad, img("photo.png"))
	if code != 1 {
		t.Fatalf("exit %d, want 1 (one broken input):\n%s", code, errOut)
	}
	clitest.Golden(t, filepath.Join("testdata", "golden", "predict.jsonl"), out, map[string]string{dir: "$TMP"})
}

// goldenCheckpoint saves goldenConfig's untrained model as a checkpoint in
// a temporary folder dir and returns dir and the checkpoint's folder.
func goldenCheckpoint(t *testing.T) (dir, ck string) {
	t.Helper()
	dir = t.TempDir()
	cfgPath := filepath.Join(dir, "golden.yaml")
	os.WriteFile(cfgPath, []byte(goldenConfig), 0o644)
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	r, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.(*runner).newModel()
	if err != nil {
		t.Fatal(err)
	}
	y, _ := cfg.YAML()
	ck = filepath.Join(dir, "ck")
	if err := workflow.SaveCheckpoint(ck, m, nil, workflow.State{}, y); err != nil {
		t.Fatal(err)
	}
	return dir, ck
}
