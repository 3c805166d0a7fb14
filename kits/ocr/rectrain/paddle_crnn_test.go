package rectrain

import (
	"context"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/cli/iostreams"
	"paddle/core/config"
	pio "paddle/core/io"
	"paddle/core/io/pdparams"
	"paddle/core/nn"
	"paddle/core/runtime"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

const (
	crnnConfig  = "ocr/rec_mv3_none_bilstm_ctc.yaml"
	crnnFixture = "testdata/paddleocr/crnn_mv3_small_h16.pdparams"
	crnnLogits  = "testdata/paddleocr/crnn_mv3_small_h16_logits.npy"
)

// crnnSmall are the overrides that make the shipped config the network of
// the committed fixture (ppocr_crnn_ref.py's mv3_small_h16).
var crnnSmall = []string{"Architecture.Backbone.model_name=small", "Architecture.Backbone.scale=0.35",
	"Architecture.Backbone.small_stride=[1, 2, 2, 2]", "Architecture.Neck.hidden_size=16"}

// crnnInput is ppocr_crnn_ref.py's (pp_liteseg_ref.py's) test_input:
// sin(0.37 i)·cos(0.011 i).
func crnnInput(shape ...int) *tensor.Tensor {
	v := make([]float32, tensor.Shape(shape).NumElements())
	for i := range v {
		v[i] = float32(math.Sin(0.37*float64(i)) * math.Cos(0.011*float64(i)))
	}
	return tensor.FromSlice(v, shape...)
}

// crnnModel builds the shipped PaddleOCR CRNN config (overrides applied)
// with every tensor zeroed, so a tensor that loading misses shows.
func crnnModel(t *testing.T, overrides ...string) Recognizer {
	t.Helper()
	return zeroedPaddleModel(t, crnnConfig, overrides...)
}

// zeroedPaddleModel builds a shipped config with PaddleOCR's layers
// (overrides applied) with every tensor zeroed.
func zeroedPaddleModel(t *testing.T, file string, overrides ...string) Recognizer {
	t.Helper()
	cfg, err := config.Load(file, overrides...)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := NewRecognizer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.(*PaddleCRNN); !ok {
		t.Fatalf("built %T, want *PaddleCRNN", m)
	}
	for _, p := range append(m.Params(), nn.Buffers(m)...) {
		p.V.T.Fill(0)
	}
	return m
}

// crnnDiff is the max abs difference of m's eval logits (T, N, K) on input
// from the NumPy forward's (N, T, K) in the .npy file.
func crnnDiff(t *testing.T, m Recognizer, logits string, input *tensor.Tensor) float64 {
	t.Helper()
	want, err := pio.ReadNpy(logits)
	if err != nil {
		t.Fatal(err)
	}
	var got *tensor.Tensor
	ag.NoGrad(func() { got = m.Forward(ag.Const(input), false).T.Transpose(1, 0, 2).Contiguous() })
	if !got.Shape().Equal(want.Shape()) {
		t.Fatalf("logits %v, the NumPy forward gives %v", got.Shape(), want.Shape())
	}
	d := 0.0
	g, w := got.Float64s(), want.Float64s()
	for i := range g {
		d = max(d, math.Abs(g[i]-w[i]))
	}
	return d
}

// crnnCheck loads fixture strictly (as --weights does) into a zeroed model
// and compares its logits with the NumPy forward's.
func crnnCheck(t *testing.T, fixture, logits string, input *tensor.Tensor, overrides ...string) {
	t.Helper()
	paddleCheck(t, crnnConfig, fixture, logits, input, overrides...)
}

// paddleCheck is crnnCheck for the shipped config file.
func paddleCheck(t *testing.T, file, fixture, logits string, input *tensor.Tensor, overrides ...string) {
	t.Helper()
	m := zeroedPaddleModel(t, file, overrides...)
	if _, err := workflow.LoadCheckpoint(fixture, m, nil); err != nil {
		t.Fatal(err)
	}
	d := crnnDiff(t, m, logits, input)
	t.Logf("%s: max abs diff from PaddleOCR's forward (NumPy): %.3g", filepath.Base(fixture), d)
	if d > 1e-4 {
		t.Errorf("max abs diff %g from the NumPy forward of PaddleOCR's %s", d, filepath.Base(file))
	}
}

// TestPaddleOCRCRNNPdparams loads the PaddleOCR-named fixture written by
// scripts/ref/ppocr_crnn_ref.py (pickle + NumPy, from PaddleOCR's and
// Paddle's sources) into the shipped rec_mv3_none_bilstm_ctc config's
// network (at the fixture's size) and matches the NumPy forward's logits
// on two 32×64 lines.
func TestPaddleOCRCRNNPdparams(t *testing.T) {
	crnnCheck(t, crnnFixture, crnnLogits, crnnInput(2, 3, 32, 64), crnnSmall...)
}

// rewrite writes the fixture's tensors, edited by edit, to a new .pdparams.
func rewrite(t *testing.T, edit func(name string, v *tensor.Tensor) (string, *tensor.Tensor)) string {
	t.Helper()
	return rewriteFile(t, crnnFixture, edit)
}

// rewriteFile writes fixture's tensors, edited by edit, to a new .pdparams.
func rewriteFile(t *testing.T, fixture string, edit func(name string, v *tensor.Tensor) (string, *tensor.Tensor)) string {
	t.Helper()
	f, err := pdparams.Read(fixture)
	if err != nil {
		t.Fatal(err)
	}
	var entries []pdparams.Entry
	for _, n := range f.Names {
		if name, v := edit(n, f.Tensors[n]); name != "" {
			entries = append(entries, pdparams.Entry{Name: name, T: v})
		}
	}
	path := filepath.Join(t.TempDir(), "edited.pdparams")
	if err := pdparams.Write(path, entries); err != nil {
		t.Fatal(err)
	}
	return path
}

// Paddle's state_dict holds each LSTM tensor twice (weight_ih_l0 and
// 0.cell_fw.weight_ih): either name alone loads; two that differ fail.
func TestPaddleOCRCRNNLSTMNames(t *testing.T) {
	in := crnnInput(2, 3, 32, 64)
	onlyFlat := rewrite(t, func(n string, v *tensor.Tensor) (string, *tensor.Tensor) {
		if strings.Contains(n, ".cell_") {
			return "", nil
		}
		return n, v
	})
	crnnCheck(t, onlyFlat, crnnLogits, in, crnnSmall...)
	onlyCells := rewrite(t, func(n string, v *tensor.Tensor) (string, *tensor.Tensor) {
		if strings.HasPrefix(n, "neck.") && !strings.Contains(n, ".cell_") {
			return "", nil
		}
		return n, v
	})
	crnnCheck(t, onlyCells, crnnLogits, in, crnnSmall...)
	differ := rewrite(t, func(n string, v *tensor.Tensor) (string, *tensor.Tensor) {
		if n == "neck.encoder.lstm.1.cell_bw.bias_hh" {
			v = v.Clone()
			v.F32()[3] += 0.5
		}
		return n, v
	})
	_, err := workflow.LoadCheckpoint(differ, crnnModel(t, crnnSmall...), nil)
	if err == nil || !strings.Contains(err.Error(), "neck.encoder.lstm.1.cell_bw.bias_hh and neck.encoder.lstm.bias_hh_l1_reverse") {
		t.Fatalf("two values for one parameter: got %v", err)
	}
	// The map is not vacuous: the reverse direction's weights swapped with
	// the forward's (same shapes) change the logits.
	swapped := rewrite(t, func(n string, v *tensor.Tensor) (string, *tensor.Tensor) {
		r := strings.NewReplacer("l0_reverse", "l0", "cell_bw", "cell_fw", "cell_fw", "cell_bw")
		if strings.Contains(n, "lstm.0.") || strings.Contains(n, "_l0") {
			if strings.HasSuffix(n, "_l0") {
				return n + "_reverse", v
			}
			return r.Replace(n), v
		}
		return n, v
	})
	m := crnnModel(t, crnnSmall...)
	if _, err := workflow.LoadCheckpoint(swapped, m, nil); err != nil {
		t.Fatal(err)
	}
	if d := crnnDiff(t, m, crnnLogits, in); d < 1e-3 {
		t.Errorf("the LSTM's directions swapped change the logits by only %g", d)
	}
}

// The export path (`paddle ocr export -c ... --weights x.pdparams`) loads
// the PaddleOCR file and the exported ONNX model gives softmax(the NumPy
// forward's logits).
func TestPaddleOCRCRNNExport(t *testing.T) {
	cfg, err := config.Load(crnnConfig, crnnSmall...)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pio.ReadNpy(crnnLogits)
	if err != nil {
		t.Fatal(err)
	}
	got := exportRun(t, cfg, crnnFixture, crnnInput(2, 3, 32, 64))
	checkProbs(t, "exported model", got, ag.Softmax(ag.Const(want.Cast(tensor.Float32)), -1).T.Float64s())
}

// exportRun exports the recogniser cfg describes with weights (as `paddle
// ocr export --weights` does), runs the exported model on x with
// core/runtime and returns its probabilities.
func exportRun(t *testing.T, cfg *config.Config, weights string, x *tensor.Tensor) []float64 {
	t.Helper()
	wr, err := Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ios, _, _, _ := iostreams.Test()
	env := workflow.Env{IO: workflow.IO{In: ios.In, Out: ios.Out}, Weights: weights}
	if err := wr.(workflow.Exporter).Export(context.Background(), env, dir); err != nil {
		t.Fatal(err)
	}
	sess, err := runtime.Load(filepath.Join(dir, workflow.ExportModelFile), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := sess.Run(map[string]*tensor.Tensor{"x": x})
	if err != nil {
		t.Fatal(err)
	}
	return out[ExportOutput].Float64s()
}

// checkProbs fails unless got and want have the same length and differ by
// at most 1e-5 anywhere.
func checkProbs(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d probabilities, want %d", len(got), len(want))
	}
	d := 0.0
	for i := range got {
		d = max(d, math.Abs(got[i]-want[i]))
	}
	t.Logf("%s: max abs diff of the probabilities %.3g", what, d)
	if d > 1e-5 {
		t.Errorf("%s: probabilities differ by %g", what, d)
	}
}

// TestPaddleOCRCRNNLarge has ppocr_crnn_ref.py write the large model at
// test time: at scale 0.35 with large_stride [2, 2, 2, 2] (the first block
// strided on both sides; 64-pixel lines), and rec_mv3_none_bilstm_ctc.yml
// exactly as PaddleOCR ships it (large, 0.5, hidden 96, 37 classes; the
// shipped config without overrides).
func TestPaddleOCRCRNNLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("writes the large models with NumPy")
	}
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import numpy").Run(); err != nil {
		t.Skipf("%s with numpy (Debian python3-numpy) writes the fixtures: %v", py, err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name      string
		input     []int
		overrides []string
	}{
		{"mv3_large_h8", []int{1, 3, 64, 40}, []string{"Architecture.Backbone.scale=0.35",
			"Architecture.Backbone.large_stride=[2, 2, 2, 2]", "Architecture.Neck.hidden_size=8"}},
		{"mv3_large_h96", []int{1, 3, 32, 100}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out, err := exec.Command(py, "../../../scripts/ref/ppocr_crnn_ref.py", dir, tc.name).CombinedOutput(); err != nil {
				t.Fatalf("ppocr_crnn_ref.py: %v\n%s", err, out)
			}
			crnnCheck(t, filepath.Join(dir, tc.name+".pdparams"), filepath.Join(dir, tc.name+"_logits.npy"), crnnInput(tc.input...), tc.overrides...)
		})
	}
}
