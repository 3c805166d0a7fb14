package runtime

import (
	"path/filepath"
	"testing"

	"paddle/core/onnx"
	"paddle/core/runtime/ortcheck"
	"paddle/core/runtime/ppocrtest"
	"paddle/core/tensor"
)

// The PP-OCRv4 models, optimised by the default passes, exported to ONNX
// and imported again give the same outputs; ONNX Runtime (when installed)
// runs the exported files and agrees within 1e-4.
func TestPPOCRv4ExportRoundTrip(t *testing.T) {
	dir := ppocrtest.Dir(t)
	cases := []ppocrtest.Case{
		{Model: "ch_PP-OCRv4_det_infer.onnx", Golden: "det", Shape: []int{1, 3, 96, 128}},
		{Model: "ch_PP-OCRv4_rec_infer.onnx", Golden: "rec", Shape: []int{2, 3, 48, 64}},
		{Model: "ch_ppocr_mobile_v2.0_cls_infer.onnx", Golden: "cls", Shape: []int{2, 3, 48, 192}},
	}
	tmp := t.TempDir()
	for _, c := range cases {
		p, err := Load(filepath.Join(dir, c.Model), Options{})
		if err != nil {
			t.Fatal(err)
		}
		x := c.Input()
		want, err := p.Run(map[string]*tensor.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(tmp, c.Golden+".onnx")
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
			t.Errorf("%s: re-imported export differs by %g", c.Golden, d)
		}
		ortcheck.Compare(t, file, map[string]*tensor.Tensor{"x": x}, ortcheck.Output{Name: name, Want: want[name], Tol: 1e-4})
	}
}
