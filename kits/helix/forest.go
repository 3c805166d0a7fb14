package helix

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"

	"log/slog"

	"paddle/core/io"
	"paddle/core/metric"
)

// A random forest on Morgan bits, the classic fingerprint baseline, grown
// as sklearn's RandomForestClassifier grows its trees by default
// (bootstrap samples, leaves grown until pure or one sample, √bits
// candidate features drawn per split — for regression too, where sklearn
// 1.2 defaults to all features; bits constant in a node are not drawn,
// as sklearn does not count them). Bits are 0/1, so a split is "bit set or
// not", chosen by the largest decrease of the squared error (for 0/1
// labels that is the Gini decrease up to a factor). One forest per task,
// trained on the molecules labelled for it; a leaf predicts the mean label
// (for classification the fraction of actives: a probability).

// forestNode is a tree node: a leaf when Bit < 0.
type forestNode struct {
	Bit   int     `json:"b"`
	Left  int     `json:"l,omitempty"` // bit not set
	Right int     `json:"r,omitempty"` // bit set
	Value float64 `json:"v,omitempty"`
}

// Forest is one task's trees.
type Forest struct {
	Trees [][]forestNode `json:"trees"`
}

// Forests are the per-task forests saved as forest.json in a checkpoint.
type Forests struct {
	Radius int       `json:"radius"`
	Bits   int       `json:"bits"`
	Tasks  []*Forest `json:"tasks"`
}

const forestFile = "forest.json"

// fitForest grows n trees on x (rows of on-bits) and y.
func fitForest(x [][]int, y []float64, bits, n int, r *rand.Rand) *Forest {
	f := &Forest{}
	mtry := max(int(math.Sqrt(float64(bits))), 1)
	for range n {
		idx := make([]int, len(y))
		for i := range idx {
			idx[i] = r.IntN(len(y))
		}
		var tree []forestNode
		grow(&tree, x, y, idx, bits, mtry, r)
		f.Trees = append(f.Trees, tree)
	}
	return f
}

// grow appends the subtree for samples idx and returns its index.
func grow(tree *[]forestNode, x [][]int, y []float64, idx []int, bits, mtry int, r *rand.Rand) int {
	me := len(*tree)
	var sum float64
	for _, i := range idx {
		sum += y[i]
	}
	mean := sum / float64(len(idx))
	*tree = append(*tree, forestNode{Bit: -1, Value: mean})
	pure := true
	for _, i := range idx {
		if y[i] != y[idx[0]] {
			pure = false
			break
		}
	}
	if len(idx) < 2 || pure {
		return me
	}
	// sums of labels and counts of samples with each bit set
	setSum, setN := map[int]float64{}, map[int]int{}
	for _, i := range idx {
		for _, b := range x[i] {
			setSum[b] += y[i]
			setN[b]++
		}
	}
	n := float64(len(idx))
	best, bestGain := -1, 1e-12
	// candidates: mtry bits drawn without replacement among those that split
	// the node (set in some samples, not all): sklearn skips constant
	// features without counting them
	var valid []int
	for b, k := range setN {
		if k < len(idx) {
			valid = append(valid, b)
		}
	}
	sort.Ints(valid) // map order is random; the draw must not be
	for j := 0; j < mtry && j < len(valid); j++ {
		k := j + r.IntN(len(valid)-j)
		valid[j], valid[k] = valid[k], valid[j]
		b := valid[j]
		s1, n1 := setSum[b], float64(setN[b])
		s0, n0 := sum-s1, n-n1
		// decrease of the squared error: s1²/n1 + s0²/n0 − sum²/n
		if g := s1*s1/n1 + s0*s0/n0 - sum*sum/n; g > bestGain {
			best, bestGain = b, g
		}
	}
	if best < 0 {
		return me
	}
	var left, right []int
	for _, i := range idx {
		if hasBit(x[i], best) {
			right = append(right, i)
		} else {
			left = append(left, i)
		}
	}
	l := grow(tree, x, y, left, bits, mtry, r)
	rr := grow(tree, x, y, right, bits, mtry, r)
	(*tree)[me] = forestNode{Bit: best, Left: l, Right: rr, Value: mean}
	return me
}

// hasBit reports whether sorted on-bits contain b.
func hasBit(on []int, b int) bool {
	k := sort.SearchInts(on, b)
	return k < len(on) && on[k] == b
}

