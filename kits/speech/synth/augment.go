package synth

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/audio"
)

// Augment says how much each clip is varied, sox-style. Every draw comes
// from the clip's own generator, so a clip depends only on (seed, index).
type Augment struct {
	SpeedMin, SpeedMax float64 // sox `speed`: resampling factor range (tempo and pitch), e.g. 0.9-1.1
	LevelMin, LevelMax float64 // target RMS level of the word in dBFS, e.g. -32 to -16
	ReverbProb         float64 // probability of reverberation
	RT60Min, RT60Max   float64 // reverberation time range in seconds
	NoiseProb          float64 // probability of mixing noise
	SNRMin, SNRMax     float64 // signal-to-noise range in dB
	ShiftMax           float64 // the word's centre moves up to this fraction of the free space off centre (1: anywhere)
}

// DefaultAugment is the augmentation `paddle speech synth` uses.
func DefaultAugment() Augment {
	return Augment{SpeedMin: 0.88, SpeedMax: 1.12, LevelMin: -34, LevelMax: -14, ReverbProb: 0.4, RT60Min: 0.1, RT60Max: 0.6,
		NoiseProb: 0.8, SNRMin: 3, SNRMax: 30, ShiftMax: 1}
}

// Trim cuts leading and trailing samples quieter than thresholdDB below
// the peak (TTS output starts and ends with silence), keeping pad samples.
func Trim(x []float32, thresholdDB float64, pad int) []float32 {
	var peak float32
	for _, v := range x {
		peak = max(peak, float32(math.Abs(float64(v))))
	}
	if peak == 0 {
		return x[:0]
	}
	th := peak * float32(math.Pow(10, thresholdDB/20))
	lo, hi := 0, len(x)
	for lo < hi && float32(math.Abs(float64(x[lo]))) < th {
		lo++
	}
	for hi > lo && float32(math.Abs(float64(x[hi-1]))) < th {
		hi--
	}
	return x[max(lo-pad, 0):min(hi+pad, len(x))]
}

// Speed resamples x as sox's `speed f` does: played f times faster, so
// tempo and pitch both scale by f. The factor is rounded to 1/400.
func Speed(x []float32, rate int, f float64) ([]float32, error) {
	if f <= 0 {
		return nil, fmt.Errorf("speed factor %g must be positive", f)
	}
	from := int(math.Round(float64(rate) * f / 40))
	to := rate / 40
	if from == to {
		return x, nil
	}
	return audio.Resample(x, from, to)
}

// RMSdB is the root-mean-square level of x in dBFS (-200 for silence).
func RMSdB(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	if len(x) == 0 || s == 0 {
		return -200
	}
	return 10 * math.Log10(s/float64(len(x)))
}

// Scale multiplies x in place by 10^(dB/20).
func Scale(x []float32, dB float64) {
	g := float32(math.Pow(10, dB/20))
	for i := range x {
		x[i] *= g
	}
}

// Reverb convolves x with a velvet-noise room response: the direct sound,
// then sparse ±1 taps (about 2000 per second) under an exponential decay
// reaching -60 dB after rt60 seconds, mixed at wet relative to the direct
// sound. The tail is kept up to len(x) (the clip keeps its length).
func Reverb(x []float32, rate int, rt60, wet float64, r *rand.Rand) []float32 {
	n := int(rt60 * float64(rate))
	type tap struct {
		at int
		g  float32
	}
	var taps []tap
	step := max(rate/2000, 1)
	for t := step; t < n; t += step {
		at := t + r.IntN(step)
		g := wet * math.Pow(10, -3*float64(at)/float64(n)) // -60 dB at n
		if r.IntN(2) == 0 {
			g = -g
		}
		taps = append(taps, tap{at, float32(g)})
	}
	out := make([]float32, len(x))
	copy(out, x)
	for _, tp := range taps {
		for i := tp.at; i < len(out); i++ {
			out[i] += tp.g * x[i-tp.at]
		}
	}
	return out
}

