package clas

import (
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/workflow/pdtest"
)

// export --format pdparams of a model loaded from PaddleClas-named weights
// (core/zoo's fixture, written by scripts/ref/pdparams_ref.py) writes the
// same tensors back under the same names.
func TestExportPdparamsRoundTrip(t *testing.T) {
	fixture := "../../core/zoo/testdata/resnet50_w2.pdparams"
	out := filepath.Join(t.TempDir(), "resnet.pdparams")
	code, stdout, errOut := paddle(t, "clas", "export", "-c", "clas/resnet_mnist.yaml",
		"-o", "Arch.depth=50", "-o", "Arch.width=2", "-o", "Arch.small_input=false", "-o", "Global.image_shape=[3,64,64]",
		"--weights", fixture, "--format", "pdparams", "--output", out)
	if code != 0 || strings.TrimSpace(stdout) != out {
		t.Fatalf("export exit %d: %q\n%s", code, stdout, errOut)
	}
	if err := pdtest.SameFile(out, fixture); err != nil {
		t.Fatal(err)
	}
}

func TestExportPdparamsNeedsTheSuffix(t *testing.T) {
	code, _, errOut := paddle(t, "clas", "export", "-c", "clas/resnet_mnist.yaml", "--weights", "x", "--format", "pdparams", "--output", "w.bin")
	if code != 2 || !strings.Contains(errOut, "must end in .pdparams") {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	code, _, errOut = paddle(t, "clas", "export", "-c", "clas/resnet_mnist.yaml", "--weights", "x", "--format", "tflite", "--output", "w")
	if code != 2 || !strings.Contains(errOut, `supports onnx, pdparams`) {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
}
