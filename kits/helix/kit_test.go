package helix

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/cli/clitest"
	"paddle/core/cli/cmdutil"
	"paddle/core/config"
)

// paddle runs the CLI with only this kit and returns the exit code, stdout and stderr.
func paddle(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return clitest.Run(t, []*cmdutil.Kit{Kit()}, stdin, args...)
}

func configPath(name string) string { return filepath.Join("..", "..", "configs", "helix", name) }

// needChEMBL skips when rdkit-data's CHEMBL2321810 files are not in the cache.
func needChEMBL(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(resolvePath("rdkit-data/usr/share/RDKit/Contrib/FreeWilson/data/CHEMBL2321810.smi")); err != nil {
		t.Skip("rdkit-data not found in $PADDLE_CACHE/data (run scripts/setup.sh)")
	}
}

// untrained scores a freshly initialised model of the config on its eval part.
func untrained(t *testing.T, cfgFile string, overrides ...string) map[string]float64 {
	t.Helper()
	cfg, err := config.Load(cfgFile, overrides...)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := rr.(*runner)
	m, err := r.newModel()
	if err != nil {
		t.Fatal(err)
	}
	task, err := r.task(m, false)
	if err != nil {
		t.Fatal(err)
	}
	r.labelScale(m)
	rep, err := task.Eval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep.Values
}

