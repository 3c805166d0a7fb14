package metric

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"
)

// ClassMetric against scikit-learn's accuracy_score, f1_score (micro, macro,
// weighted) and precision_recall_fscore_support with zero_division=0, on
// three seeded label sets (scripts/ref/class_metric.py), including a class
// never true and one neither true nor predicted.
func TestClassMetricMatchesSklearn(t *testing.T) {
	b, err := os.ReadFile("testdata/classes_sklearn.json")
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

// Worked example: truths 0 0 0 1 1 2, predictions 0 0 1 1 2 2.
// Class 0: tp 2, predicted 2, actual 3 → F1 = 2·2/(2+3) = 0.8.
// Class 1: tp 1, predicted 2, actual 2 → F1 = 2/4 = 0.5.
// Class 2: tp 1, predicted 2, actual 1 → F1 = 2/3.
// Macro-F1 = (0.8 + 0.5 + 2/3)/3 = 0.655556; accuracy 4/6.
// A class never seen nor predicted scores 0 (scikit-learn, zero_division=0).
func TestMacroF1WorkedExample(t *testing.T) {
	m := NewClassMetric([]string{"a", "b", "c"})
	truth, pred := []int{0, 0, 0, 1, 1, 2}, []int{0, 0, 1, 1, 2, 2}
	scores := make([]float32, 3*len(pred))
	for i, p := range pred {
		scores[i*3+p] = 1
	}
	m.Update(scores, truth)
	r := m.Result()
	want := map[string]float64{"accuracy": 4.0 / 6, "macro_f1": (0.8 + 0.5 + 2.0/3) / 3, "f1_a": 0.8, "f1_b": 0.5, "f1_c": 2.0 / 3}
	for k, w := range want {
		if math.Abs(r.Values[k]-w) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, r.Values[k], w)
		}
	}
	if r.Main != "macro_f1" || r.Count != 6 {
		t.Errorf("report %+v", r)
	}
	m.Reset()
	m.Add(0, 0)
	m.Add(0, 0)
	m.Add(1, 0)
	// class 0: 2·2/(3+2) = 0.8; class 1: 0; class 2: absent → 0
	if got := m.Result().Values["macro_f1"]; math.Abs(got-0.8/3) > 1e-12 {
		t.Errorf("macro_f1 with an absent class = %v, want %v", got, 0.8/3)
	}
	// a NaN score is the prediction: a diverged model gets no credit
	m.Reset()
	m.Update([]float32{1, float32(math.NaN()), 0}, []int{0})
	if m.Result().Values["accuracy"] != 0 {
		t.Error("NaN scores scored as correct")
	}
}

// PresentMacroF1 on a hand-worked example: truth [a a b c], predicted
// [a b b b]: F1(a) = 2·1/(1+2) = 2/3, F1(b) = 2·1/(3+1) = 1/2, F1(c) = 0;
// class d never occurs and is left out, so the mean is 7/18 (Result's
// macro_f1, over all four classes, is 7/24).
func TestPresentMacroF1(t *testing.T) {
	m := NewClassMetric([]string{"a", "b", "c", "d"})
	for i, p := range []int{0, 1, 1, 1} {
		m.Add([]int{0, 0, 1, 2}[i], p)
	}
	got, present := m.PresentMacroF1()
	if math.Abs(got-7.0/18) > 1e-12 || fmt.Sprint(present) != "[true true true false]" {
		t.Errorf("PresentMacroF1 = %v %v, want 7/18 [true true true false]", got, present)
	}
	if r := m.Result().Values["macro_f1"]; math.Abs(r-7.0/24) > 1e-12 {
		t.Errorf("macro_f1 = %v, want 7/24", r)
	}
}
