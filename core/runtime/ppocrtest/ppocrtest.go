// Package ppocrtest holds what the tests that run the real PP-OCRv4 models
// against ONNX Runtime's goldens share (core/runtime on the portable
// kernels, core/backend/cpu on its own): where the fetched models are, the
// golden cases, and the inputs scripts/ref/ppocrv4_golden.sh fed ONNX Runtime.
package ppocrtest

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"paddle/core/hub"
	"paddle/core/io"
	"paddle/core/tensor"
)

// Dir is the folder of the PP-OCRv4 ONNX files (PPOCRV4_DIR, else the npm
// package under hub.CacheDir()); tb is skipped when the
// models are not there.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir := os.Getenv("PPOCRV4_DIR")
	if dir == "" {
		dir = filepath.Join(hub.CacheDir(), "npm", "ocr-models-1.4.2", "package", "assets")
	}
	if _, err := os.Stat(filepath.Join(dir, "ch_PP-OCRv4_det_infer.onnx")); err != nil {
		tb.Skipf("PP-OCRv4 models not found in %s: run scripts/fetch_ppocrv4.sh", dir)
	}
	return dir
}

// Case is one golden: a model file, the golden's name and the input shape.
type Case struct {
	Model, Golden string
	Shape         []int
}

// Cases are the goldens core/runtime/testdata holds for each model.
var Cases = []Case{
	{"ch_PP-OCRv4_det_infer.onnx", "det_1x3x96x128", []int{1, 3, 96, 128}},
	{"ch_PP-OCRv4_det_infer.onnx", "det_1x3x160x160", []int{1, 3, 160, 160}},
	{"ch_PP-OCRv4_rec_infer.onnx", "rec_2x3x48x64", []int{2, 3, 48, 64}},
	{"ch_ppocr_mobile_v2.0_cls_infer.onnx", "cls_2x3x48x192", []int{2, 3, 48, 192}},
}

// Input is the case's input: the text page for det, the noise otherwise.
func (c Case) Input() *tensor.Tensor {
	if strings.HasPrefix(c.Golden, "det") {
		return TextInput(c.Shape...)
	}
	return NoiseInput(c.Shape...)
}

// Want reads ONNX Runtime's output for the case from core/runtime/testdata.
func (c Case) Want() (*tensor.Tensor, error) {
	_, file, _, _ := runtime.Caller(0)
	return io.ReadNpy(filepath.Join(filepath.Dir(file), "..", "testdata", "ppocrv4_"+c.Golden+".npy"))
}

// TextInput is the golden script's "text" input: a white page with dark
// stripes, normalised like PP-OCR det.
func TextInput(shape ...int) *tensor.Tensor {
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

// NoiseInput is the golden script's "noise" input: element i is
// ((i*7919) mod 1000)/500 - 1 as float32.
func NoiseInput(shape ...int) *tensor.Tensor {
	v := make([]float32, tensor.Shape(shape).NumElements())
	for i := range v {
		v[i] = float32(float64((i*7919)%1000)/500.0 - 1.0)
	}
	return tensor.FromSlice(v, shape...)
}