// trainEval trains with the CLI and returns the eval report of latest.
func trainEval(t *testing.T, cfgFile, out string, overrides ...string) map[string]float64 {
	t.Helper()
	args := []string{"helix", "train", "-c", cfgFile, "--output", out}
	for _, o := range overrides {
		args = append(args, "-o", o)
	}
	if code, _, errOut := paddle(t, "", args...); code != 0 {
		t.Fatalf("train exit %d:\n%s", code, errOut)
	}
	args = []string{"helix", "eval", "-c", cfgFile, "--weights", filepath.Join(out, "latest"), "--format", "json"}
	for _, o := range overrides {
		args = append(args, "-o", o)
	}
	code, stdout, errOut := paddle(t, "", args...)
	if code != 0 {
		t.Fatalf("eval exit %d:\n%s", code, errOut)
	}
	var rep struct {
		Metrics map[string]float64 `json:"metrics"`
		Samples int                `json:"samples"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("eval output %q: %v", stdout, err)
	}
	return rep.Metrics
}

// TestFingerprintMLPLearnsChEMBL trains the baseline 3 epochs (78 steps) on
// CHEMBL2321810's random split. Measured: untrained R² −0.01 (the label
// scaling makes an untrained model predict about the training mean),
// trained 0.79 (RMSE 1.10 → 0.50); floor halfway.
func TestFingerprintMLPLearnsChEMBL(t *testing.T) {
	needChEMBL(t)
	ov := []string{"Split.name=random", "Global.epochs=3", "Global.eval_interval=0"}
	before := untrained(t, configPath("fp_mlp_chembl_reg.yaml"), ov...)
	after := trainEval(t, configPath("fp_mlp_chembl_reg.yaml"), filepath.Join(t.TempDir(), "out"), ov...)
	t.Logf("untrained %v, trained %v", before, after)
	if floor := (-0.01 + 0.79) / 2; after["r2"] < floor || after["rmse"] > 1 {
		t.Errorf("R² %.3f (floor %.3f), RMSE %.3f", after["r2"], floor, after["rmse"])
	}
}

// TestGINLearnsChEMBLActivity trains a small GIN classifier (Act ≥ 6) for
// 4 epochs on the random split. Measured: untrained ROC-AUC 0.43, trained
// 0.70; floor halfway.
func TestGINLearnsChEMBLActivity(t *testing.T) {
	needChEMBL(t)
	ov := []string{"Split.name=random", "Global.epochs=4", "Global.eval_interval=0", "Model.embed_dim=32", "Model.layer_num=2", "Model.readout=mean"}
	before := untrained(t, configPath("gin_chembl_cls.yaml"), ov...)
	after := trainEval(t, configPath("gin_chembl_cls.yaml"), filepath.Join(t.TempDir(), "out"), ov...)
	t.Logf("untrained %v, trained %v", before, after)
	if floor := (0.43 + 0.70) / 2; after["roc_auc"] < floor {
		t.Errorf("ROC-AUC %.3f (floor %.3f)", after["roc_auc"], floor)
	}
}

type predLine struct {
	Smiles, Canonical, Error string
	Predictions              struct{ Act *float64 }
	Act                      *float64 `json:"-"` // Predictions.Act
}

func predictLines(t *testing.T, stdout string) []predLine {
	t.Helper()
	var out []predLine
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var p predLine
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		p.Act = p.Predictions.Act
		out = append(out, p)
	}
	return out
}

// TestExportPredictMatchesCheckpoint: a briefly trained model predicts the
// same values from its checkpoint (segment ops) and from its export
// (model.onnx on core/runtime, dense graph form), for SMILES from flags
// and stdin, with the canonical SMILES and a per-molecule parse error.
func TestExportPredictMatchesCheckpoint(t *testing.T) {
	needChEMBL(t)
	for _, c := range []struct{ cfg, readout string }{
		{"gin_chembl_reg.yaml", "attention"}, {"gin_chembl_cls.yaml", "max"}, {"fp_mlp_chembl_reg.yaml", ""},
	} {
		dir := t.TempDir()
		out, exp := filepath.Join(dir, "out"), filepath.Join(dir, "exp")
		ov := []string{"-o", "Global.max_steps=3", "-o", "Model.embed_dim=16", "-o", "Model.layer_num=2"}
		if c.readout != "" {
			ov = append(ov, "-o", "Model.readout="+c.readout)
		}
		if code, _, errOut := paddle(t, "", append([]string{"helix", "train", "-c", configPath(c.cfg), "--output", out}, ov...)...); code != 0 {
			t.Fatalf("%s: train exit %d:\n%s", c.cfg, code, errOut)
		}
		if code, _, errOut := paddle(t, "", "helix", "export", "--weights", filepath.Join(out, "latest"), "--output", exp); code != 0 {
			t.Fatalf("%s: export exit %d:\n%s", c.cfg, code, errOut)
		}
		stdin := "c1ccccc1O\nO=S(=O)(Nc1cccs1)c2ccc(Oc3ccccc3c4ccccc4)c(c2)C#N 1520012\n"
		args := []string{"--smiles", "CCO", "--smiles", "C1CC(", "-"}
		code1, o1, e1 := paddle(t, stdin, append([]string{"helix", "predict", "--weights", filepath.Join(out, "latest")}, args...)...)
		code2, o2, e2 := paddle(t, stdin, append([]string{"helix", "predict", "--model", exp}, args...)...)
		if code1 != 1 || code2 != 1 {
			t.Fatalf("%s: exit %d, %d (want 1: one SMILES is bad)\n%s\n%s", c.cfg, code1, code2, e1, e2)
		}
		p1, p2 := predictLines(t, o1), predictLines(t, o2)
		if len(p1) != 4 || len(p2) != 4 || p1[1].Error == "" || p1[0].Canonical != "C(C)O" || p1[2].Smiles != "c1ccccc1O" {
			t.Fatalf("%s: predictions %+v", c.cfg, p1)
		}
		for i := range p1 {
			if (p1[i].Act == nil) != (p2[i].Act == nil) || p1[i].Act != nil && math.Abs(*p1[i].Act-*p2[i].Act) > 2e-4 {
				t.Errorf("%s: line %d: checkpoint %+v, export %+v", c.cfg, i, p1[i], p2[i])
			}
		}
		// a batch without any bond (an empty edge set in the dense form)
		_, o1, _ = paddle(t, "", "helix", "predict", "--weights", filepath.Join(out, "latest"), "--smiles", "C", "--smiles", "[Na+].[Cl-]")
		code2, o2, e2 = paddle(t, "", "helix", "predict", "--model", exp, "--smiles", "C", "--smiles", "[Na+].[Cl-]")
		if q1, q2 := predictLines(t, o1), predictLines(t, o2); code2 != 0 || len(q1) != 2 || len(q2) != 2 || math.Abs(*q1[1].Act-*q2[1].Act) > 2e-4 {
			t.Errorf("%s: bondless batch: exit %d %s\n%s\n%s", c.cfg, code2, o1, o2, e2)
		}
		if c.cfg == "gin_chembl_cls.yaml" && (*p1[0].Act < 0 || *p1[0].Act > 1) {
			t.Errorf("classification output %v is not a probability", *p1[0].Act)
		}
	}
}

// TestRandomForestChEMBL fits 30 trees on CHEMBL2321810's random split.
// Measured: R² 0.76 (RMSE 0.53) against 0 for the training-mean predictor
// (what an untrained model gives); floor halfway. The checkpoint predicts,
// and export says there is no ONNX form.
func TestRandomForestChEMBL(t *testing.T) {
	needChEMBL(t)
	out := filepath.Join(t.TempDir(), "out")
	after := trainEval(t, configPath("rf_chembl_reg.yaml"), out, "Split.name=random", "Model.n_estimators=30")
	t.Logf("trained %v", after)
	if floor := (0 + 0.76) / 2; after["r2"] < floor {
		t.Errorf("R² %.3f (floor %.3f)", after["r2"], floor)
	}
	code, stdout, errOut := paddle(t, "", "helix", "predict", "--weights", filepath.Join(out, "latest"), "--smiles", "CCO")
	if p := predictLines(t, stdout); code != 0 || len(p) != 1 || p[0].Act == nil || *p[0].Act < 4 || *p[0].Act > 9.3 {
		t.Errorf("predict exit %d: %s\n%s", code, stdout, errOut)
	}
	if code, _, errOut := paddle(t, "", "helix", "export", "--weights", filepath.Join(out, "latest"), "--output", filepath.Join(out, "exp")); code == 0 || !strings.Contains(errOut, "no ONNX export") {
		t.Errorf("export exit %d: %s", code, errOut)
	}
}
