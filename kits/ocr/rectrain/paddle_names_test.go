package rectrain

import (
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/ag"
	"paddle/core/nn"
	"paddle/core/runtime"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// TestPPOCRv4RecPdparams loads PaddleOCR-named .pdparams written by
// scripts/ref/pdparams_ref.py (Python pickle + NumPy, from PaddleOCR's
// sources, with the ONNX model's weights) into Backbone ONNXModel whose
// every tensor was first zeroed, and checks that it predicts what the ONNX
// model does: rec_repped.pdparams as the model is after rep(), and
// rec_train.pdparams as training saves it (each re-parameterisable layer's
// four conv_kxk branches, conv_1x1 and identity BN, which PaddlePrepare
// folds; NRTR head tensors set aside).
func TestPPOCRv4RecPdparams(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and loads whole PP-OCRv4 rec checkpoints")
	}
	dir0 := ppocrv4Dir()
	if dir0 == "" {
		t.Skip("ch_PP-OCRv4_rec_infer.onnx not found (scripts/fetch_ppocrv4.sh)")
	}
	py := "/usr/bin/python3"
	// numpy_helper, not just onnx: Debian's libonnx-testdata leaves an onnx
	// directory in dist-packages that imports as an empty namespace package.
	if err := exec.Command(py, "-c", "import numpy; from onnx import numpy_helper").Run(); err != nil {
		t.Skipf("%s with numpy and onnx (Debian python3-numpy, python3-onnx) writes the fixture: %v", py, err)
	}
	onnxPath := filepath.Join(dir0, "ch_PP-OCRv4_rec_infer.onnx")
	dir := t.TempDir()
	if out, err := exec.Command(py, "../../../scripts/ref/pdparams_ref.py", "ppocrv4_rec", onnxPath, dir).CombinedOutput(); err != nil {
		t.Fatalf("pdparams_ref.py: %v\n%s", err, out)
	}
	ref, err := runtime.Load(onnxPath, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(25, 1))
	xs := make([]float32, 3*48*320)
	for i := range xs {
		xs[i] = r.Float32()*2 - 1
	}
	x := tensor.FromSlice(xs, 1, 3, 48, 320)
	want, err := ref.Run(map[string]*tensor.Tensor{ref.InputNames()[0]: x})
	if err != nil {
		t.Fatal(err)
	}
	wantP := want[ref.OutputNames()[0]].Float64s()

	for _, file := range []string{"rec_repped.pdparams", "rec_train.pdparams"} {
		t.Run(file, func(t *testing.T) {
			m, err := newImportedRec(ONNXModelOpts{ModelFile: onnxPath, PaddleParams: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range append(m.Params(), nn.Buffers(m)...) {
				p.V.T.Fill(0)
			}
			if _, err := workflow.LoadCheckpoint(filepath.Join(dir, file), m, nil); err != nil {
				t.Fatal(err)
			}
			logits := m.Forward(ag.Const(x), false)                       // (T, N, K)
			got := ag.Softmax(logits, -1).T.Transpose(1, 0, 2).Float64s() // (N, T, K)
			if len(got) != len(wantP) {
				t.Fatalf("%d probabilities, the ONNX model gives %d", len(got), len(wantP))
			}
			d := 0.0
			for i := range got {
				d = max(d, abs(got[i]-wantP[i]))
			}
			t.Logf("%s: max abs diff of the probabilities from the ONNX model %.3g", file, d)
			if d > 1e-4 {
				t.Errorf("max abs diff %g from the ONNX model", d)
			}
		})
	}

	// Without paddle_params the affine scalars, LayerNorm weights and Linear
	// biases are graph constants: strict loading names them as unused.
	m, err := newImportedRec(ONNXModelOpts{ModelFile: onnxPath})
	if err != nil {
		t.Fatal(err)
	}
	_, err = workflow.LoadCheckpoint(filepath.Join(dir, "rec_repped.pdparams"), m, nil)
	if err == nil || !strings.Contains(err.Error(), "match no tensor") {
		t.Fatalf("loading without paddle_params: got %v, want the unused tensors named", err)
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
