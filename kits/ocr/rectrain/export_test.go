package rectrain

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/cli/iostreams"
	"paddle/core/config"
	"paddle/core/graph"
	"paddle/core/metric"
	"paddle/core/onnx"
	"paddle/core/quant"
	"paddle/core/runtime"
	"paddle/core/runtime/ortcheck"
	"paddle/core/tensor"
	"paddle/core/workflow"
	"paddle/kits/ocr/synth"
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

// The shipped CRNN's export quantized through the kit's Calibrator (what
// `paddle ocr export --quantize` runs): calibrated on 32 lines in the Go
// fonts, it reads 40 other lines (DejaVu Sans, other texts' seeds) as the
// float export does, and ONNX Runtime's probabilities on the QDQ file
// equal paddle's.
func TestQuantizedExport(t *testing.T) {
	if _, err := os.Stat(heldOutFont); err != nil {
		t.Skipf("font missing (scripts/setup.sh installs fonts-dejavu-core): %v", err)
	}
	dir, r := exportShipped(t)
	tmp := t.TempDir()
	corpus := filepath.Join(tmp, "corpus.txt")
	if err := os.WriteFile(corpus, []byte(shippedCorpus), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, _ := synth.ReadCorpus(corpus)
	texts, err := synth.NewTexts(lines, "en", 1, 12)
	if err != nil {
		t.Fatal(err)
	}
	render := func(out, fonts string, n int, seed uint64) string {
		fs, err := synth.LoadFonts(fonts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := synth.Generate(context.Background(), synth.Options{Out: out, Count: n, Texts: texts, Fonts: fs, Seed: seed,
			Workers: 2, Line: synth.LineOptions{MinSize: 24, MaxSize: 40, Augment: synth.DefaultAugment()}}); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(out, "images")
	}
	calib := render(filepath.Join(tmp, "calib"), "go", 32, 21)
	held := render(filepath.Join(tmp, "held"), heldOutFont, 40, 22)
	feed, n, err := r.CalibrationFeed(dir, calib, 0)
	if err != nil || n != 32 {
		t.Fatalf("CalibrationFeed: %d inputs, %v", n, err)
	}
	model := filepath.Join(dir, workflow.ExportModelFile)
	qfile := filepath.Join(tmp, "q.onnx")
	if _, _, err := (quant.Job{Load: func() (*graph.Graph, error) { return onnx.ReadFile(model) },
		Options: quant.Options{Method: "percentile", PerChannel: true}, Feed: feed, Count: n, Output: qfile}).Run(); err != nil {
		t.Fatal(err)
	}
	fp, err := runtime.Load(model, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	qp, err := runtime.Load(qfile, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	nq := quant.Int8Nodes(qp.Graph())
	if nq == 0 {
		t.Fatal("the quantized export runs no int8 conv or gemm")
	}
	hf, hn, err := r.CalibrationFeed(dir, held, 0)
	if err != nil || hn != 40 {
		t.Fatalf("held-out lines: %d, %v", hn, err)
	}
	same := 0
	for i := range hn {
		x, err := hf(i)
		if err != nil {
			t.Fatal(err)
		}
		a, err := fp.Run(x)
		if err != nil {
			t.Fatal(err)
		}
		b, err := qp.Run(x)
		if err != nil {
			t.Fatal(err)
		}
		if slices.Equal(greedyCTC(a[ExportOutput]), greedyCTC(b[ExportOutput])) {
			same++
		}
		if i == 0 {
			ortcheck.Compare(t, qfile, x, ortcheck.Output{Name: ExportOutput, Want: b[ExportOutput], Tol: 1e-4})
		}
	}
	t.Logf("int8 export: %d int8 nodes; reads %d of %d held-out lines as the float export does", nq, same, hn)
	if same < hn-2 {
		t.Errorf("int8 export reads %d of %d held-out lines differently from float", hn-same, hn)
	}
}

// greedyCTC is the class sequence of probabilities (1, T, K): the argmax
// per step, repeats merged, blanks (class 0) dropped.
func greedyCTC(p *tensor.Tensor) []int {
	s := p.Shape()
	v := p.Contiguous().F32()
	var out []int
	prev := -1
	for t := range s[1] {
		c := metric.Argmax(v[t*s[2] : (t+1)*s[2]])
		if c != prev && c != 0 {
			out = append(out, c)
		}
		prev = c
	}
	return out
}
