package rectrain

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/cli/iostreams"
	"paddle/core/config"
	"paddle/core/runtime"
	"paddle/core/runtime/ortcheck"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

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
	if err := wr.(workflow.Exporter).Export(context.Background(), workflow.Env{IO: workflow.IO{In: ios.In, Out: ios.Out}, Weights: "testdata/rec_crnn_en"}, dir); err != nil {
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
	ortcheck.Compare(t, filepath.Join(dir, workflow.ExportModelFile), map[string]*tensor.Tensor{"x": x},
		ortcheck.Output{Name: output, Want: want, Tol: 1e-4})
}
