package seg

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image/png"
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

// TestServeAnswersPredictRecord serves a seeded checkpoint: the answer is
// predict's record for the same image, with the label map PNG inline,
// equal to the file predict wrote.
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
	img := filepath.Join("..", "ocr", "testdata", "images", "line.png")
	code, out, errOut := runPaddle(t, "seg", "predict", "--weights", ck, "--output", filepath.Join(dir, "out"), "--format", "jsonl", img)
	if code != 0 {
		t.Fatalf("predict: exit %d\n%s", code, errOut)
	}
	var want Prediction
	if err := json.Unmarshal([]byte(out), &want); err != nil {
		t.Fatal(err)
	}
	wantPNG, err := os.ReadFile(want.LabelMap)
	if err != nil {
		t.Fatal(err)
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
	v, err := p.Predict(context.Background(), serve.Input{Body: body, Name: img})
	if err != nil {
		t.Fatal(err)
	}
	got := v.(Prediction)
	b64, ok := strings.CutPrefix(got.LabelMap, "data:image/png;base64,")
	if !ok {
		t.Fatalf("label_map %.40q is not a PNG data URL", got.LabelMap)
	}
	gotPNG, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	gi, err1 := png.Decode(bytes.NewReader(gotPNG))
	wi, err2 := png.Decode(bytes.NewReader(wantPNG))
	if err1 != nil || err2 != nil || gi.Bounds() != wi.Bounds() {
		t.Fatalf("label maps: %v %v", err1, err2)
	}
	for y := gi.Bounds().Min.Y; y < gi.Bounds().Max.Y; y++ {
		for x := gi.Bounds().Min.X; x < gi.Bounds().Max.X; x++ {
			if gi.At(x, y) != wi.At(x, y) {
				t.Fatalf("label maps differ at (%d, %d)", x, y)
			}
		}
	}
	got.LabelMap, want.LabelMap = "", ""
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
