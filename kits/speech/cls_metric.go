package speech

import (
	"paddle/core/metric"
)

// clsMetric is top-k accuracy (metric.TopK) plus macro-F1 and each class's
// F1 from the confusion matrix of the top-1 predictions (metric.ClassMetric).
type clsMetric struct {
	top     *metric.TopK
	classes *metric.ClassMetric
}

func newClsMetric(classes []string, ks []int) *clsMetric {
	return &clsMetric{top: metric.NewTopK(ks...), classes: metric.NewClassMetric(classes)}
}

// Update adds clips: scores (N, classes) row-major, one label each.
func (m *clsMetric) Update(scores []float32, labels []int) {
	m.top.Update(scores, m.classes.Classes, labels)
	m.classes.Update(scores, labels)
}

// Reset clears the counts.
func (m *clsMetric) Reset() {
	m.top.Reset()
	m.classes.Reset()
}

// Result reports top-k accuracy, "macro_f1" (the unweighted mean of the F1
// of the classes that occur as a label or a prediction, as scikit-learn's
// f1_score(average="macro") with its default labels) and "f1/<class>" for
// those classes.
func (m *clsMetric) Result() metric.Report {
	r := m.top.Result()
	macro, present := m.classes.PresentMacroF1()
	seen := false
	for c, s := range m.classes.PerClass() {
		if present[c] {
			r.Values["f1/"+m.classes.Labels[c]] = s.F1
			seen = true
		}
	}
	if seen {
		r.Values["macro_f1"] = macro
	}
	return r
}
