package nlp

import "paddle/core/metric"

// ClassMetric accumulates a confusion matrix and reports accuracy and
// macro-F1 (the unweighted mean over classes of each class's F1, a class
// with no true and no predicted sample counting F1 = 0 as scikit-learn's
// f1_score(average="macro", zero_division=0) does).
type ClassMetric struct {
	Classes   int
	Confusion [][]int // [true][predicted]
	Labels    []string
}

// NewClassMetric returns an empty accumulator for the given labels.
func NewClassMetric(labels []string) *ClassMetric {
	m := &ClassMetric{Classes: len(labels), Labels: labels}
	m.Reset()
	return m
}

// Reset clears the counts.
func (m *ClassMetric) Reset() {
	m.Confusion = make([][]int, m.Classes)
	for i := range m.Confusion {
		m.Confusion[i] = make([]int, m.Classes)
	}
}

// Add counts one sample.
func (m *ClassMetric) Add(truth, pred int) { m.Confusion[truth][pred]++ }

// Update adds a batch of (N, C) row-major scores: the prediction is the
// highest score, ties to the lower class.
func (m *ClassMetric) Update(scores []float32, labels []int) {
	for i, y := range labels {
		m.Add(y, argmax(scores[i*m.Classes:(i+1)*m.Classes]))
	}
}

func argmax(v []float32) int {
	best := 0
	for i, x := range v {
		if x > v[best] || (x != x && v[best] == v[best]) { // NaN wins: a diverged model scores nothing
			best = i
		}
	}
	return best
}

// F1 returns each class's F1 score.
func (m *ClassMetric) F1() []float64 {
	f := make([]float64, m.Classes)
	for c := range m.Classes {
		tp, predicted, actual := m.Confusion[c][c], 0, 0
		for o := range m.Classes {
			predicted += m.Confusion[o][c]
			actual += m.Confusion[c][o]
		}
		if predicted+actual > 0 {
			f[c] = 2 * float64(tp) / float64(predicted+actual)
		}
	}
	return f
}

// Result reports accuracy, macro_f1 (main) and f1_<label> per class.
func (m *ClassMetric) Result() metric.Report {
	n, correct := 0, 0
	for c := range m.Classes {
		for o := range m.Classes {
			n += m.Confusion[c][o]
		}
		correct += m.Confusion[c][c]
	}
	r := metric.Report{Main: "macro_f1", Values: map[string]float64{}, Count: n}
	acc, macro := 0.0, 0.0
	if n > 0 {
		acc = float64(correct) / float64(n)
	}
	for c, f := range m.F1() {
		macro += f
		r.Values["f1_"+m.Labels[c]] = f
	}
	if m.Classes > 0 {
		macro /= float64(m.Classes)
	}
	r.Values["accuracy"], r.Values["macro_f1"] = acc, macro
	return r
}
