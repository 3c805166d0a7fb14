package clas

import (
	"bufio"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/metric"
	"paddle/core/op"
	"paddle/core/runtime"
	"paddle/core/runtime/ortcheck"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

func readJSONL(t *testing.T, s string) []Prediction {
	t.Helper()
	var out []Prediction
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		var p Prediction
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, p)
	}
	return out
}

// A LeNet trained a few epochs on the digits exports; predict --model on the
// export gives the checkpoint's top-1 on the PNGs; the exported graph, run
// by paddle's runtime and by ONNX Runtime, matches the Go model's eval
// forward (≤ 1e-5 and ≤ 1e-4) at a batch size other than the traced one.
func TestExportAndPredictModel(t *testing.T) {
	needDigits(t)
	dir := t.TempDir()
	out, exp, ds := filepath.Join(dir, "out"), filepath.Join(dir, "exp"), filepath.Join(dir, "ds")
	if code, _, errOut := paddle(t, "clas", "train", "-c", "clas/lenet_digits.yaml", "--output", out,
		"-o", "Global.epochs=3", "-o", "Global.eval_interval=3"); code != 0 {
		t.Fatalf("train: %s", errOut)
	}
	if code, _, errOut := paddle(t, "clas", "dataset", "digits", "--output", ds); code != 0 {
		t.Fatalf("dataset: %s", errOut)
	}
	code, stdout, errOut := paddle(t, "clas", "export", "--weights", filepath.Join(out, "best"), "--output", exp)
	if code != 0 || strings.TrimSpace(stdout) != exp {
		t.Fatalf("export exit %d: %q\n%s", code, stdout, errOut)
	}
	for _, f := range []string{"model.onnx", "inference.yaml", "config.yaml"} {
		if _, err := os.Stat(filepath.Join(exp, f)); err != nil {
			t.Fatal(err)
		}
	}
	inf, err := os.ReadFile(filepath.Join(exp, "inference.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"model_name: LeNet", "name: Topk", "shape: [-1, 1, 8, 8]", "- ResizeImage:", "- NormalizeImage:"} {
		if !strings.Contains(string(inf), want) {
			t.Errorf("inference.yaml lacks %q:\n%s", want, inf)
		}
	}

	list, err := ReadList(filepath.Join(ds, "test_list.txt"), ds, "")
	if err != nil {
		t.Fatal(err)
	}
	var imgs []string
	for _, it := range list[:40] {
		imgs = append(imgs, it.Path)
	}
	code, fromWeights, errOut := paddle(t, append([]string{"clas", "predict", "--weights", filepath.Join(out, "best")}, imgs...)...)
	if code != 0 {
		t.Fatalf("predict --weights: %s", errOut)
	}
	code, fromModel, errOut := paddle(t, append([]string{"clas", "predict", "--model", exp}, imgs...)...)
	if code != 0 {
		t.Fatalf("predict --model: %s", errOut)
	}
	pw, pm := readJSONL(t, fromWeights), readJSONL(t, fromModel)
	if len(pw) != len(imgs) || len(pm) != len(imgs) {
		t.Fatalf("%d and %d predictions for %d images", len(pw), len(pm), len(imgs))
	}
	classes := map[int]bool{}
	for i := range pw {
		a, b := pw[i].TopK[0], pm[i].TopK[0]
		classes[a.ClassID] = true
		if a.ClassID != b.ClassID || a.Score-b.Score > 2e-5 || b.Score-a.Score > 2e-5 {
			t.Errorf("%s: --weights top-1 %+v, --model %+v", imgs[i], a, b)
		}
	}
	if len(classes) < 3 {
		t.Errorf("top-1 classes %v: the model predicts too few classes for the comparison to mean much", classes)
	}
	if code, _, errOut := paddle(t, "clas", "predict", "--weights", filepath.Join(out, "best"), "--model", exp, imgs[0]); code != 2 {
		t.Errorf("--weights with --model: exit %d, want 2\n%s", code, errOut)
	}
	if code, _, errOut := paddle(t, "clas", "predict", "--model", filepath.Join(out, "best"), imgs[0]); code == 0 || !strings.Contains(errOut, "export directory") {
		t.Errorf("--model on a checkpoint: exit %d\n%s", code, errOut)
	}
	checkExportNumerics(t, out, exp, imgs[:13])
	qexp := checkQuantizedExport(t, out, ds, imgs, pm)
	float, int8 := top1Accuracy(t, exp, list), top1Accuracy(t, qexp, list)
	t.Logf("test set (%d images): top-1 accuracy float %.4f, int8 %.4f", len(list), float, int8)
	if math.Abs(float-int8) > 0.005 {
		t.Errorf("int8 moves the test top-1 accuracy from %.4f to %.4f (want within 0.005)", float, int8)
	}
}

// top1Accuracy runs the export dir on every item as predict --model does.
func top1Accuracy(t *testing.T, dir string, items []Item) float64 {
	c, err := (&runner{}).loadExport(workflow.Env{Model: dir})
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for _, it := range items {
		s := Sample{Path: it.Path}
		if err := c.prepare(&s); err != nil {
			t.Fatal(err)
		}
		p, err := c.classify(s.X.Reshape(append([]int{1}, s.X.Shape()...)...))
		if err != nil {
			t.Fatal(err)
		}
		if metric.Argmax(p) == it.Label {
			right++
		}
	}
	return float64(right) / float64(len(items))
}

// checkQuantizedExport exports the checkpoint again with --quantize,
// calibrated on 32 training images (a list file): the model runs int8
// ops, keeps the float export's top-1 on (nearly) all the test images, and
// ONNX Runtime's probabilities on the QDQ file equal paddle's within one
// output quantization step's worth (the ops after the last quantized node
// are float: 1e-4).
func checkQuantizedExport(t *testing.T, ckpt, ds string, imgs []string, float []Prediction) string {
	train, err := ReadList(filepath.Join(ds, "train_list.txt"), ds, "")
	if err != nil {
		t.Fatal(err)
	}
	var cal []string
	for _, it := range train[:32] {
		cal = append(cal, it.Path)
	}
	calList := filepath.Join(t.TempDir(), "calib.txt")
	if err := os.WriteFile(calList, []byte(strings.Join(cal, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	qexp := filepath.Join(t.TempDir(), "qexp")
	if code, _, errOut := paddle(t, "clas", "export", "--weights", filepath.Join(ckpt, "best"), "--output", qexp,
		"--quantize", "--calib", calList); code != 0 {
		t.Fatalf("export --quantize: %s", errOut)
	}
	if code, _, errOut := paddle(t, "clas", "export", "--weights", filepath.Join(ckpt, "best"), "--output", qexp,
		"--calib", calList); code != 2 || !strings.Contains(errOut, "--quantize") {
		t.Errorf("--calib without --quantize: exit %d, %s", code, errOut)
	}
	p, err := runtime.Load(filepath.Join(qexp, "model.onnx"), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	nq := 0
	for _, n := range p.Graph().Nodes {
		if n.Op.Name == "qconv2d" || n.Op.Name == "qgemm" {
			nq++
		}
	}
	if nq == 0 {
		t.Fatal("the quantized export runs no int8 conv or gemm")
	}
	code, out, errOut := paddle(t, append([]string{"clas", "predict", "--model", qexp}, imgs...)...)
	if code != 0 {
		t.Fatalf("predict --model (int8): %s", errOut)
	}
	q := readJSONL(t, out)
	same := 0
	for i := range q {
		if q[i].TopK[0].ClassID == float[i].TopK[0].ClassID {
			same++
		}
	}
	t.Logf("int8 export: %d int8 nodes; top-1 equal to the float export's on %d of %d images", nq, same, len(q))
	if same < len(q)-1 {
		t.Errorf("int8 export changes the top-1 of %d of %d images", len(q)-same, len(q))
	}
	feed, n, err := (&runner{}).CalibrationFeed(qexp, calList, 1)
	if err != nil || n != 1 {
		t.Fatalf("CalibrationFeed: %d inputs, %v", n, err)
	}
	x, err := feed(0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Run(x)
	if err != nil {
		t.Fatal(err)
	}
	ortcheck.Compare(t, filepath.Join(qexp, "model.onnx"), x, ortcheck.Output{Name: "output", Want: got["output"], Tol: 1e-4})
	return qexp
}

// checkExportNumerics compares the Go model's probabilities on a batch of
// images with paddle's runtime and ONNX Runtime on the exported file.
func checkExportNumerics(t *testing.T, ckpt, exp string, imgs []string) {
	cfg, err := config.Load(filepath.Join(exp, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	wr, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := wr.(*runner)
	model, err := r.newModel()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := workflow.LoadCheckpoint(filepath.Join(ckpt, "best"), model, nil); err != nil {
		t.Fatal(err)
	}
	tr, err := buildTransforms(r.predictOps(), r.global)
	if err != nil {
		t.Fatal(err)
	}
	var xs []*tensor.Tensor
	for _, p := range imgs {
		s := Sample{Path: p}
		if _, err := tr.Apply(&s, rand.New(rand.NewPCG(0, 0))); err != nil {
			t.Fatal(err)
		}
		xs = append(xs, s.X.Reshape(append([]int{1}, s.X.Shape()...)...))
	}
	x := op.Concat(0, xs...)
	var want *tensor.Tensor
	ag.NoGrad(func() { want = ag.Softmax(model.Forward(ag.Const(x), false), -1).T })
	p, err := runtime.Load(filepath.Join(exp, "model.onnx"), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Run(map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := tensor.MaxDiff(got["output"], want, 0, 0)
	t.Logf("batch %d: paddle runtime on the export vs Go eval forward: max abs diff %.3g", len(imgs), d)
	if d > 1e-5 {
		t.Errorf("paddle runtime on the export differs by %g", d)
	}
	ortcheck.Compare(t, filepath.Join(exp, "model.onnx"), map[string]*tensor.Tensor{"x": x},
		ortcheck.Output{Name: "output", Want: want, Tol: 1e-4})
}
