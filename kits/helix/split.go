package helix

import (
	"fmt"
	"math"
	"math/rand/v2"
	"paddle/core/config"
	"sort"
)

// SplitOpts is the Split section: how molecules are divided into train,
// valid and test parts.
type SplitOpts struct {
	Name string    `yaml:"name"` // random | scaffold | stratified
	Frac []float64 `yaml:"frac"` // [train, valid, test] (default [0.8, 0.1, 0.1])
	Seed uint64    `yaml:"seed"` // random and stratified splits (scaffold is deterministic)
	Eval string    `yaml:"eval"` // the part `eval` and training evaluation score: test (default) | valid
}

// Split returns the indices of the train, valid and test parts.
func Split(mols []Molecule, o SplitOpts) (train, valid, test []int, err error) {
	frac := o.Frac
	if len(frac) == 0 {
		frac = []float64{0.8, 0.1, 0.1}
	}
	if len(frac) != 3 || frac[0] <= 0 || frac[1] < 0 || frac[2] < 0 || math.Abs(frac[0]+frac[1]+frac[2]-1) > 1e-6 {
		return nil, nil, nil, fmt.Errorf("Split.frac: %v: want [train, valid, test] summing to 1", o.Frac)
	}
	name := o.Name
	if name == "" {
		name = "random"
	}
	split, ok := splits.Get(name)
	if !ok {
		return nil, nil, nil, fmt.Errorf("Split.name: %q (known: %s)", o.Name, splits.Known())
	}
	train, valid, test = split(mols, frac, o.Seed)
	return train, valid, test, nil
}

// splits are the Split.name values ("" is random); scaffold is deterministic.
var splits = new(config.Choices[func(mols []Molecule, frac []float64, seed uint64) (a, b, c []int)]).
	Add("random", func(mols []Molecule, frac []float64, seed uint64) (a, b, c []int) {
		return randomSplit(len(mols), frac, seed)
	}).
	Add("scaffold", func(mols []Molecule, frac []float64, _ uint64) (a, b, c []int) { return scaffoldSplit(mols, frac) }).
	Add("stratified", stratifiedSplit)

// randomSplit shuffles the indices with the seed and cuts them.
func randomSplit(n int, frac []float64, seed uint64) (a, b, c []int) {
	perm := rand.New(rand.NewPCG(seed, 0x5eed)).Perm(n)
	nt := int(frac[0] * float64(n))
	nv := int((frac[0] + frac[1]) * float64(n))
	return perm[:nt], perm[nt:nv], perm[nv:]
}

// scaffoldSplit groups molecules by Bemis–Murcko scaffold and fills train,
// then valid, then test with whole groups, largest groups first (ties: the
// group whose first molecule comes later first), as DeepChem's and
// PaddleHelix's ScaffoldSplitter: a group that would overflow train goes
// to valid, one that would overflow valid goes to test.
func scaffoldSplit(mols []Molecule, frac []float64) (a, b, c []int) {
	groups := map[string][]int{}
	var keys []string
	for i, m := range mols {
		sc := m.Mol.Scaffold()
		sc.ClearStereo()
		k := sc.SMILES()
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	sort.SliceStable(keys, func(x, y int) bool {
		gx, gy := groups[keys[x]], groups[keys[y]]
		if len(gx) != len(gy) {
			return len(gx) > len(gy)
		}
		return gx[0] > gy[0]
	})
	n := float64(len(mols))
	trainCut, validCut := frac[0]*n, (frac[0]+frac[1])*n
	for _, k := range keys {
		g := groups[k]
		switch {
		case float64(len(a)+len(g)) <= trainCut:
			a = append(a, g...)
		case float64(len(a)+len(b)+len(g)) <= validCut:
			b = append(b, g...)
		default:
			c = append(c, g...)
		}
	}
	return a, b, c
}

// stratifiedSplit keeps the label distribution of the first task in each
// part: molecules sorted by that label (missing last) are taken in blocks
// of ten, each block shuffled and dealt by the fractions (DeepChem's
// SingletaskStratifiedSplitter); for 0/1 labels this is a per-class split.
func stratifiedSplit(mols []Molecule, frac []float64, seed uint64) (a, b, c []int) {
	r := rand.New(rand.NewPCG(seed, 0x57a7))
	idx := make([]int, len(mols))
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) float64 {
		v := mols[i].Labels[0]
		if math.IsNaN(v) {
			return math.Inf(1)
		}
		return v
	}
	r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
	sort.SliceStable(idx, func(x, y int) bool { return key(idx[x]) < key(idx[y]) })
	const block = 10
	nt, nv := int(math.Round(frac[0]*block)), int(math.Round((frac[0]+frac[1])*block))
	for s := 0; s < len(idx); s += block {
		blk := append([]int(nil), idx[s:min(s+block, len(idx))]...)
		r.Shuffle(len(blk), func(i, j int) { blk[i], blk[j] = blk[j], blk[i] })
		for k, i := range blk {
			switch {
			case k < nt:
				a = append(a, i)
			case k < nv:
				b = append(b, i)
			default:
				c = append(c, i)
			}
		}
	}
	return a, b, c
}
