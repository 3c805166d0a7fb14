package metric

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
		m.Add(y, Argmax(scores[i*m.Classes:(i+1)*m.Classes]))
	}
}

// Argmax returns the index of the highest score, ties to the lower index;
// a NaN wins, so a diverged model scores nothing.
func Argmax(v []float32) int {
	best := 0
	for i, x := range v {
		if x > v[best] || (x != x && v[best] == v[best]) {
			best = i
		}
	}
	return best
}

// ClassScores are one class's precision, recall, F1 and support (true
// samples), as scikit-learn's classification_report gives them.
type ClassScores struct {
	Precision, Recall, F1 float64
	Support               int
}

// PerClass returns each class's scores; a ratio whose denominator is 0 is 0
// (scikit-learn's zero_division=0).
func (m *ClassMetric) PerClass() []ClassScores {
	out := make([]ClassScores, m.Classes)
	for c := range m.Classes {
		tp, predicted, actual := m.Confusion[c][c], 0, 0
		for o := range m.Classes {
			predicted += m.Confusion[o][c]
			actual += m.Confusion[c][o]
		}
		s := ClassScores{Support: actual}
		if predicted > 0 {
			s.Precision = float64(tp) / float64(predicted)
		}
		if actual > 0 {
			s.Recall = float64(tp) / float64(actual)
		}
		if predicted+actual > 0 {
			s.F1 = 2 * float64(tp) / float64(predicted+actual)
		}
		out[c] = s
	}
	return out
}

// F1 returns each class's F1 score.
func (m *ClassMetric) F1() []float64 {
	f := make([]float64, m.Classes)
	for c, s := range m.PerClass() {
		f[c] = s.F1
	}
	return f
}

// Result reports, as flat keys (Report has no tables): accuracy;
// micro_f1 (pooled counts: equal to accuracy for one label per text);
// macro_precision, macro_recall, macro_f1 (main: unweighted means over the
// classes) and weighted_f1 (weighted by support); and per class
// precision_<label>, recall_<label>, f1_<label> and support_<label>.
func (m *ClassMetric) Result() Report {
	n, correct := 0, 0
	for c := range m.Classes {
		for o := range m.Classes {
			n += m.Confusion[c][o]
		}
		correct += m.Confusion[c][c]
	}
	r := Report{Main: "macro_f1", Values: map[string]float64{}, Count: n}
	acc := 0.0
	if n > 0 {
		acc = float64(correct) / float64(n)
	}
	var mp, mr, mf, wf float64
	for c, s := range m.PerClass() {
		mp, mr, mf = mp+s.Precision, mr+s.Recall, mf+s.F1
		wf += s.F1 * float64(s.Support)
		l := m.Labels[c]
		r.Values["precision_"+l], r.Values["recall_"+l], r.Values["f1_"+l] = s.Precision, s.Recall, s.F1
		r.Values["support_"+l] = float64(s.Support)
	}
	if k := float64(m.Classes); k > 0 {
		mp, mr, mf = mp/k, mr/k, mf/k
	}
	if n > 0 {
		wf /= float64(n)
	}
	r.Values["accuracy"], r.Values["micro_f1"] = acc, acc
	r.Values["macro_precision"], r.Values["macro_recall"], r.Values["macro_f1"] = mp, mr, mf
	r.Values["weighted_f1"] = wf
	return r
}

// PresentMacroF1 is scikit-learn's f1_score(average="macro") with its
// default labels: the mean F1 over the classes that occur as a label or a
// prediction (Result's macro_f1 averages over every class instead). It
// also returns which classes occur.
func (m *ClassMetric) PresentMacroF1() (float64, []bool) {
	present := make([]bool, m.Classes)
	sum, n := 0.0, 0
	for c, s := range m.PerClass() {
		predicted := 0
		for o := range m.Classes {
			predicted += m.Confusion[o][c]
		}
		if s.Support+predicted > 0 {
			present[c] = true
			sum += s.F1
			n++
		}
	}
	if n == 0 {
		return 0, present
	}
	return sum / float64(n), present
}
