package feature

import (
	"fmt"
	"math/rand/v2"
)

// SpecAugmentOptions are SpecAugment's masking parameters (Park et al. 2019,
// https://arxiv.org/abs/1904.08779) with PaddleSpeech's names. Time warping
// is not implemented.
type SpecAugmentOptions struct {
	FreqMasks int // n_freq_masks: number of frequency masks
	MaxFreq   int // F: a mask covers [0, F] bins
	TimeMasks int // n_time_masks
	MaxTime   int // T: a mask covers [0, T] frames
	// MaxTimeRatio (p) caps a time mask at this fraction of the frames
	// (0 means no cap beyond MaxTime).
	MaxTimeRatio float64
	// UseMean fills masks with the utterance mean instead of 0.
	UseMean bool
}

// SpecAugment masks feats (frames × bins) in place: each frequency mask sets
// f ~ U[0, MaxFreq] consecutive bins starting at f0 ~ U[0, bins-f] in every
// frame, each time mask t ~ U[0, min(MaxTime, p·frames)] frames from
// t0 ~ U[0, frames-t]. The same rng state gives the same masks.
func SpecAugment(feats [][]float64, o SpecAugmentOptions, rng *rand.Rand) error {
	if o.FreqMasks < 0 || o.TimeMasks < 0 || o.MaxFreq < 0 || o.MaxTime < 0 || o.MaxTimeRatio < 0 {
		return fmt.Errorf("spec augment: negative option in %+v", o)
	}
	frames := len(feats)
	if frames == 0 {
		return nil
	}
	bins := len(feats[0])
	fill := 0.0
	if o.UseMean {
		var s float64
		for _, r := range feats {
			for _, v := range r {
				s += v
			}
		}
		fill = s / float64(frames*bins)
	}
	for range o.FreqMasks {
		f := rng.IntN(min(o.MaxFreq, bins) + 1)
		f0 := rng.IntN(bins - f + 1)
		for _, r := range feats {
			for j := f0; j < f0+f; j++ {
				r[j] = fill
			}
		}
	}
	maxT := o.MaxTime
	if o.MaxTimeRatio > 0 {
		maxT = min(maxT, int(o.MaxTimeRatio*float64(frames)))
	}
	maxT = min(maxT, frames)
	for range o.TimeMasks {
		t := rng.IntN(maxT + 1)
		t0 := rng.IntN(frames - t + 1)
		for i := t0; i < t0+t; i++ {
			for j := range feats[i] {
				feats[i][j] = fill
			}
		}
	}
	return nil
}
