package seg

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/synth"
)

// synthComponent parses a SynthDataset component from YAML.
func synthComponent(t *testing.T, body string) config.Component {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "c.yaml")
	if !strings.Contains(body, "num_classes:") {
		body = "  num_classes: 9\n" + body
	}
	if err := os.WriteFile(p, []byte("model: {type: UNet}\ntrain_dataset:\n  type: SynthDataset\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(Schema()); err != nil {
		t.Fatal(err)
	}
	var c config.Component
	if err := cfg.Decode("train_dataset", &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// synthLibsOrSkip loads the compositor's photos, skipping when absent.
func synthLibsOrSkip(t *testing.T) *synthLibs {
	t.Helper()
	l, err := loadSynthLibs("", "", "")
	if err != nil {
		t.Skipf("compositor photos not found (%v): run scripts/fetch_det_data.sh", err)
	}
	return l
}

// The eval split equals the images and masks `seg synth` writes (same
// options), byte for byte after the same JPEG round trip.
func TestSynthDatasetEvalMatchesWritten(t *testing.T) {
	libs := synthLibsOrSkip(t)
	dir := t.TempDir()
	if err := synth.Write(dir, libs.full, synth.WriteOptions{
		Options: synth.Options{Size: 64, Seed: 5, MinObjects: 1, MaxObjects: 4}, Eval: 3, Workers: 1,
	}); err != nil {
		t.Fatal(err)
	}
	pairs, err := ReadFileList(filepath.Join(dir, "seg_eval.txt"), ListOptions{DatasetRoot: dir, NeedLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSynthSet(synthComponent(t, "  split: eval\n  size: 64\n  seed: 5\n  length: 3\n"), 9)
	if err != nil {
		t.Fatal(err)
	}
	s.tr = data.Compose[item]() // compare the raw composite
	for i, p := range pairs {
		want, err := LoadSample(p, 9, 255)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(i)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Img.Pix, want.Image.Pix) || !bytes.Equal(got.Lab.Pix, want.Label.Pix) {
			t.Fatalf("composite %d differs from the written %s", i, p.Image)
		}
	}
}

// Training draws a new composite every epoch; val and eval are fixed; the
// carved validation objects are training objects, absent from the holdout
// training split and from the eval split.
func TestSynthDatasetSplits(t *testing.T) {
	libs := synthLibsOrSkip(t)
	names := func(l *synth.Library, s synth.Split) map[string]bool {
		m := map[string]bool{}
		for _, cl := range l.Stamps[s] {
			for _, st := range cl {
				m[st.Name] = true
			}
		}
		return m
	}
	train, eval := names(libs.full, synth.Train), names(libs.full, synth.Eval)
	val, rest := names(libs.carved, synth.Eval), names(libs.carved, synth.Train)
	if len(val) == 0 || len(rest) == 0 {
		t.Fatalf("carved split: %d val, %d train objects", len(val), len(rest))
	}
	for n := range val {
		if !train[n] || rest[n] || eval[n] {
			t.Fatalf("val object %s: in train %v, in holdout train %v, in eval %v", n, train[n], rest[n], eval[n])
		}
	}
	if len(val)+len(rest) != len(train) {
		t.Fatalf("%d val + %d holdout train objects, want %d", len(val), len(rest), len(train))
	}
	for c, cl := range libs.carved.Stamps[synth.Eval] {
		if len(cl) == 0 {
			t.Fatalf("class %s has no validation object", libs.full.Classes[c])
		}
	}
	mk := func(body string) *synthSet {
		s, err := newSynthSet(synthComponent(t, body), 9)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tr := mk("  split: train\n  holdout: true\n  size: 48\n  length: 2\n")
	a, _, _ := tr.GetRand(0, data.SampleRand(1, 0, 0))
	b, _, _ := tr.GetRand(0, data.SampleRand(1, 1, 0))
	if a.X.Shape()[1] != 48 || a.Path == b.Path {
		t.Fatalf("training draws: %v %s, %s (want 48 px and two different composites)", a.X.Shape(), a.Path, b.Path)
	}
	v := mk("  split: val\n  size: 48\n  length: 2\n")
	a, _, _ = v.GetRand(1, data.SampleRand(1, 0, 1))
	b, _, _ = v.GetRand(1, data.SampleRand(1, 1, 1))
	if a.Path != b.Path || !equalF32(a.X.F32(), b.X.F32()) {
		t.Fatalf("val composite 1 changed between epochs: %s, %s", a.Path, b.Path)
	}
}

func equalF32(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSynthDatasetErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"  split: test\n", `split "test"`},
		{"  split: val\n  holdout: true\n", "holdout applies to split train only"},
		{"  size: 16\n", "size ≥ 32"},
		{"  min_objects: 3\n  max_objects: 2\n", "min_objects 3 max_objects 2"},
		{"  class_set: imagenet\n", `class_set "imagenet": want default (the 8 classes) or pretrain`},
		{"  class_set: pretrain\n", "num_classes is 9 but class_set pretrain has 22 classes plus background (num_classes 23)"},
	} {
		_, err := decodeSynthOpts(synthComponent(t, tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.body, err, tc.want)
		}
	}
	synthLibsOrSkip(t)
	if _, err := newSynthSet(synthComponent(t, ""), 3); err == nil || !strings.Contains(err.Error(), "num_classes is 3 but class_set default has 8 classes") {
		t.Errorf("num_classes 3: got %v", err)
	}
}

// `seg train` and `seg eval` run on SynthDataset splits end to end (the
// wiring; what training on them reaches is in docs/seg.md).
func TestTrainOnSynthDataset(t *testing.T) {
	synthLibsOrSkip(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "c.yaml")
	body := `batch_size: 2
iters: 4
seed: 3
num_workers: 0
train_dataset:
  type: SynthDataset
  num_classes: 9
  holdout: true
  length: 4
  size: 48
  transforms: [{type: RandomHorizontalFlip}, {type: Normalize}]
val_dataset: {type: SynthDataset, num_classes: 9, split: val, length: 3, size: 48}
optimizer: {type: AdamW, weight_decay: 0.01}
lr_scheduler: {type: Constant, learning_rate: 0.001}
loss: {types: [{type: CrossEntropyLoss}], coef: [1, 1, 1]}
model:
  type: PPLiteSeg
  backbone: {type: STDC1, base: 8, layers: [1, 1, 1]}
  arm_out_chs: [8, 8, 8]
  seg_head_inter_chs: [8, 8, 8]
  cm_out_ch: 8
`
	if err := os.WriteFile(cfgPath, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if code, _, errOut := runPaddle(t, "seg", "train", "-c", cfgPath, "--output", out); code != 0 {
		t.Fatalf("train: %s", errOut)
	}
	if e := evalOf(t, "-c", cfgPath, "--weights", filepath.Join(out, "latest")); e.Images != 3 || e.MIoU <= 0 {
		t.Fatalf("eval on the val split: %+v, want 3 images and a positive mIoU", e)
	}
	// a second run starts from the first (model.pretrained, same classes:
	// every tensor loads); resuming it does not load them again
	out2 := filepath.Join(dir, "out2")
	code, _, errOut := runPaddle(t, "seg", "train", "-c", cfgPath, "-o", "model.pretrained="+filepath.Join(out, "latest"), "-o", "iters=2", "--output", out2)
	if code != 0 || !strings.Contains(errOut, "pretrained weights") || !strings.Contains(errOut, "skipped=0") {
		t.Fatalf("train from pretrained: exit %d, log:\n%s", code, errOut)
	}
	code, _, errOut = runPaddle(t, "seg", "train", "-c", cfgPath, "-o", "model.pretrained="+filepath.Join(out, "latest"), "--resume", filepath.Join(out2, "latest"), "--output", out2)
	if code != 0 || strings.Contains(errOut, "msg=\"pretrained weights\"") || !strings.Contains(errOut, "resuming: model.pretrained") {
		t.Fatalf("resume: exit %d, log:\n%s", code, errOut)
	}
	code, _, errOut = runPaddle(t, "seg", "train", "-c", cfgPath, "-o", "model.pretrained="+filepath.Join(dir, "none"), "--output", out2)
	if code == 0 || !strings.Contains(errOut, "c.yaml: model.pretrained:") {
		t.Fatalf("missing pretrained folder: exit %d, log:\n%s", code, errOut)
	}
}

// class_set: pretrain has the 8 classes first, then 14 more; its training
// and carved validation objects of the 8 classes are exactly the default
// set's, so pretraining with holdout: true never shows a validation (or
// eval) object of the 8 classes.
func TestSynthDatasetPretrainClassSet(t *testing.T) {
	def := synthLibsOrSkip(t)
	pre, err := loadSynthLibs("pretrain", "", "")
	if err != nil {
		t.Skipf("pretraining stamps not found (%v): run scripts/fetch_det_data.sh", err)
	}
	if len(pre.full.Classes) != 22 {
		t.Fatalf("pretrain classes: %d, want 22", len(pre.full.Classes))
	}
	names := func(l *synth.Library, s synth.Split, c int) []string {
		var out []string
		for _, st := range l.Stamps[s][c] {
			out = append(out, st.Name)
		}
		return out
	}
	for c := range def.full.Classes {
		for _, l := range []struct {
			what     string
			def, pre *synth.Library
		}{{"full", def.full, pre.full}, {"carved", def.carved, pre.carved}} {
			for s := range 2 {
				a, b := names(l.def, synth.Split(s), c), names(l.pre, synth.Split(s), c)
				if !slices.Equal(a, b) {
					t.Errorf("%s %s %s: default %v, pretrain %v", l.what, synth.Split(s), def.full.Classes[c], a, b)
				}
			}
		}
	}
	if !slices.Equal(def.carved.BgNames[synth.Eval], pre.carved.BgNames[synth.Eval]) {
		t.Error("carved validation photos differ between the class sets")
	}
	s, err := newSynthSet(synthComponent(t, "  class_set: pretrain\n  num_classes: 23\n  size: 48\n  length: 1\n"), 23)
	if err != nil {
		t.Fatal(err)
	}
	it, _, err := s.GetRand(0, data.SampleRand(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range it.Lab.Pix {
		if v > 22 && v != 255 {
			t.Fatalf("label %d outside 0..22", v)
		}
	}
}
