package det

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddle/core/config"
	"paddle/core/hub"
	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// tinyRunner builds the tiny test config with numClasses classes, the given
// seed and extra top-level YAML, and trainDS as its TrainDataset when not
// empty, without opening any data set (build opens none).
func tinyRunner(t *testing.T, numClasses, seed int, extra, trainDS string) (*runner, string) {
	t.Helper()
	p := tinyConfig(t, t.TempDir(), tinyOpts{size: 64, epochs: 1, lightAug: true, extra: extra})
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	y := strings.Replace(string(b), "num_classes: 8\n", "num_classes: "+itoa(numClasses)+"\n", 1)
	y = strings.Replace(y, "seed: 3\n", "seed: "+itoa(seed)+"\n", 1)
	if trainDS != "" {
		i := strings.Index(y, "TrainDataset: ")
		j := i + strings.Index(y[i:], "\n")
		y = y[:i] + "TrainDataset: " + trainDS + y[j:]
	}
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := build(c)
	if err != nil {
		t.Fatal(err)
	}
	return r.(*runner), p
}

func f64(p nn.Param) []float64 { return p.V.T.Contiguous().Cast(tensor.Float64).F64() }

// TestPretrainWeights: pretrain_weights loads every tensor of a checkpoint
// trained for another number of classes (22 → 8 here, as the pretraining
// configs do, in small) whose name and shape match — backbone, neck, head
// towers, box convs and batch-norm statistics — and leaves the class convs
// at their own initial values.
func TestPretrainWeights(t *testing.T) {
	src, _ := tinyRunner(t, 22, 11, "", "")
	sm, err := src.newModel()
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range append(sm.Params(), sm.Buffers()...) { // values no fresh model has
		v := f64(b)
		for j := range v {
			v[j] += float64(1 + i%7)
		}
		b.V.T.CopyFrom(tensor.FromSlice(v, b.V.T.Shape()...).Cast(b.V.T.DType()))
	}
	dir := filepath.Join(t.TempDir(), "pre")
	if err := workflow.SaveCheckpoint(dir, sm, nil, workflow.State{}, nil); err != nil {
		t.Fatal(err)
	}
	r, _ := tinyRunner(t, 8, 3, "pretrain_weights: "+dir+"\n", "")
	m, err := r.newModel()
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := r.newModel()
	if err := r.loadPretrained(m); err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{}
	for _, p := range append(sm.Params(), sm.Buffers()...) {
		want[p.Name] = f64(p)
	}
	init := map[string][]float64{}
	for _, p := range append(fresh.Params(), fresh.Buffers()...) {
		init[p.Name] = f64(p)
	}
	var loaded, skipped int
	for _, p := range append(m.Params(), m.Buffers()...) {
		got := f64(p)
		if strings.HasPrefix(p.Name, "head.cls_out.") {
			skipped++
			if !slices.Equal(got, init[p.Name]) {
				t.Errorf("%s: the class conv (22 → 8 classes) was changed; want its initial values", p.Name)
			}
			continue
		}
		loaded++
		if !slices.Equal(got, want[p.Name]) {
			t.Errorf("%s: not loaded from the checkpoint", p.Name)
		}
		if slices.Equal(got, init[p.Name]) {
			t.Errorf("%s: pretrained and fresh values are equal: the test cannot tell them apart", p.Name)
		}
	}
	if skipped != 6 || loaded < 100 {
		t.Errorf("loaded %d, skipped %d tensors; want 6 skipped (3 levels × weight, bias) and the rest loaded", loaded, skipped)
	}
}

// TestPretrainConfigErrors: a pretrain_weights path that is not a
// checkpoint, a checkpoint of another model, an unknown class_set, and a
// class_set whose number of classes is not num_classes are errors naming
// the config file and key.
func TestPretrainConfigErrors(t *testing.T) {
	// Not a checkpoint folder: `det train` stops before reading any data (exit 2).
	missing := filepath.Join(t.TempDir(), "nope")
	_, p := tinyRunner(t, 8, 3, "pretrain_weights: "+missing+"\n", "")
	code, _, errOut := runPaddle(t, "det", "train", "-c", p, "--output", t.TempDir())
	if code != 2 || !strings.Contains(errOut, p) || !strings.Contains(errOut, "pretrain_weights") || !strings.Contains(errOut, missing) {
		t.Errorf("missing pretrain_weights: exit %d, stderr %q; want 2 naming the file, key and path", code, errOut)
	}
	// A checkpoint that shares no tensor with the model.
	other := filepath.Join(t.TempDir(), "other")
	lin, err := nn.NewLinear(nn.LinearOptions{In: 3, Out: 2}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := workflow.SaveCheckpoint(other, lin, nil, workflow.State{}, nil); err != nil {
		t.Fatal(err)
	}
	r, p := tinyRunner(t, 8, 3, "pretrain_weights: "+other+"\n", "")
	m, _ := r.newModel()
	if err := r.loadPretrained(m); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "no tensor matches") {
		t.Errorf("another model's checkpoint: err = %v", err)
	}

	for _, tc := range []struct {
		classes int
		set     string
		want    []string
	}{
		{8, "imagenet", []string{"TrainDataset", "class_set", `"imagenet"`, "default or pretrain"}},
		{8, "pretrain", []string{"num_classes is 8", "TrainDataset has 22 classes"}},
		{22, "default", []string{"num_classes is 22", "TrainDataset has 8 classes"}},
	} {
		r, p := tinyRunner(t, tc.classes, 3, "", "{name: SynthDataSet, class_set: "+tc.set+"}")
		_, _, err := r.loader(r.trainDS, r.train, true)
		if err == nil {
			t.Errorf("class_set %s with num_classes %d: no error", tc.set, tc.classes)
			continue
		}
		for _, w := range append(tc.want, filepath.Base(p)) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("class_set %s with num_classes %d: error %q lacks %q", tc.set, tc.classes, err, w)
			}
		}
	}
}

