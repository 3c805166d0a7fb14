package model

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/io"
	"paddle/core/runtime"
	"paddle/core/runtime/ortcheck"
	"paddle/core/tensor"
)

// model quantize on the tiny model: .npy calibration inputs (a directory)
// and PNG images (a list file) both give a QDQ file that paddle and ONNX
// Runtime load, with outputs close to the float model's; so does
// --reduce-range (7-bit weights).
func TestQuantizeCommand(t *testing.T) {
	dir := t.TempDir()
	npyDir := filepath.Join(dir, "npy")
	if err := os.MkdirAll(npyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(9, 10))
	for i := range 6 {
		if err := io.WriteNpy(filepath.Join(npyDir, string(rune('a'+i))+".npy"), tensor.Rand(r, tensor.Float32, -1, 1, 3, 8, 8)); err != nil {
			t.Fatal(err)
		}
	}
	var list strings.Builder
	for i := range 4 {
		img := image.NewRGBA(image.Rect(0, 0, 8, 8))
		for j := range img.Pix {
			img.Pix[j] = uint8(r.IntN(256))
		}
		img.Set(0, 0, color.RGBA{255, 255, 255, 255}) // (images are 8×8 like x.npy: no resize narrows their range)
		name := string(rune('a'+i)) + ".png"
		fh, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(fh, img); err != nil {
			t.Fatal(err)
		}
		fh.Close()
		list.WriteString(name + "\n")
	}
	listFile := filepath.Join(dir, "calib.txt")
	if err := os.WriteFile(listFile, []byte("# images\n"+list.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	x, err := io.ReadNpy("../../pdmodel/testdata/tiny/x.npy")
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]*tensor.Tensor{"x": x}
	fp, err := runtime.Load(tinyPdmodel, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := fp.Run(in)
	name := fp.OutputNames()[0]
	for i, calib := range []string{npyDir, listFile, npyDir} {
		reduce := i == 2
		out := filepath.Join(dir, "q.onnx")
		var buf bytes.Buffer
		opts := quantizeOptions{Out: &buf, Model: tinyPdmodel, Calib: calib, CalibCount: 32, Method: "percentile", Percentile: 99.99,
			PerChannel: true, ReduceRange: reduce, Output: out, InputShape: "3,8,8", Mean: "0.5,0.5,0.5", Std: "0.5,0.5,0.5", Color: "RGB", Sensitivity: true, SensCount: 2}
		if err := quantizeRun(opts); err != nil {
			t.Fatal(err)
		}
		rep := buf.String()
		if !strings.Contains(rep, "conv2d_1 ") || !strings.Contains(rep, "matmul") || !strings.Contains(rep, "quantized 3 nodes") {
			t.Errorf("report lacks the nodes:\n%s", rep)
		}
		if strings.Contains(rep, "7-bit weights") != reduce {
			t.Errorf("reduce-range %v: report says otherwise:\n%s", reduce, rep)
		}
		t.Logf("calib %s:\n%s", filepath.Base(calib), rep)
		p, err := runtime.Load(out, runtime.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Run(in)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := tensor.MaxDiff(got[name], ref[name], 0, 0)
		if d > 0.03 {
			t.Errorf("calib %s: int8 output differs from float by %g", calib, d)
		}
		ortcheck.Compare(t, out, in, ortcheck.Output{Name: name, Want: got[name], Tol: 0.005})
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("a.png\nnotes.txt\n"), 0o644)
	for _, o := range []quantizeOptions{
		{Model: tinyPdmodel, Output: filepath.Join(dir, "x.onnx")},
		{Model: tinyPdmodel, Calib: npyDir},
		{Model: tinyPdmodel, Calib: bad, Output: filepath.Join(dir, "x.onnx"), Method: "minmax"},
		{Model: tinyPdmodel, Calib: npyDir, Output: filepath.Join(dir, "x.onnx"), Method: "entropy", Mean: "0", Std: "1", Color: "RGB"},
		{Model: tinyPdmodel, Calib: listFile, Output: filepath.Join(dir, "x.onnx"), Method: "minmax", Mean: "0,0", Std: "1", Color: "RGB"},
		{Model: tinyPdmodel, Calib: filepath.Join(dir, "missing"), Output: filepath.Join(dir, "x.onnx"), Method: "minmax", Mean: "0", Std: "1", Color: "RGB"},
	} {
		o.Out = &bytes.Buffer{}
		if err := quantizeRun(o); err == nil {
			t.Errorf("%+v: no error", o)
		} else {
			t.Logf("error: %v", err)
		}
	}
}
