package speech

import (
	"fmt"
	"math"

	"paddle/core/tensor"
)

// Test-time warps: a label-free speaker normalisation at evaluation. Each
// clip is scored under a few mel-axis stretches (the freq_warp of training,
// a stand-in for vocal-tract length) and the answers are merged without
// looking at the label: "mean" (the default) averages the class
// probabilities over the warps, "max" keeps the warp whose top class the
// model is surest of (as VTLN picks a speaker's warp by likelihood).

// checkTestWarps validates DataLoader.Eval.dataset.test_warps/test_combine.
func checkTestWarps(warps []float64, combine string) error {
	for _, w := range warps {
		if w < 0.5 || w > 2 {
			return fmt.Errorf("test_warps: %g is not a mel-axis stretch from 0.5 to 2", w)
		}
	}
	if combine != "" && combine != "max" && combine != "mean" && combine != "group" {
		return fmt.Errorf("test_combine %q: want max, mean or group", combine)
	}
	return nil
}

// warped is item it's features under each test warp, (W, T, F); the
// dither seed is the same for every warp.
func (d *kwsDataset) warped(it kwsItem, seed uint64) (*tensor.Tensor, error) {
	var x []float32
	if it.Seg == nil {
		a, err := d.z.load(it.Path)
		if err != nil {
			return nil, err
		}
		x = d.z.fit(a, 0)
	}
	var out *tensor.Tensor
	for k, w := range d.testWarps {
		var t *tensor.Tensor
		var err error
		if it.Seg != nil {
			t, err = d.z.mfcFeaturesWarped(it.Path, it.Seg, 5, w)
		} else {
			t, err = d.z.featuresWarped(x, seed, w, nil, nil)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it.Path, err)
		}
		s := t.Shape() // (1, T, F)
		if out == nil {
			out = tensor.New(tensor.Float32, len(d.testWarps), s[1], s[2])
		}
		copy(out.F32()[k*s[1]*s[2]:], t.F32())
	}
	return out, nil
}

// combineWarps merges w rows of k logits into k probabilities: the mean
// softmax row ("mean", ""), or the softmax row with the highest top
// probability ("max").
func combineWarps(logits []float32, w, k int, combine string) []float32 {
	probs := make([][]float64, w)
	for j := range w {
		probs[j] = softmax64(logits[j*k : (j+1)*k])
	}
	return combineProbs(probs, combine)
}

// combineProbs merges rows of class probabilities (one per warp) as
// combineWarps does.
func combineProbs(probs [][]float64, combine string) []float32 {
	k := len(probs[0])
	out := make([]float32, k)
	if combine != "max" {
		for _, p := range probs {
			for c, v := range p {
				out[c] += float32(v / float64(len(probs)))
			}
		}
		return out
	}
	best, bestP := 0, -1.0
	for j, p := range probs {
		for _, v := range p {
			if v > bestP {
				best, bestP = j, v
			}
		}
	}
	for c, v := range probs[best] {
		out[c] = float32(v)
	}
	return out
}

func softmax64(l []float32) []float64 {
	m := math.Inf(-1)
	for _, v := range l {
		m = math.Max(m, float64(v))
	}
	out := make([]float64, len(l))
	var s float64
	for i, v := range l {
		out[i] = math.Exp(float64(v) - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}
