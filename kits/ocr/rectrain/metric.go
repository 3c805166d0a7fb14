package rectrain

import (
	"paddle/core/editdist"
	"strings"
	"unicode"

	"paddle/core/metric"
)

// RecMetric is PaddleOCR's RecMetric: over all lines, acc = correct/(n+ε)
// and norm_edit_dis = 1 − Σ d(pred, target)/(n+ε), ε = 1e-5, where d is
// rapidfuzz's normalized Levenshtein distance (distance / the longer length,
// 0 for two empty strings). With IgnoreSpace (the default) spaces are
// removed first; with IsFilter only [0-9a-zA-Z] is kept, lower-cased.
type RecMetric struct {
	IgnoreSpace, IsFilter bool
	Main                  string // main indicator (default "acc")

	correct, all int
	editSum      float64
}

const recEps = 1e-5

// Update scores one batch of predictions against their targets.
func (m *RecMetric) Update(preds, targets []string) {
	for i, p := range preds {
		t := targets[i]
		if m.IgnoreSpace {
			p, t = strings.ReplaceAll(p, " ", ""), strings.ReplaceAll(t, " ", "")
		}
		if m.IsFilter {
			p, t = filterAlnum(p), filterAlnum(t)
		}
		m.editSum += editdist.Normalized(p, t)
		if p == t {
			m.correct++
		}
		m.all++
	}
}

// Reset forgets every update.
func (m *RecMetric) Reset() { m.correct, m.all, m.editSum = 0, 0, 0 }

// Result reports acc and norm_edit_dis.
func (m *RecMetric) Result() metric.Report {
	main := m.Main
	if main == "" {
		main = "acc"
	}
	n := float64(m.all) + recEps
	return metric.Report{Main: main, Count: m.all, Values: map[string]float64{
		"acc":           float64(m.correct) / n,
		"norm_edit_dis": 1 - m.editSum/n,
	}}
}

func filterAlnum(s string) string {
	var sb strings.Builder
	for _, c := range s {
		if c < 128 && (unicode.IsDigit(c) || unicode.IsLetter(c)) {
			sb.WriteRune(unicode.ToLower(c))
		}
	}
	return sb.String()
}
