package rectrain

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/tensor"
)

// NewRecognizer builds the model a recognition config describes, with its
// initial weights (random, or the imported ones for Backbone ONNXModel), and
// the number of CTC classes: for benchmarks and tools that drive a training
// step themselves (scripts/bench/ocr_rec_step).
func NewRecognizer(cfg *config.Config) (Recognizer, int, error) {
	wr, err := Build(cfg)
	if err != nil {
		return nil, 0, err
	}
	r := wr.(*runner)
	m, err := r.newModel()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", cfg.File, err)
	}
	return m, r.dict.NumClasses(), nil
}

// CTCLoss is the training loss of this package (PaddleOCR's CTCLoss: the
// batch mean of each line's −log p(target)) for logits (T, N, K), targets
// (N, S) 0-padded and their lengths (N).
func CTCLoss(logits *ag.Var, targets, targetLens *tensor.Tensor) *ag.Var {
	return ctcLoss(logits, Batch{Targets: targets, TargetLens: targetLens})
}

// RandomTargets draws n label sequences of lengths lo..hi over classes 1..k-1,
// as a 0-padded (n, hi) tensor and the lengths (n).
func RandomTargets(r *rand.Rand, n, lo, hi, k int) (*tensor.Tensor, *tensor.Tensor) {
	tg, tl := tensor.New(tensor.Int64, n, hi), tensor.New(tensor.Int64, n)
	for i := range n {
		l := lo + r.IntN(hi-lo+1)
		tl.I64()[i] = int64(l)
		for j := range l {
			tg.I64()[i*hi+j] = int64(1 + r.IntN(k-1))
		}
	}
	return tg, tl
}
