package helix

import (
	"path/filepath"
	"testing"

	"paddle/core/cli/clitest"
)

// TestPredictGolden pins the records of `helix predict` (a fingerprint MLP
// after three steps on ChEMBL, seeded) for SMILES from --smiles and stdin,
// one of them unparsable, in testdata/golden/predict.jsonl (-update
// rewrites it).
func TestPredictGolden(t *testing.T) {
	needChEMBL(t)
	out := filepath.Join(t.TempDir(), "out")
	if code, _, errOut := paddle(t, "", "helix", "train", "-c", configPath("fp_mlp_chembl_reg.yaml"), "--output", out, "-o", "Global.max_steps=3"); code != 0 {
		t.Fatalf("train exit %d:\n%s", code, errOut)
	}
	code, stdout, errOut := paddle(t, "c1ccccc1O\nC\n", "helix", "predict", "--weights", filepath.Join(out, "latest"), "--format", "jsonl",
		"--smiles", "CCO", "--smiles", "C1CC(", "-")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (one bad SMILES):\n%s", code, errOut)
	}
	clitest.Golden(t, filepath.Join("testdata", "golden", "predict.jsonl"), stdout, nil)
}
