package rectrain

import (
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
		m.editSum += NormalizedLevenshtein(p, t)
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

// Levenshtein is the edit distance between a and b in characters (insertions,
// deletions and substitutions each cost 1).
func Levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// NormalizedLevenshtein is rapidfuzz's Levenshtein.normalized_distance:
// Levenshtein(a, b) / max(len(a), len(b)), 0 when both are empty.
func NormalizedLevenshtein(a, b string) float64 {
	n := max(len([]rune(a)), len([]rune(b)))
	if n == 0 {
		return 0
	}
	return float64(Levenshtein(a, b)) / float64(n)
}
