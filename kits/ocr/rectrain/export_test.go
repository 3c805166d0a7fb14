package rectrain

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/cli/iostreams"
	"paddle/core/config"
	"paddle/core/io"
	"paddle/core/runtime"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// ortRunner returns node and scripts/ref/ort_run.mjs when ONNX Runtime is
// installed (scripts/ref/setup_ort.sh), else "", "".
func ortRunner() (string, string) {
	node, err := exec.LookPath("node")
	if err != nil {
		return "", ""
	}
	dir := os.Getenv("ORT_NODE_DIR")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "paddle", "npm", "ortnode-1.30.0")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "onnxruntime-node")); err != nil {
		return "", ""
	}
	script, _ := filepath.Abs(filepath.Join("..", "..", "..", "scripts", "ref", "ort_run.mjs"))
	return node, script
}

// exportShipped exports the shipped CRNN (testdata/rec_crnn_en) into a
// temporary folder and returns the folder and the runner.
func exportShipped(t *testing.T) (string, *runner) {
	t.Helper()
	cfg, err := config.Load("testdata/rec_crnn_en/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wr, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ios, _, _, _ := iostreams.Test()
	if err := wr.(workflow.Exporter).Export(context.Background(), workflow.Env{IO: ios, Weights: "testdata/rec_crnn_en"}, dir); err != nil {
		t.Fatal(err)
	}
	return dir, wr.(*runner)
}

// The shipped CRNN (BiLSTM neck) exports; paddle's runtime and ONNX Runtime
// run the export at a batch and width other than the traced ones and agree
// with the Go model's eval forward (≤ 1e-5 and ≤ 1e-4); inference.yaml
// carries the dictionary and the input shape.
func TestExportMatchesForward(t *testing.T) {
	dir, r := exportShipped(t)
	inf, err := os.ReadFile(filepath.Join(dir, workflow.ExportInferenceFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"model_name: CRNN", "name: CTCLabelDecode", "image_shape: [3, 32, 128]",
		"shape: [-1, 3, 32, -1]", "use_space_char: true", "character_dict:\n    - \"0\""} {
		if !strings.Contains(string(inf), want) {
			t.Errorf("inference.yaml lacks %q:\n%.600s", want, inf)
		}
	}
	model, err := r.newModel()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := workflow.LoadCheckpoint("testdata/rec_crnn_en", model, nil); err != nil {
		t.Fatal(err)
	}
	x := tensor.Rand(rand.New(rand.NewPCG(3, 4)), tensor.Float32, -1, 1, 3, 3, 32, 200)
	var want *tensor.Tensor
	ag.NoGrad(func() { want = exportHead(model.Forward(ag.Const(x), false)).T.Contiguous() })
	if s := want.Shape(); s[0] != 3 || s[1] != 50 || s[2] != r.dict.NumClasses() {
		t.Fatalf("forward shape %v, want [3 50 %d]", s, r.dict.NumClasses())
	}
	p, err := runtime.Load(filepath.Join(dir, workflow.ExportModelFile), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Run(map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := tensor.MaxDiff(got[ExportOutput], want, 0, 0)
	t.Logf("paddle runtime on the export vs Go eval forward: max abs diff %.3g", d)
	if d > 1e-5 {
		t.Errorf("paddle runtime on the export differs by %g", d)
	}
	checkORT(t, dir, ExportOutput, x, want)
}

// checkORT runs the export in dir with ONNX Runtime on x and compares with
// want (≤ 1e-4) on the output named output; it only logs when ONNX Runtime
// is not installed.
func checkORT(t *testing.T, dir, output string, x, want *tensor.Tensor) {
	t.Helper()
	node, script := ortRunner()
	if node == "" {
		t.Log("ONNX Runtime not installed (scripts/ref/setup_ort.sh): export not run by it")
		return
	}
	tmp := t.TempDir()
	in := filepath.Join(tmp, "x.npy")
	if err := io.WriteNpy(in, x); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(node, script, "--threads", "1", filepath.Join(dir, workflow.ExportModelFile), tmp, "x="+in).CombinedOutput(); err != nil {
		t.Fatalf("ONNX Runtime rejects the export: %v\n%s", err, b)
	}
	ort, err := io.ReadNpy(filepath.Join(tmp, npyName(output)))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := tensor.MaxDiff(ort, want, 0, 0)
	t.Logf("ONNX Runtime on the export vs Go eval forward: max abs diff %.3g", d)
	if d > 1e-4 {
		t.Errorf("ONNX Runtime on the export differs by %g", d)
	}
}

// npyName is the file ort_run.mjs writes output name to.
func npyName(name string) string {
	return regexp.MustCompile(`[^A-Za-z0-9._-]`).ReplaceAllString(name, "_") + ".npy"
}
