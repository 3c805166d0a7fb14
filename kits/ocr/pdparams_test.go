package ocr

import (
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
