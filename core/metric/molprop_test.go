package metric

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

func TestMolPropWorkedExample(t *testing.T) {
	score := []float64{0.1, 0.4, 0.4, 0.8}
	label := []bool{false, true, false, true}
	if v, _ := ROCAUC(score, label); math.Abs(v-0.875) > 1e-12 {
		t.Errorf("roc_auc %v, want 0.875", v)
	}
	if v, _ := AveragePrecision(score, label); math.Abs(v-5.0/6) > 1e-12 {
		t.Errorf("average precision %v, want 0.8333", v)
	}
	if _, err := ROCAUC([]float64{1, 2}, []bool{true, true}); err == nil {
		t.Error("one class: want an error")
	}
	// regression: errors 1, -1, 2, 0 → RMSE sqrt(6/4), MAE 1; labels mean 2.5, SS_tot 5 → R² 1 - 6/5
	p, y := []float64{2, 1, 5, 4}, []float64{1, 2, 3, 4}
	if RMSE(p, y) != math.Sqrt(1.5) || MAE(p, y) != 1 || math.Abs(R2(p, y)-(-0.2)) > 1e-12 {
		t.Errorf("rmse %v mae %v r2 %v", RMSE(p, y), MAE(p, y), R2(p, y))
	}
}

func TestMolPropMasksMissingAndAverages(t *testing.T) {
	nan := math.NaN()
	m := NewMolProp([]string{"a", "b", "c"}, true)
	// task a: worked example; task b: perfect with one missing; task c: one class only (skipped)
	m.Update([]float64{0.1, 0.9, 0.3, 0.4, 0.2, 0.3}, []float64{0, 1, 1, 1, 0, 1})
	m.Update([]float64{0.4, 0.5, 0.1, 0.8, 0.7, 0.2}, []float64{0, nan, 1, 1, 1, 1})
	r := m.Result()
	// a: scores .1 .4 .4 .8 labels 0 1 0 1 → 0.875; b: .9 .2 .7 → labels 1 0 1 → 1
	if math.Abs(r.Values["roc_auc"]-(0.875+1)/2) > 1e-12 || r.Values["skipped_tasks"] != 1 || r.Count != 4 || r.Main != "roc_auc" {
		t.Errorf("report %v", r)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Error(err)
	}
	g := NewMolProp([]string{"y"}, false)
	g.Update([]float64{2, 1}, []float64{1, 2})
	g.Update([]float64{5, 4, 9}, []float64{3, 4, nan})
	if r := g.Result(); math.Abs(r.Values["rmse"]-math.Sqrt(1.5)) > 1e-12 || r.Values["mae"] != 1 || r.Main != "r2" {
		t.Errorf("regression report %v", r)
	}
}

// TestMolPropMatchesSklearn checks against scikit-learn 1.2's values
// (scripts/ref/molprop_metrics_sklearn.py; ties included).
func TestMolPropMatchesSklearn(t *testing.T) {
	b, err := os.ReadFile("testdata/molprop_sklearn.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []struct {
			Kind               string
			Label, Score, Pred []float64
			RocAuc             float64 `json:"roc_auc"`
			AveragePrecision   float64 `json:"average_precision"`
			Rmse, Mae, R2      float64
		}
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: %v, sklearn %v", name, got, want)
		}
	}
	for i, c := range g.Cases {
		if c.Kind == "binary" {
			lb := make([]bool, len(c.Label))
			for j, v := range c.Label {
				lb[j] = v == 1
			}
			auc, _ := ROCAUC(c.Score, lb)
			ap, _ := AveragePrecision(c.Score, lb)
			near("roc_auc", auc, c.RocAuc)
			near("ap", ap, c.AveragePrecision)
			continue
		}
		near("rmse", RMSE(c.Pred, c.Label), c.Rmse)
		near("mae", MAE(c.Pred, c.Label), c.Mae)
		near("r2", R2(c.Pred, c.Label), c.R2)
		_ = i
	}
}