// predict averages the trees' leaves for on-bits x.
func (f *Forest) predict(x []int) float64 {
	s := 0.0
	for _, t := range f.Trees {
		k := 0
		for t[k].Bit >= 0 {
			if hasBit(x, t[k].Bit) {
				k = t[k].Right
			} else {
				k = t[k].Left
			}
		}
		s += t[k].Value
	}
	return s / float64(len(f.Trees))
}

// saveForests writes fs as dir/forest.json.
func saveForests(dir string, fs *Forests) error {
	b, err := json.Marshal(fs)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return io.WriteFileAtomic(filepath.Join(dir, forestFile), b, 0o644)
}

// loadForests reads dir/forest.json.
func loadForests(dir string) (*Forests, error) {
	b, err := os.ReadFile(filepath.Join(dir, forestFile))
	if err != nil {
		return nil, fmt.Errorf("--weights %s: %w (a RandomForest checkpoint holds %s)", dir, err, forestFile)
	}
	var fs Forests
	if err := json.Unmarshal(b, &fs); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, forestFile), err)
	}
	return &fs, nil
}

func (r *runner) isForest() bool { return r.model.Name == "RandomForest" }

// onBits returns the Morgan on-bits of molecules idx.
func (r *runner) onBits(mols []*Molecule) [][]int {
	x := make([][]int, len(mols))
	for i, m := range mols {
		x[i] = m.Mol.MorganBits(fpRadius(r.model), fpBits(r.model))
	}
	return x
}

func (r *runner) partMols(idx []int) []*Molecule {
	out := make([]*Molecule, len(idx))
	for k, i := range idx {
		out[k] = &r.mols[i]
	}
	return out
}

// trainForest fits the forests on the train part, saves them (with the
// config) as <output>/latest and logs the eval part's metrics.
func (r *runner) trainForest(out string) error {
	if err := r.load(); err != nil {
		return err
	}
	mols := r.partMols(r.parts[0])
	x := r.onBits(mols)
	fs := &Forests{Radius: fpRadius(r.model), Bits: fpBits(r.model)}
	n := r.model.Trees
	if n <= 0 {
		n = 100
	}
	rng := rand.New(rand.NewPCG(r.global.Seed, 11))
	for t := range r.ds.Tasks {
		var xs [][]int
		var ys []float64
		for i, m := range mols {
			if v := m.Labels[t]; !math.IsNaN(v) {
				xs, ys = append(xs, x[i]), append(ys, v)
			}
		}
		if len(ys) == 0 {
			return fmt.Errorf("%s: task %s has no training label", r.cfg.File, r.ds.Tasks[t])
		}
		fs.Tasks = append(fs.Tasks, fitForest(xs, ys, fs.Bits, n, rng))
	}
	dir := filepath.Join(out, "latest")
	if err := saveForests(dir, fs); err != nil {
		return err
	}
	y, err := r.cfg.YAML()
	if err != nil {
		return err
	}
	if err := io.WriteFileAtomic(filepath.Join(dir, "config.yaml"), y, 0o644); err != nil {
		return err
	}
	rep := r.evalForest(fs)
	slog.Info("eval", "epoch", 1, "step", 1, "metrics", rep.String(), "samples", rep.Count)
	slog.Info("saved checkpoint", "dir", dir)
	return nil
}

// forestPredict returns the forests' outputs (M×T) for molecules.
func (r *runner) forestPredict(fs *Forests, mols []*Molecule) []float64 {
	o := ModelOpts{Radius: fs.Radius, Bits: fs.Bits}
	out := make([]float64, 0, len(mols)*len(fs.Tasks))
	for _, m := range mols {
		on := m.Mol.MorganBits(fpRadius(o), fpBits(o))
		for _, f := range fs.Tasks {
			out = append(out, f.predict(on))
		}
	}
	return out
}

func (r *runner) evalForest(fs *Forests) metric.Report {
	mols := r.partMols(r.evalPart())
	mp := metric.NewMolProp(r.ds.Tasks, r.cls)
	var labels []float64
	for _, m := range mols {
		labels = append(labels, m.Labels...)
	}
	mp.Update(r.forestPredict(fs, mols), labels)
	return mp.Result()
}
