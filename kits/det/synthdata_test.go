package det

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/synth"
)

// TestSynthDataSet: a SynthDataSet training set composites a new image per
// (epoch, position) draw, the same one for the same draw, with boxes that
// are the compositor's; `det train` runs on it; a validation carve needs at
// least 2 training objects per class and says so.
func TestSynthDataSet(t *testing.T) {
	stamps, bgs := fakePhotos(t)
	set := filepath.Join(t.TempDir(), "set")
	if code, _, errOut := runPaddle(t, "det", "synth", "--output", set, "--train", "2", "--eval", "3", "--size", "64", "--seed", "2",
		"--stamps", stamps, "--backgrounds", bgs); code != 0 {
		t.Fatal(errOut)
	}
	cfgPath := tinyConfig(t, set, tinyOpts{size: 64, epochs: 1, lightAug: true, extra: "max_iters: 2\n"})
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	synthDS := "TrainDataset: {name: SynthDataSet, stamps_dir: " + stamps + ", backgrounds_dir: " + bgs +
		", samples: 16, size: 64, contrast: 0.3, saturation: 0.3, stretch: 0.2}"
	y := strings.Replace(string(b), "TrainDataset: {name: COCODataSet, dataset_dir: "+set+", anno_path: annotations/instances_train.json}", synthDS, 1)
	if y == string(b) {
		t.Fatal("config has no TrainDataset line to replace")
	}
	if err := os.WriteFile(cfgPath, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}

	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	var c config.Component
	if err := cfg.Decode("TrainDataset", &c); err != nil {
		t.Fatal(err)
	}
	p, err := buildPipeline(ReaderOpts{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := newSynthSource(c, p)
	if err != nil {
		t.Fatal(err)
	}
	if src.Len() != 16 {
		t.Errorf("Len = %d, want 16 (samples)", src.Len())
	}
	a, _, err := src.GetRand(3, data.SampleRand(1, 0, 3))
	if err != nil {
		t.Fatal(err)
	}
	again, _, _ := src.GetRand(3, data.SampleRand(1, 0, 3))
	next, _, _ := src.GetRand(3, data.SampleRand(1, 1, 3)) // epoch 1
	if !bytes.Equal(a.Img.Pix, again.Img.Pix) {
		t.Error("the same draw gave another image")
	}
	if bytes.Equal(a.Img.Pix, next.Img.Pix) {
		t.Error("the next epoch gave the same image")
	}
	g := src.lib.Generate(synth.Train, 3, func() synth.Options { o := src.o; o.Seed = data.SampleRand(1, 0, 3).Uint64(); return o }())
	if a.Img.W != 64 || a.Img.H != 64 || len(a.Boxes) != len(g.Objects) || len(a.Boxes) == 0 {
		t.Fatalf("sample %dx%d with %d boxes, compositor %d objects", a.Img.W, a.Img.H, len(a.Boxes), len(g.Objects))
	}
	for k, ob := range g.Objects {
		if a.Boxes[k] != ob.Box || a.Classes[k] != ob.Class || a.Rec.Objects[k].Box != ob.Box {
			t.Errorf("box %d: %v class %d, want %v class %d", k, a.Boxes[k], a.Classes[k], ob.Box, ob.Class)
		}
	}

	out := filepath.Join(t.TempDir(), "out")
	if code, _, errOut := runPaddle(t, "det", "train", "-c", cfgPath, "--output", out); code != 0 {
		t.Fatalf("train on SynthDataSet: %s", errOut)
	}
	code, _, errOut := runPaddle(t, "det", "train", "-c", cfgPath, "-o", "TrainDataset.validation=true", "--output", filepath.Join(t.TempDir(), "out2"))
	if code == 0 || !strings.Contains(errOut, "validation split of the training objects") {
		t.Errorf("validation carve of 1 training object per class: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runPaddle(t, "det", "eval", "-c", cfgPath, "-o", "EvalDataset.name=SynthDataSet", "--weights", filepath.Join(out, "latest"))
	if code == 0 || !strings.Contains(errOut, "for training only") {
		t.Errorf("eval on a SynthDataSet: exit %d, stderr %q", code, errOut)
	}
}
