package model

import (
	"bytes"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/io"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

const tinyPdmodel = "../../pdmodel/testdata/tiny/inference.pdmodel"

// The tiny PaddlePaddle fixture (scripts/ref/pdmodel_ref.py) runs through
// model run, converts to ONNX, and the ONNX file gives the same outputs as
// the .pdmodel and as the script's NumPy pass.
func TestConvertPdmodel(t *testing.T) {
	dir := t.TempDir()
	onnxPath := filepath.Join(dir, "model.onnx")
	var out bytes.Buffer
	if err := convertRun(convertOptions{Out: &out, Model: tinyPdmodel, Output: onnxPath}); err != nil {
		t.Fatal(err)
	}
	x, err := io.ReadNpy("../../pdmodel/testdata/tiny/x.npy")
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadNpy("../../pdmodel/testdata/tiny/out.npy")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{tinyPdmodel, onnxPath} {
		p, err := runtime.Load(m, runtime.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Run(map[string]*tensor.Tensor{"x": x})
		if err != nil {
			t.Fatal(err)
		}
		g, w := got["softmax_0.tmp_0"].Float64s(), want.Float64s()
		if len(g) != len(w) {
			t.Fatalf("%s: %d outputs, want %d", m, len(g), len(w))
		}
		for i := range g {
			if math.Abs(g[i]-w[i]) > 1e-5 {
				t.Fatalf("%s: output %d = %g, want %g", m, i, g[i], w[i])
			}
		}
	}
	if err := convertRun(convertOptions{Out: &out, Model: tinyPdmodel}); err == nil || !strings.Contains(err.Error(), "--output") {
		t.Errorf("no --output: %v", err)
	}
}

func TestInspectPdmodel(t *testing.T) {
	var out bytes.Buffer
	if err := inspectRun(inspectOptions{Out: &out, Model: tinyPdmodel, Shapes: []string{"x=2x3x8x8"}, Format: "text"}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"conv2d", "depthwise_conv2d", "softmax_0.tmp_0", "x"} {
		if !strings.Contains(s, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, s)
		}
	}
	r, err := Inspect(tinyPdmodel, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Ops["conv2d"] != 2 || r.Ops["elementwise_add"] != 2 || r.Nodes != 16 || r.Params != 10 {
		t.Errorf("report %+v", r)
	}
}
