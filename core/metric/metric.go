// Package metric holds the metrics several kits share and the Report type
// every evaluation returns: a main scalar plus named scalars and optional
// tables, marshalled to JSON by the kit's own shape.
package metric

import (
	"fmt"
	"sort"
	"strings"
)

// Report is the result of an evaluation. Main names the value that picks
// the best checkpoint (higher is better).
type Report struct {
	Main   string             `json:"-"`
	Values map[string]float64 `json:"metrics"`
	Count  int                `json:"samples"`
}

// MainValue returns Values[Main].
func (r Report) MainValue() float64 { return r.Values[r.Main] }

// String formats the values in sorted key order: "top1=0.9812 top5=0.9990".
func (r Report) String() string {
	keys := make([]string, 0, len(r.Values))
	for k := range r.Values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%.5f", k, r.Values[k])
	}
	return strings.Join(parts, " ")
}

// TopK counts how often the true class is among the k highest scores, for
// each k (PaddleClas TopkAcc: top1, top5). Ties are broken toward the lower
// class index, as a stable sort by descending score does; NaN ranks above
// every number, as in torch.topk.
type TopK struct {
	Ks      []int
	correct []int
	n       int
}

// NewTopK returns a TopK accumulator for the given k values (default 1 and 5).
func NewTopK(ks ...int) *TopK {
	if len(ks) == 0 {
		ks = []int{1, 5}
	}
	return &TopK{Ks: ks, correct: make([]int, len(ks))}
}

// Update adds a batch: scores is (N, C) row-major, labels has N entries.
func (m *TopK) Update(scores []float32, classes int, labels []int) {
	for i, y := range labels {
		row := scores[i*classes : (i+1)*classes]
		// rank of the true class = how many classes beat it
		rank := 0
		for c, s := range row {
			if greater(s, row[y]) || (same(s, row[y]) && c < y) {
				rank++
			}
		}
		for j, k := range m.Ks {
			if rank < k {
				m.correct[j]++
			}
		}
		m.n++
	}
}

// greater orders scores as torch.topk does: NaN above every number. Without
// it a NaN true-class score would beat nothing and a diverged model would
// score 100%.
func greater(a, b float32) bool {
	an, bn := a != a, b != b
	return (an && !bn) || a > b
}

// same reports a tie: equal numbers, or both NaN.
func same(a, b float32) bool { return a == b || (a != a && b != b) }

// Reset clears the counts.
func (m *TopK) Reset() { clear(m.correct); m.n = 0 }

// Result returns top<k> accuracies; the main value is the first k.
func (m *TopK) Result() Report {
	r := Report{Main: fmt.Sprintf("top%d", m.Ks[0]), Values: map[string]float64{}, Count: m.n}
	for j, k := range m.Ks {
		v := 0.0
		if m.n > 0 {
			v = float64(m.correct[j]) / float64(m.n)
		}
		r.Values[fmt.Sprintf("top%d", k)] = v
	}
	return r
}
