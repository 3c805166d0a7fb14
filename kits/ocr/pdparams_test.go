package ocr

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/cli/clitest"
	"paddle/core/cli/cmdutil"
	"paddle/core/workflow/pdtest"
)

// ocr export --format pdparams of a DB model loaded from PaddleOCR-named
// weights (dettrain's fixture, written by scripts/ref/pdparams_ref.py)
// writes the same tensors back under the same names.
func TestDetExportPdparamsRoundTrip(t *testing.T) {
	fixture := "dettrain/testdata/db_pplcnet_x0_25.pdparams"
	out := filepath.Join(t.TempDir(), "db.pdparams")
	code, stdout, errOut := clitest.Run(t, []*cmdutil.Kit{Kit()}, "", "ocr", "export", "-c", "ocr/det_db_lcnet.yaml",
		"-o", "Architecture.Neck.out_channels=32", "--weights", fixture, "--format", "pdparams", "--output", out)
	if code != 0 || strings.TrimSpace(stdout) != out {
		t.Fatalf("export exit %d: %q\n%s", code, stdout, errOut)
	}
	if err := pdtest.SameFile(out, fixture); err != nil {
		t.Fatal(err)
	}
}

// A PaddleX folder holding a Paddle program (no .onnx) is found by --*-model.
func TestModelFileFindsPaddleXPrograms(t *testing.T) {
	for _, name := range []string{"inference.json", "inference.pdmodel"} {
		dir := t.TempDir()
		for _, f := range []string{name, "inference.pdiparams", "inference.yml"} {
			if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := modelFile(dir)
		if err != nil || got != filepath.Join(dir, name) {
			t.Errorf("modelFile = %q, %v; want %s", got, err, name)
		}
	}
	if _, err := modelFile(t.TempDir()); err == nil || !strings.Contains(err.Error(), "inference.json") {
		t.Errorf("empty folder: err = %v", err)
	}
}
