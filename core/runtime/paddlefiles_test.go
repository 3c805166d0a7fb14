package runtime

import (
	"strings"
	"testing"
)

// A PaddlePaddle file given as a model that holds no program fails with an
// error naming the file and its format, before any ONNX decoding; a
// .pdmodel or PIR .json is read as one (here: a missing file).
func TestLoadNamesPaddleFormats(t *testing.T) {
	for path, want := range map[string]string{
		"m/inference.pdmodel":   "no such file",
		"m/inference.pdiparams": "give its inference.pdmodel",
		"m/inference.json":      "no such file",
		"w/best.pdparams":       "weights hold no program",
	} {
		_, err := Load(path, Options{})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("Load(%s) = %v, want an error naming the file and %q", path, err, want)
		}
	}
	if PaddleFileError("m/model.onnx") != nil {
		t.Error("model.onnx taken for a PaddlePaddle file")
	}
}

// A Paddle 3 PIR program loads like any model (core/pdmodel translates it).
func TestLoadPIRProgram(t *testing.T) {
	p, err := Load("../pdmodel/testdata/tiny_pir/inference.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if in := p.InputNames(); len(in) != 1 || in[0] != "x" {
		t.Fatalf("inputs %v", in)
	}
}
