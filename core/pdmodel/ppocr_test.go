package pdmodel_test

import (
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"paddle/core/hub"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// ppocrModel returns the path of a PP-OCR ONNX model of the model store, or skips.
func ppocrModel(t *testing.T, name string) string {
	t.Helper()
	dirs := []string{filepath.Join(hub.CacheDir(), "npm", "ocr-models-1.4.2", "package", "assets")}
	if d := os.Getenv("PADDLE_MODELS_DIR"); d != "" {
		dirs = append([]string{d, filepath.Join(d, "package", "assets")}, dirs...)
	}
	for _, d := range dirs {
		if p := filepath.Join(d, name); fileExists(p) {
			return p
		}
	}
	t.Skipf("%s not found in %v: run scripts/fetch_ppocrv4.sh or set PADDLE_MODELS_DIR", name, dirs)
	return ""
}

// imageInput reads a PNG, resizes it (nearest) to h×w and normalises it
// with ImageNet's mean and std: a (1, 3, h, w) input with text in it, so the
// outputs are not flat as they are for noise.
func imageInput(t *testing.T, path string, h, w int) *tensor.Tensor {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	mean, std := [3]float32{0.485, 0.456, 0.406}, [3]float32{0.229, 0.224, 0.225}
	v := make([]float32, 3*h*w)
	for y := range h {
		for x := range w {
			r, g, bl, _ := img.At(b.Min.X+x*b.Dx()/w, b.Min.Y+y*b.Dy()/h).RGBA()
			for ch, c := range [3]uint32{r, g, bl} {
				v[(ch*h+y)*w+x] = (float32(c)/65535 - mean[ch]) / std[ch]
			}
		}
	}
	return tensor.FromSlice(v, 1, 3, h, w)
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestPPOCRMatchesONNX translates the PP-OCR ONNX models back into Paddle
// programs with scripts/ref/pdmodel_ref.py (Python protobuf and onnx, not
// this package) and into Paddle 3 PIR programs with scripts/ref/pir_ref.py,
// and checks that the .pdmodel and the inference.json give the ONNX
// model's outputs through the same runtime (max abs diff <= 1e-4).
func TestPPOCRMatchesONNX(t *testing.T) {
	if testing.Short() {
		t.Skip("converts whole PP-OCR models")
	}
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import google.protobuf, numpy, onnx").Run(); err != nil {
		t.Skipf("%s with protobuf, numpy and onnx (Debian python3-protobuf, python3-numpy, python3-onnx) is needed to write the fixture: %v", py, err)
	}
	type form struct{ script, file string }
	for _, c := range []struct {
		model, image string
		h, w         int
		form
	}{
		{"ch_PP-OCRv4_det_infer.onnx", "sample_en.png", 160, 320, form{"pdmodel_ref.py", "inference.pdmodel"}},
		{"ch_ppocr_mobile_v2.0_cls_infer.onnx", "line.png", 48, 192, form{"pdmodel_ref.py", "inference.pdmodel"}},
		{"ch_PP-OCRv4_rec_infer.onnx", "line.png", 48, 320, form{"pdmodel_ref.py", "inference.pdmodel"}},
		{"ch_PP-OCRv4_det_infer.onnx", "sample_en.png", 160, 320, form{"pir_ref.py", "inference.json"}},
		{"ch_PP-OCRv4_rec_infer.onnx", "line.png", 48, 320, form{"pir_ref.py", "inference.json"}},
		{"ch_ppocr_mobile_v2.0_cls_infer.onnx", "line.png", 48, 192, form{"pir_ref.py", "inference.json"}},
	} {
		t.Run(c.model+"/"+c.file, func(t *testing.T) {
			onnxPath := ppocrModel(t, c.model)
			dir := t.TempDir()
			cmd := exec.Command(py, "../../scripts/ref/"+c.script, "ppocr", onnxPath, dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", c.script, err, out)
			}
			pd, err := runtime.Load(filepath.Join(dir, c.file), runtime.Options{})
			if err != nil {
				t.Fatal(err)
			}
			ox, err := runtime.Load(onnxPath, runtime.Options{})
			if err != nil {
				t.Fatal(err)
			}
			x := imageInput(t, filepath.Join("../../kits/ocr/testdata/images", c.image), c.h, c.w)
			in := map[string]*tensor.Tensor{ox.InputNames()[0]: x}
			want, err := ox.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := pd.Run(in)
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range ox.OutputNames() {
				if got[name] == nil {
					t.Fatalf("the %s has no output %q (has %v)", c.file, name, pd.OutputNames())
				}
				if v := want[name].Float64s(); slices.Max(v)-slices.Min(v) < 1e-3 {
					t.Fatalf("output %s is flat (%g..%g): the comparison would prove nothing", name, slices.Min(v), slices.Max(v))
				}
				d := maxAbsDiff(t, got[name], want[name])
				t.Logf("%s %s: output %s %v: max abs diff %.3g", c.model, c.file, name, want[name].Shape(), d)
				if d > 1e-4 {
					t.Errorf("output %s: max abs diff %g from the ONNX model", name, d)
				}
			}
		})
	}
}