// MixNoise adds noise (cycled from a random offset) to x in place so that
// the ratio of x's RMS to the noise's RMS is snrDB. Silent noise is skipped.
func MixNoise(x, noise []float32, snrDB float64, r *rand.Rand) {
	if len(noise) == 0 || len(x) == 0 {
		return
	}
	off := r.IntN(len(noise))
	seg := make([]float32, len(x))
	for i := range seg {
		seg[i] = noise[(off+i)%len(noise)]
	}
	nl := RMSdB(seg)
	if nl <= -150 {
		return
	}
	g := float32(math.Pow(10, (RMSdB(x)-snrDB-nl)/20))
	for i := range x {
		x[i] += g * seg[i]
	}
}

// Place puts word into a clip of n samples: centred, then moved by up to
// shiftMax of the free space either way. A word longer than the clip is cut
// around its centre (moved the same way).
func Place(word []float32, n int, shiftMax float64, r *rand.Rand) []float32 {
	out := make([]float32, n)
	free := n - len(word)
	off := free / 2
	if shiftMax > 0 && free != 0 {
		half := int(math.Abs(float64(free)) / 2 * math.Min(shiftMax, 1))
		if half > 0 {
			off += r.IntN(2*half+1) - half
		}
	}
	for i := range out {
		if j := i - off; j >= 0 && j < len(word) {
			out[i] = word[j]
		}
	}
	return out
}

// Apply runs the augmentation chain on one trimmed word at rate: speed,
// level, reverberation, placement into n samples, noise. noises are noise
// recordings at rate (one is picked); nil means no noise.
func (a Augment) Apply(word []float32, rate, n int, noises [][]float32, r *rand.Rand) ([]float32, error) {
	x := word
	if a.SpeedMax > 0 {
		f := a.SpeedMin + r.Float64()*(a.SpeedMax-a.SpeedMin)
		var err error
		if x, err = Speed(x, rate, f); err != nil {
			return nil, err
		}
	}
	x = append([]float32(nil), x...)
	level := a.LevelMin + r.Float64()*(a.LevelMax-a.LevelMin)
	Scale(x, level-RMSdB(x))
	// a peaky word at a high level would clip: keep its peak at -6 dBFS at
	// most, leaving headroom for reverberation and noise
	if p := peak(x); p > 0.5 {
		Scale(x, 20*math.Log10(0.5/float64(p)))
	}
	if r.Float64() < a.ReverbProb {
		rt := a.RT60Min + r.Float64()*(a.RT60Max-a.RT60Min)
		// the tail must fit: reverberate with room for it, then place
		x = append(x, make([]float32, int(rt*float64(rate)/2))...)
		x = Reverb(x, rate, rt, 0.3+0.5*r.Float64(), r)
	}
	out := Place(x, n, a.ShiftMax, r)
	if len(noises) > 0 && r.Float64() < a.NoiseProb {
		snr := a.SNRMin + r.Float64()*(a.SNRMax-a.SNRMin)
		MixNoise(out, noises[r.IntN(len(noises))], snr+RMSdB(out)-RMSdB(x), r) // SNR over the word, not the whole clip
	}
	clip(out)
	return out, nil
}

// Background makes a clip of background only: a noise recording at a random
// level from -70 to -25 dBFS, or digital silence when there is no noise.
func Background(n int, noises [][]float32, r *rand.Rand) []float32 {
	out := make([]float32, n)
	if len(noises) == 0 {
		return out
	}
	nz := noises[r.IntN(len(noises))]
	off := r.IntN(len(nz))
	for i := range out {
		out[i] = nz[(off+i)%len(nz)]
	}
	Scale(out, -70+45*r.Float64()-RMSdB(out))
	clip(out)
	return out
}

func peak(x []float32) float32 {
	var p float32
	for _, v := range x {
		p = max(p, float32(math.Abs(float64(v))))
	}
	return p
}

func clip(x []float32) {
	for i, v := range x {
		x[i] = max(-1, min(v, 0.99997))
	}
}
