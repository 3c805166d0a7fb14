package det

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/config"
	"paddle/core/serve"
	"paddle/core/workflow"
)

// TestServeAnswersPredictRecord serves a seeded checkpoint and checks that
// a request's answer is the record `det predict` writes for the same image.
func TestServeAnswersPredictRecord(t *testing.T) {
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
	img := filepath.Join("..", "ocr", "testdata", "images", "photo.png")
	// Every anchor scores above 0.001: an untrained model detects something.
	overrides := []string{"draw_threshold=0.0", "PicoHeadV2.nms.score_threshold=0.001"}
	args := []string{"det", "predict", "--weights", ck, "--format", "jsonl"}
	for _, o := range overrides {
		args = append(args, "-o", o)
	}
	code, out, errOut := runPaddle(t, append(args, img)...)
	if code != 0 {
		t.Fatalf("predict: exit %d\n%s", code, errOut)
	}
	var want Prediction
	if err := json.Unmarshal([]byte(out), &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Detections) == 0 {
		t.Fatalf("predict found nothing; the comparison would prove little\n%s\n%s", out, errOut)
	}

	ios, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Settings: cmdutil.Settings{Overrides: overrides}}
	cmd := &cobra.Command{}
	load := Serve(f, cmd)
	if _, err := load(context.Background()); err == nil || !strings.Contains(err.Error(), "give one of --model") {
		t.Errorf("no model: err %v", err)
	}
	cmd.Flags().Set("weights", ck)
	p, err := load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
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