// TestSynthPretrainClassSet: on the real photos, `class_set: pretrain`
// composites the 22 classes (the 8 evaluated ones first, then the extra
// folders), also from the validation carve.
func TestSynthPretrainClassSet(t *testing.T) {
	realPhotos(t)
	r, _ := tinyRunner(t, 22, 3, "", "{name: SynthDataSet, class_set: pretrain, validation: true, samples: 40, size: 96}")
	l, ds, err := r.loader(r.trainDS, r.train, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Classes) != 22 || ds.Classes[0] != "mammal" || ds.Classes[8] != "other-animal" {
		t.Fatalf("classes %v: want the 8 default ones, then the 14 extra ones", ds.Classes)
	}
	extra := 0
	for b, err := range l.Epoch(t.Context(), 0) {
		if err != nil {
			t.Fatal(err)
		}
		for _, cs := range b.Classes {
			for _, c := range cs {
				if c < 0 || c >= 22 {
					t.Fatalf("class %d out of range", c)
				}
				if c >= 8 {
					extra++
				}
			}
		}
	}
	if extra == 0 {
		t.Error("40 images without an object of the 14 extra classes")
	}
}

// TestShippedConfigsBuild: every config under configs/det loads and builds
// (schema, model options), the pretraining and fine-tuning ones included.
func TestShippedConfigsBuild(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "configs", "det", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no configs: %v", err)
	}
	_, haveV4 := hub.Path("ppocrv4")
	for _, f := range files {
		if strings.HasSuffix(f, "_ppocrv4.yaml") && !haveV4 {
			continue // imports the model store's PP-OCRv4 (not pulled here)
		}
		c, err := config.Load(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		r, err := build(c)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if strings.Contains(f, "pretrain_stamps") && r.(*runner).numClasses != 22 {
			t.Errorf("%s: num_classes %d, want 22", f, r.(*runner).numClasses)
		}
		if strings.Contains(f, "finetune") && r.(*runner).pretrain == "" {
			t.Errorf("%s: no pretrain_weights", f)
		}
	}
}

// TestPretrainNotOnResume: --resume continues from its own checkpoint and
// does not read pretrain_weights (here a folder that does not exist, which
// without --resume is an error).
func TestPretrainNotOnResume(t *testing.T) {
	stamps, bgs := fakePhotos(t)
	set := filepath.Join(t.TempDir(), "set")
	if code, _, errOut := runPaddle(t, "det", "synth", "--output", set, "--train", "8", "--eval", "2", "--size", "64", "--seed", "2",
		"--stamps", stamps, "--backgrounds", bgs); code != 0 {
		t.Fatal(errOut)
	}
	cfg := tinyConfig(t, set, tinyOpts{size: 64, epochs: 2, lightAug: true})
	out := filepath.Join(t.TempDir(), "out")
	if code, _, errOut := runPaddle(t, "det", "train", "-c", cfg, "-o", "epoch=1", "--output", out); code != 0 {
		t.Fatalf("train: %s", errOut)
	}
	missing := "pretrain_weights=" + filepath.Join(t.TempDir(), "nope")
	code, _, errOut := runPaddle(t, "det", "train", "-c", cfg, "-o", missing, "--resume", filepath.Join(out, "latest"), "--output", out)
	if code != 0 {
		t.Errorf("resume with a missing pretrain_weights: exit %d, stderr %q; want it ignored", code, errOut)
	}
	if code, _, _ := runPaddle(t, "det", "train", "-c", cfg, "-o", missing, "--output", t.TempDir()); code != 2 {
		t.Errorf("train with a missing pretrain_weights: exit %d, want 2", code)
	}
}
