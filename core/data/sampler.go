package data

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// A Sampler chooses the dataset indices of an epoch, in order. The same
// epoch always gives the same indices.
type Sampler interface {
	Indices(epoch int) []int
}

// Sequential yields 0, 1, ..., N-1 every epoch.
type Sequential struct{ N int }

// Indices returns 0..N-1.
func (s Sequential) Indices(int) []int {
	out := make([]int, s.N)
	for i := range out {
		out[i] = i
	}
	return out
}

// Random yields a permutation of 0..N-1 that is a function of (Seed, epoch):
// a new order every epoch, the same order for the same epoch.
type Random struct {
	N    int
	Seed uint64
}

// Indices returns the permutation of the given epoch.
func (s Random) Indices(epoch int) []int {
	return deriveRand(tagSampler, s.Seed, epoch, 0).Perm(s.N)
}

// WeightedRandom draws NumSamples indices with probability proportional to
// Weights (like torch.utils.data.WeightedRandomSampler), with or without
// replacement, seeded by (Seed, epoch). Build it with NewWeightedRandom.
type WeightedRandom struct {
	weights     []float64
	cum         []float64
	numSamples  int
	replacement bool
	seed        uint64
}

// NewWeightedRandom checks the weights (finite, non-negative, not all zero)
// and the sample count (positive; without replacement, at most the number
// of positive weights).
func NewWeightedRandom(weights []float64, numSamples int, replacement bool, seed uint64) (*WeightedRandom, error) {
	cum := make([]float64, len(weights))
	total, positive := 0.0, 0
	for i, w := range weights {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("weighted sampler: weight %d is %v (want finite, >= 0)", i, w)
		}
		if w > 0 {
			positive++
		}
		total += w
		cum[i] = total
	}
	switch {
	case total <= 0:
		return nil, fmt.Errorf("weighted sampler: the %d weights sum to 0", len(weights))
	case numSamples <= 0:
		return nil, fmt.Errorf("weighted sampler: num_samples %d must be positive", numSamples)
	case !replacement && numSamples > positive:
		return nil, fmt.Errorf("weighted sampler: cannot draw %d samples without replacement from %d with positive weight", numSamples, positive)
	}
	return &WeightedRandom{weights: slices.Clone(weights), cum: cum, numSamples: numSamples, replacement: replacement, seed: seed}, nil
}

// Indices returns the draws of the given epoch.
func (s *WeightedRandom) Indices(epoch int) []int {
	r := deriveRand(tagSampler, s.seed, epoch, 1)
	out := make([]int, s.numSamples)
	if s.replacement {
		total := s.cum[len(s.cum)-1]
		for k := range out {
			u := r.Float64() * total
			i := sort.Search(len(s.cum), func(j int) bool { return s.cum[j] > u })
			out[k] = min(i, len(s.cum)-1)
		}
		return out
	}
	// Without replacement: Efraimidis–Spirakis weighted reservoir keys
	// u^(1/w); the NumSamples largest keys are a weighted sample.
	type kv struct {
		key float64
		i   int
	}
	keys := make([]kv, 0, len(s.weights))
	for i, w := range s.weights {
		if w > 0 {
			keys = append(keys, kv{math.Log(r.Float64()) / w, i}) // log keeps precision for small w
		}
	}
	slices.SortFunc(keys, func(a, b kv) int {
		if a.key != b.key {
			if a.key > b.key {
				return -1
			}
			return 1
		}
		return a.i - b.i
	})
	for k := range out {
		out[k] = keys[k].i
	}
	return out
}
