package feature

import (
	"fmt"
	"math"
)

// MelScale chooses the Hz ↔ mel mapping.
type MelScale int

const (
	// HTK is 2595 log10(1 + f/700).
	HTK MelScale = iota
	// Slaney is the Auditory Toolbox scale (librosa's default): linear
	// below 1 kHz (200/3 Hz per mel, so 15 mel at 1 kHz), logarithmic above.
	Slaney
)

const (
	slaneyFSp       = 200.0 / 3
	slaneyMinLogHz  = 1000.0
	slaneyMinLogMel = slaneyMinLogHz / slaneyFSp
)

var slaneyLogStep = math.Log(6.4) / 27

// HzToMel converts a frequency to mels on the scale.
func HzToMel(f float64, s MelScale) float64 {
	if s == HTK {
		return 2595 * math.Log10(1+f/700)
	}
	if f >= slaneyMinLogHz {
		return slaneyMinLogMel + math.Log(f/slaneyMinLogHz)/slaneyLogStep
	}
	return f / slaneyFSp
}

// MelToHz converts mels back to a frequency.
func MelToHz(m float64, s MelScale) float64 {
	if s == HTK {
		return 700 * (math.Pow(10, m/2595) - 1)
	}
	if m >= slaneyMinLogMel {
		return slaneyMinLogHz * math.Exp(slaneyLogStep*(m-slaneyMinLogMel))
	}
	return slaneyFSp * m
}

// MelFilterbank returns triangular mel filters as torchaudio's
// melscale_fbanks does: nFreqs × nMels weights for STFT bins spaced evenly
// from 0 to sampleRate/2 (integer division), filter edges evenly spaced in
// mels from fMin to fMax. slaneyNorm divides each filter by its width in Hz
// (times 2), so each has unit area (norm="slaney").
func MelFilterbank(nFreqs int, fMin, fMax float64, nMels, sampleRate int, scale MelScale, slaneyNorm bool) ([][]float64, error) {
	if nFreqs < 2 || nMels < 1 || fMin < 0 || fMax <= fMin || sampleRate <= 0 {
		return nil, fmt.Errorf("mel filterbank: n_freqs %d, n_mels %d, f_min %g, f_max %g, sample_rate %d", nFreqs, nMels, fMin, fMax, sampleRate)
	}
	nyq := float64(sampleRate / 2)
	freqs := make([]float64, nFreqs)
	for i := range freqs {
		freqs[i] = nyq * float64(i) / float64(nFreqs-1)
	}
	mMin, mMax := HzToMel(fMin, scale), HzToMel(fMax, scale)
	pts := make([]float64, nMels+2)
	for i := range pts {
		pts[i] = MelToHz(mMin+(mMax-mMin)*float64(i)/float64(nMels+1), scale)
	}
	fb := make([][]float64, nFreqs)
	for k, f := range freqs {
		row := make([]float64, nMels)
		for m := range nMels {
			down := (f - pts[m]) / (pts[m+1] - pts[m])
			up := (pts[m+2] - f) / (pts[m+2] - pts[m+1])
			w := max(0, min(down, up))
			if slaneyNorm {
				w *= 2 / (pts[m+2] - pts[m])
			}
			row[m] = w
		}
		fb[k] = row
	}
	return fb, nil
}

// MelSpectrogram is torchaudio.transforms.MelSpectrogram: the power
// spectrogram (power 2 unless given) times the filterbank, frames × nMels.
func MelSpectrogram(x []float64, o STFTOptions, power float64, fb [][]float64) ([][]float64, error) {
	spec, err := Spectrogram(x, o, power)
	if err != nil {
		return nil, err
	}
	if len(spec) > 0 && len(spec[0]) != len(fb) {
		return nil, fmt.Errorf("mel spectrogram: %d STFT bins, filterbank for %d", len(spec[0]), len(fb))
	}
	return ApplyFilterbank(spec, fb), nil
}

// ApplyFilterbank multiplies frames × bins by bins × filters.
func ApplyFilterbank(spec, fb [][]float64) [][]float64 {
	out := make([][]float64, len(spec))
	for f, row := range spec {
		nm := 0
		if len(fb) > 0 {
			nm = len(fb[0])
		}
		r := make([]float64, nm)
		for k, v := range row {
			if v == 0 {
				continue
			}
			for m, w := range fb[k] {
				r[m] += v * w
			}
		}
		out[f] = r
	}
	return out
}
