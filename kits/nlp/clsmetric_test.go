package nlp

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"
)

// ClassMetric against scikit-learn's accuracy_score, f1_score (micro, macro,
// weighted) and precision_recall_fscore_support with zero_division=0, on
// three seeded label sets (scripts/ref/nlp_clsmetric.py), including a class
// never true and one neither true nor predicted.
func TestClassMetricMatchesSklearn(t *testing.T) {
	b, err := os.ReadFile("testdata/clsmetric_sklearn.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Name                  string
			Truth, Pred           []int
			Accuracy              float64
			MicroF1               float64 `json:"micro_f1"`
			MacroF1               float64 `json:"macro_f1"`
			WeightedF1            float64 `json:"weighted_f1"`
			MacroPrecision        float64 `json:"macro_precision"`
			MacroRecall           float64 `json:"macro_recall"`
			Precision, Recall, F1 []float64
			Support               []int
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	labels := []string{"a", "b", "c", "d", "e"}
	for _, c := range ref.Cases {
		m := NewClassMetric(labels)
		for i := range c.Truth {
			m.Add(c.Truth[i], c.Pred[i])
		}
		r := m.Result()
		want := map[string]float64{"accuracy": c.Accuracy, "macro_f1": c.MacroF1, "weighted_f1": c.WeightedF1,
			"macro_precision": c.MacroPrecision, "macro_recall": c.MacroRecall}
		for i, l := range labels {
			want["precision_"+l], want["recall_"+l], want["f1_"+l] = c.Precision[i], c.Recall[i], c.F1[i]
			want["support_"+l] = float64(c.Support[i])
		}
		for k, w := range want {
			if got, ok := r.Values[k]; !ok || math.Abs(got-w) > 1e-12 {
				t.Errorf("%s: %s = %v, want %v", c.Name, k, got, w)
			}
		}
		if r.Values["micro_f1"] != r.Values["accuracy"] {
			t.Errorf("%s: micro_f1 %v != accuracy %v", c.Name, r.Values["micro_f1"], r.Values["accuracy"])
		}
		if r.Count != len(c.Truth) || r.Main != "macro_f1" {
			t.Errorf("%s: report %+v", c.Name, r)
		}
	}
	if len(ref.Cases) != 3 {
		t.Fatal(fmt.Sprint("cases: ", len(ref.Cases)))
	}
}
