package runtime

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"paddle/core/io"
	"paddle/core/onnx"
	"paddle/core/tensor"
)

// ortRunner returns the node command and ort_run.mjs when ONNX Runtime is
// installed (scripts/ref/setup_ort.sh), else "".
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
	script, _ := filepath.Abs(filepath.Join("..", "..", "scripts", "ref", "ort_run.mjs"))
	return node, script
}

// The PP-OCRv4 models, optimised by the default passes, exported to ONNX
// and imported again give the same outputs; ONNX Runtime (when installed)
// runs the exported files and agrees within 1e-4.
func TestPPOCRv4ExportRoundTrip(t *testing.T) {
	dir := ppocrDir(t)
	node, script := ortRunner()
	cases := []ppocrCase{
		{"ch_PP-OCRv4_det_infer.onnx", "det", []int{1, 3, 96, 128}},
		{"ch_PP-OCRv4_rec_infer.onnx", "rec", []int{2, 3, 48, 64}},
		{"ch_ppocr_mobile_v2.0_cls_infer.onnx", "cls", []int{2, 3, 48, 192}},
	}
	tmp := t.TempDir()
	for _, c := range cases {
		p, err := Load(filepath.Join(dir, c.model), Options{})
		if err != nil {
			t.Fatal(err)
		}
		x := goldenInput(c.shape...)
		if c.golden == "det" {
			x = textInput(c.shape...)
		}
		want, err := p.Run(map[string]*tensor.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(tmp, c.golden+".onnx")
		if err := onnx.WriteFile(file, p.Graph()); err != nil {
			t.Fatal(err)
		}
		p2, err := Load(file, Options{Passes: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p2.Run(map[string]*tensor.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		name := p.OutputNames()[0]
		if d, _ := tensor.MaxDiff(got[name], want[name], 0, 0); d != 0 {
			t.Errorf("%s: re-imported export differs by %g", c.golden, d)
		}
		if node == "" {
			t.Logf("%s: ONNX Runtime not installed (scripts/ref/setup_ort.sh): export not checked with it", c.golden)
			continue
		}
		in := filepath.Join(tmp, c.golden+".in.npy")
		if err := io.WriteNpy(in, x); err != nil {
			t.Fatal(err)
		}
		outDir := filepath.Join(tmp, c.golden+".ort")
		if b, err := exec.Command(node, script, "--threads", "1", file, outDir, "x="+in).CombinedOutput(); err != nil {
			t.Fatalf("%s: ONNX Runtime rejects the export: %v\n%s", c.golden, err, b)
		}
		ort, err := io.ReadNpy(filepath.Join(outDir, sanitize(name)+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		d, _ := tensor.MaxDiff(want[name], ort, 0, 0)
		t.Logf("%s: exported model, ONNX Runtime vs paddle max abs error %.3g", c.golden, d)
		if d > 1e-4 {
			t.Errorf("%s: ONNX Runtime on the export differs by %g", c.golden, d)
		}
	}
}

func sanitize(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}
