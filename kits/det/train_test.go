package det

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/config"
	"paddle/core/synth"
	"paddle/core/workflow"
)

// realPhotos returns the cached stamps and backgrounds folders
// (scripts/fetch_det_data.sh), or skips.
func realPhotos(t *testing.T) (stamps, bgs string) {
	t.Helper()
	stamps, bgs = synth.DefaultPaths()
	for _, d := range []string{stamps, bgs} {
		if _, err := os.Stat(d); err != nil {
			t.Skipf("real photos not in the cache (%s): run scripts/fetch_det_data.sh", d)
		}
	}
	return stamps, bgs
}

// TestTrainSynth trains a tiny PicoDet (LCNet x0.35, 48 channels) from
// scratch for 200 steps (AdamW, batches of 8, 96-160 px multi-scale, flips)
// on 24 composited images of real photo cut-outs, through the commands
// (train, then eval -c --weights --format json), and checks the COCO mAP it
// reaches on those images: a short test can show the detector learns (fits
// its training set), not that it generalises — docs/det.md has the held-out
// numbers of the full run.
//
// Measured (seed 3, 2 threads): untrained mAP 0.0000 / AP50 0.0000; after
// 200 steps mAP 0.1873 / AP50 0.3201. Floors halfway: 0.09 and 0.16.
func TestTrainSynth(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for ~30 s of CPU")
	}
	stamps, bgs := realPhotos(t)
	set := filepath.Join(t.TempDir(), "set")
	if code, _, errOut := runPaddle(t, "det", "synth", "--output", set, "--train", "24", "--eval", "4", "--size", "128", "--seed", "3",
		"--stamps", stamps, "--backgrounds", bgs); code != 0 {
		t.Fatal(errOut)
	}
	cfg := tinyConfig(t, set, tinyOpts{size: 128, epochs: 67, adamw: true, onTrain: true, lightAug: true, extra: "max_iters: 200\n"})
	eval := func(weights string) EvalReport {
		t.Helper()
		code, stdout, errOut := runPaddle(t, "det", "eval", "-c", cfg, "--weights", weights, "--format", "json")
		if code != 0 {
			t.Fatalf("eval: %s", errOut)
		}
		var rep EvalReport
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("%v: %q", err, stdout)
		}
		return rep
	}
	// The untrained model, saved as a checkpoint.
	c, err := config.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	wr, err := build(c)
	if err != nil {
		t.Fatal(err)
	}
	m0, err := wr.(*runner).newModel()
	if err != nil {
		t.Fatal(err)
	}
	init := filepath.Join(t.TempDir(), "init")
	if err := workflow.SaveCheckpoint(init, m0, nil, workflow.State{}, nil); err != nil {
		t.Fatal(err)
	}
	before := eval(init)
	out := filepath.Join(t.TempDir(), "out")
	if code, _, errOut := runPaddle(t, "det", "train", "-c", cfg, "--output", out); code != 0 {
		t.Fatalf("train: %s", errOut)
	}
	after := eval(filepath.Join(out, "latest"))
	t.Logf("untrained: mAP %.4f AP50 %.4f; after 200 steps: mAP %.4f AP50 %.4f AP75 %.4f AR100 %.4f",
		before.Stats[0], before.Stats[1], after.Stats[0], after.Stats[1], after.Stats[2], after.Stats[8])
	if after.Stats[1] < 0.16 || after.Stats[0] < 0.09 {
		t.Errorf("AP50 %.4f, mAP %.4f: below the floors", after.Stats[1], after.Stats[0])
	}

	// Training keeps the class names beside the checkpoints, so predict
	// names classes even when the data set is gone.
	want, err := os.ReadFile(filepath.Join(set, "label_list.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(out, labelListFile)); err != nil || string(got) != string(want) {
		t.Fatalf("%s = %q (%v), want %q", labelListFile, got, err, want)
	}
	img := filepath.Join(t.TempDir(), "a.jpg")
	if b, err := os.ReadFile(filepath.Join(set, "images", "eval", "000000.jpg")); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(img, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(set); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut := runPaddle(t, "det", "predict", "--weights", filepath.Join(out, "latest"), "-o", "draw_threshold=0", img)
	if code != 0 {
		t.Fatalf("predict without the data set: %s", errOut)
	}
	var pred struct {
		Detections []struct{ Label string } `json:"detections"`
	}
	if err := json.Unmarshal([]byte(stdout), &pred); err != nil || len(pred.Detections) == 0 {
		t.Fatalf("predict: %v %q", err, stdout)
	}
	if l := pred.Detections[0].Label; !strings.Contains(string(want), l+"\n") {
		t.Errorf("label %q is not a class name of %q", l, want)
	}
}
