package speech

import (
	"fmt"
	"log/slog"
	"math"
	"sort"

	"paddle/core/ag"
	"paddle/core/metric"
	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Two more label-free evaluation options.
//
// Ensembles (Global.ensemble: [DIR, ...]): the class probabilities of
// --weights' model and of each listed checkpoint (the same Arch and
// classes, each loaded alone) are averaged clip by clip — prediction
// averaging, unlike average_with's weight averaging. Under test warps the
// models are averaged per warp before the warps are merged.
//
// Per-group warps (test_combine: group, classical VTLN): every clip is
// scored under each test warp, then ONE warp is chosen per group of clips
// (a speaker) — the warp under which the sum over the group's clips of
// log(top class probability) is largest, the model's total confidence as
// VTLN's likelihood — and each clip is answered under its group's warp.
// The groups come from test_groups: a file of `<path><TAB or space><group>`
// lines, the path written as the eval list writes it (a .mfc word with its
// @start-end); every clip of the list must have a group.

// readGroups reads a test_groups file into path → group.
func readGroups(path string) (map[string]string, error) {
	out := map[string]string{}
	err := eachPair(path, "<path> <group>", func(clip, group string) error {
		out[clip] = group
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("test_groups: %w", err)
	}
	return out, nil
}

// assignGroups sets each item's Group from the test_groups file and
// returns the group names (by index).
func assignGroups(items []kwsItem, file string) ([]string, error) {
	g, err := readGroups(file)
	if err != nil {
		return nil, err
	}
	index := map[string]int{}
	var names []string
	for i := range items {
		name, ok := g[items[i].Key]
		if !ok {
			return nil, fmt.Errorf("test_groups %s: no group for clip %s", file, items[i].Key)
		}
		j, ok := index[name]
		if !ok {
			j = len(names)
			index[name] = j
			names = append(names, name)
		}
		items[i].Group = j
	}
	return names, nil
}

// loadEnsemble loads each Global.ensemble checkpoint into a new model.
func (r *kwsRunner) loadEnsemble() ([]nn.Layer, error) {
	var out []nn.Layer
	for _, d := range r.global.Ensemble {
		m, err := r.newModel()
		if err != nil {
			return nil, err
		}
		if _, err := workflow.LoadCheckpoint(d, m, nil); err != nil {
			return nil, fmt.Errorf("Global.ensemble: %w", err)
		}
		out = append(out, m)
	}
	return out, nil
}

// clipProbs runs every model on a batch (N, W, T, F) of W warps per clip
// and returns each clip's class probabilities under each warp, averaged
// over the models: [clip][warp][class].
func clipProbs(models []nn.Layer, x *tensor.Tensor) ([][][]float64, error) {
	s := x.Shape()
	n, w := s[0], s[1]
	in := ag.Const(x.Contiguous().Reshape(n*w, 1, s[2], s[3]))
	out := make([][][]float64, n)
	for mi, m := range models {
		l := m.Forward(in, false).T.Contiguous().F32()
		k := len(l) / (n * w)
		if k*n*w != len(l) {
			return nil, fmt.Errorf("test warps: %d logits for %d clips x %d warps", len(l), n, w)
		}
		for i := range n {
			if mi == 0 {
				out[i] = make([][]float64, w)
			}
			for j := range w {
				p := softmax64(l[(i*w+j)*k : (i*w+j+1)*k])
				if mi == 0 {
					out[i][j] = make([]float64, k)
				}
				for c, v := range p {
					out[i][j][c] += v / float64(len(models))
				}
			}
		}
	}
	return out, nil
}

// groupWarpMetric keeps every clip's per-warp probabilities until Result,
// which picks one warp per group (groupWarps) and scores the clips under it.
type groupWarpMetric struct {
	inner  *kwsMetric
	warps  []float64
	names  []string // group names by index
	probs  [][][]float64
	labels []int
	groups []int
}

func (m *groupWarpMetric) add(p [][][]float64, labels, groups []int) {
	m.probs = append(m.probs, p...)
	m.labels = append(m.labels, labels...)
	m.groups = append(m.groups, groups...)
}

func (m *groupWarpMetric) Reset() {
	m.inner.Reset()
	m.probs, m.labels, m.groups = nil, nil, nil
}

func (m *groupWarpMetric) Result() metric.Report {
	m.inner.Reset()
	choice := groupWarps(m.probs, m.groups)
	keys := make([]int, 0, len(choice))
	for g := range choice {
		keys = append(keys, g)
	}
	sort.Ints(keys)
	for _, g := range keys {
		name := fmt.Sprint(g)
		if g >= 0 && g < len(m.names) {
			name = m.names[g]
		}
		w := float64(choice[g])
		if choice[g] < len(m.warps) {
			w = m.warps[choice[g]]
		}
		slog.Info("test_combine group", "group", name, "warp", w)
	}
	k := len(m.inner.classes)
	scores := make([]float32, 0, len(m.probs)*k)
	for i, p := range m.probs {
		for _, v := range p[choice[m.groups[i]]] {
			scores = append(scores, float32(v))
		}
	}
	m.inner.Update(scores, m.labels)
	return m.inner.Result()
}

// groupWarps picks, for each group, the warp j maximising the sum over the
// group's clips of log(max class probability under j); ties go to the
// lower index. probs is [clip][warp][class], groups each clip's group.
func groupWarps(probs [][][]float64, groups []int) map[int]int {
	score := map[int][]float64{}
	for i, p := range probs {
		s := score[groups[i]]
		if s == nil {
			s = make([]float64, len(p))
			score[groups[i]] = s
		}
		for j, row := range p {
			top := 0.0
			for _, v := range row {
				top = math.Max(top, v)
			}
			s[j] += math.Log(math.Max(top, 1e-30))
		}
	}
	out := map[int]int{}
	for g, s := range score {
		best := 0
		for j, v := range s {
			if v > s[best] {
				best = j
			}
		}
		out[g] = best
	}
	return out
}
