package feature

import (
	"fmt"
	"math"
)

// CMVN accumulates per-dimension feature statistics (Kaldi's
// compute-cmvn-stats) for mean and variance normalisation: over one
// utterance (per-utterance CMVN) or a whole training set (global CMVN, as
// PaddleSpeech's cmvn.json holds).
type CMVN struct {
	Sum, SumSq []float64
	Count      int
}

// Add accumulates frames × dims features.
func (c *CMVN) Add(feats [][]float64) error {
	for i, r := range feats {
		if c.Sum == nil {
			c.Sum, c.SumSq = make([]float64, len(r)), make([]float64, len(r))
		}
		if len(r) != len(c.Sum) {
			return fmt.Errorf("cmvn: frame %d has %d dims, the statistics %d", i, len(r), len(c.Sum))
		}
		for j, v := range r {
			c.Sum[j] += v
			c.SumSq[j] += v * v
		}
		c.Count++
	}
	return nil
}

// Mean returns the per-dimension mean.
func (c *CMVN) Mean() []float64 {
	m := make([]float64, len(c.Sum))
	for j, s := range c.Sum {
		m[j] = s / float64(c.Count)
	}
	return m
}

// Std returns the per-dimension standard deviation (population), floored at
// floor so constant dimensions do not blow up.
func (c *CMVN) Std(floor float64) []float64 {
	m := c.Mean()
	s := make([]float64, len(c.Sum))
	for j := range s {
		v := c.SumSq[j]/float64(c.Count) - m[j]*m[j]
		s[j] = max(math.Sqrt(max(v, 0)), floor)
	}
	return s
}

// Apply normalises feats in place: subtract the mean, and divide by the
// standard deviation when normVars is set.
func (c *CMVN) Apply(feats [][]float64, normVars bool) error {
	if c.Count == 0 {
		return fmt.Errorf("cmvn: no statistics")
	}
	m := c.Mean()
	var s []float64
	if normVars {
		s = c.Std(1e-20)
	}
	for i, r := range feats {
		if len(r) != len(m) {
			return fmt.Errorf("cmvn: frame %d has %d dims, the statistics %d", i, len(r), len(m))
		}
		for j := range r {
			r[j] -= m[j]
			if normVars {
				r[j] /= s[j]
			}
		}
	}
	return nil
}

// UtteranceCMVN normalises feats by their own statistics.
func UtteranceCMVN(feats [][]float64, normVars bool) error {
	var c CMVN
	if err := c.Add(feats); err != nil {
		return err
	}
	if c.Count == 0 {
		return nil
	}
	return c.Apply(feats, normVars)
}
