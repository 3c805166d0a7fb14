package clas

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/config"
	"paddle/core/serve"
	"paddle/core/workflow"
)

// TestServeAnswersPredictRecord serves a seeded checkpoint and checks that
// a request's answer is the record `clas predict` writes for the same image.
func TestServeAnswersPredictRecord(t *testing.T) {
	dir := t.TempDir()
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
	ck := filepath.Join(dir, "ck")
	if err := workflow.SaveCheckpoint(ck, m, nil, workflow.State{}, y); err != nil {
		t.Fatal(err)
	}
	img := filepath.Join("..", "ocr", "testdata", "images", "photo.png")
	code, out, errOut := paddle(t, "clas", "predict", "--weights", ck, "--format", "jsonl", img)
	if code != 0 {
		t.Fatalf("predict: exit %d\n%s", code, errOut)
	}
	var want Prediction
	if err := json.Unmarshal([]byte(out), &want); err != nil || len(want.TopK) != 3 {
		t.Fatalf("predict: %v %s", err, out)
	}

	ios, _, _, _ := iostreams.Test()
	cmd := &cobra.Command{}
	load := Serve(&cmdutil.Factory{IOStreams: ios}, cmd)
	cmd.Flags().Set("weights", ck)
	p, err := load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := os.ReadFile(img)
	got, err := p.Predict(context.Background(), serve.Input{Body: body, Name: img})
	if err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(want)
	if string(gb) != string(wb) {
		t.Errorf("served record\n%s\nwant predict's\n%s", gb, wb)
	}
	_, err = p.Predict(context.Background(), serve.Input{Body: []byte("not a png")})
	var ie *serve.InputError
	if !errors.As(err, &ie) {
		t.Errorf("broken image: err %v, want a serve.BadInput", err)
	}
}
