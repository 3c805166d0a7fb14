package speech

import (
	"paddle/core/metric"
)

// clsMetric is top-k accuracy (core/metric.TopK) plus macro-F1 and each
// class's F1 from a confusion matrix of the top-1 predictions.
type clsMetric struct {
	top       *metric.TopK
	classes   []string
	confusion [][]int // [true][predicted]
}

func newClsMetric(classes []string, ks []int) *clsMetric {
	m := &clsMetric{top: metric.NewTopK(ks...), classes: classes}
	m.Reset()
	return m
}

// Update adds clips: scores (N, classes) row-major, one label each.
func (m *clsMetric) Update(scores []float32, labels []int) {
	k := len(m.classes)
	m.top.Update(scores, k, labels)
	for i, l := range labels {
		m.confusion[l][argmax(scores[i*k:(i+1)*k])]++
	}
}

func (m *clsMetric) Reset() {
	m.top.Reset()
	m.confusion = make([][]int, len(m.classes))
	for i := range m.confusion {
		m.confusion[i] = make([]int, len(m.classes))
	}
}

// classF1 returns each class's F1 = 2·TP / (predicted + true), and whether
// the class occurs at all (as a label or a prediction).
func (m *clsMetric) classF1() (f1 []float64, seen []bool) {
	k := len(m.classes)
	f1, seen = make([]float64, k), make([]bool, k)
	for c := range k {
		pred, truth := 0, 0
		for o := range k {
			pred += m.confusion[o][c]
			truth += m.confusion[c][o]
		}
		if pred+truth > 0 {
			seen[c] = true
			f1[c] = 2 * float64(m.confusion[c][c]) / float64(pred+truth)
		}
	}
	return f1, seen
}

// Result reports top-k accuracy, "macro_f1" (the unweighted mean of the F1
// of the classes that occur as a label or a prediction, as scikit-learn's
// f1_score(average="macro") with its default labels) and "f1/<class>".
func (m *clsMetric) Result() metric.Report {
	r := m.top.Result()
	f1, seen := m.classF1()
	sum, n := 0.0, 0
	for c, s := range seen {
		if s {
			sum += f1[c]
			n++
			r.Values["f1/"+m.classes[c]] = f1[c]
		}
	}
	if n > 0 {
		r.Values["macro_f1"] = sum / float64(n)
	}
	return r
}
