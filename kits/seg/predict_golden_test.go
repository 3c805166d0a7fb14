package seg

import (
	"os"
	"path/filepath"
	"testing"

	"paddle/core/cli/clitest"
	"paddle/core/config"
	"paddle/core/workflow"
)

// TestPredictGolden pins the records of `seg predict` (an untrained, seeded
// model; the shipped OCR test images; a broken file) in
// testdata/golden/predict.jsonl (-update rewrites it).
func TestPredictGolden(t *testing.T) {
	dir := t.TempDir()
	cfg, err := config.Load(goldenConfigFile, goldenOverrides...)
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
	ck := filepath.Join(dir, "ck")
	if err := workflow.SaveCheckpoint(ck, m, nil, workflow.State{}, y); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "broken.png")
	os.WriteFile(bad, []byte("not a png"), 0o644)
	img := func(n string) string { return filepath.Join("..", "ocr", "testdata", "images", n) }
	code, out, errOut := runPaddle(t, append([]string{"seg", "predict", "--weights", ck, "--output", filepath.Join(dir, "out"), "--format", "jsonl"},
		append(goldenPredictArgs, img("line.png"), bad, img("photo.png"))...)...)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (one broken input):\n%s", code, errOut)
	}
	clitest.Golden(t, filepath.Join("testdata", "golden", "predict.jsonl"), out, map[string]string{dir: "$TMP"})
}

var (
	goldenConfigFile  = "../../configs/seg/unet_synth.yaml"
	goldenOverrides   = []string{}
	goldenPredictArgs = []string{}
)
