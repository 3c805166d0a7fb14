package kaldi

import (
	"fmt"
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/dsp/fourier"
)

// Spectrogram is compute-spectrogram-feats: per frame, log power spectrum
// (padded/2+1 bins, each floored at epsilon) with bin 0 replaced by the log
// energy. Rows are frames.
func Spectrogram(x []float64, o Options) ([][]float64, error) {
	out, _, err := run(x, &o, func(spec []complex128, logE float64, row []float64) {
		for k, c := range spec {
			a := cmplx.Abs(c)
			row[k] = math.Log(max(a*a, epsilon))
		}
		row[0] = logE
	}, func(g frameGeometry) (int, error) { return g.padded/2 + 1, nil })
	if err != nil {
		return nil, err
	}
	subtractMean(out, o.SubtractMean)
	return out, nil
}

// Fbank is compute-fbank-feats: per frame, the (log) mel filterbank energies
// of the power (or magnitude) spectrum, with the log energy first (last with
// htk_compat) when use_energy is set.
func Fbank(x []float64, o Options) ([][]float64, error) {
	out, err := fbank(x, &o)
	if err != nil {
		return nil, err
	}
	subtractMean(out, o.SubtractMean)
	return out, nil
}

func fbank(x []float64, o *Options) ([][]float64, error) {
	if err := o.checkMel(); err != nil {
		return nil, err
	}
	var banks [][]float64
	var span [][2]int // the nonzero range of each bank
	nb := o.NumMelBins
	mel := 0
	if o.UseEnergy && !o.HTKCompat {
		mel = 1
	}
	var mag []float64
	out, _, err := run(x, o, func(spec []complex128, logE float64, row []float64) {
		half := len(spec) - 1 // the Nyquist bin has weight 0
		if len(mag) != half {
			mag = make([]float64, half)
		}
		for k := range mag {
			a := cmplx.Abs(spec[k])
			if o.UsePower {
				a *= a
			}
			mag[k] = a
		}
		for b, w := range banks {
			var e float64
			for k := span[b][0]; k < span[b][1]; k++ {
				e += w[k] * mag[k]
			}
			if o.UseLogFbank {
				e = math.Log(max(e, epsilon))
			}
			row[mel+b] = e
		}
		if o.UseEnergy {
			if o.HTKCompat {
				row[nb] = logE
			} else {
				row[0] = logE
			}
		}
	}, func(g frameGeometry) (int, error) {
		bf, err := melBanksFunc(nb, g.padded, o.SampleFrequency, o.LowFreq, o.HighFreq)
		if err != nil {
			return 0, err
		}
		banks, span = make([][]float64, nb), make([][2]int, nb)
		for b := range banks {
			banks[b] = make([]float64, len(bf[b]))
			span[b] = [2]int{len(bf[b]), 0}
			for k, v := range bf[b] {
				banks[b][k] = float64(v)
				if v != 0 {
					span[b][0], span[b][1] = min(span[b][0], k), k+1
				}
			}
		}
		if o.UseEnergy {
			return nb + 1, nil
		}
		return nb, nil
	})
	return out, err
}

// MFCC is compute-mfcc-feats: the log mel energies through the DCT-II
// (orthonormal, C0 weighted sqrt(1/num_mel_bins)), liftered; with
// use_energy, C0 is replaced by the log energy; with htk_compat, C0 moves to
// the end (times sqrt(2) without use_energy).
func MFCC(x []float64, o Options) ([][]float64, error) {
	if o.NumCeps > o.NumMelBins || o.NumCeps < 1 {
		return nil, fmt.Errorf("num_ceps %d must be in [1, num_mel_bins %d]", o.NumCeps, o.NumMelBins)
	}
	fo := o
	fo.UseLogFbank, fo.UsePower, fo.SubtractMean = true, true, false
	fb, err := fbank(x, &fo)
	if err != nil {
		return nil, err
	}
	nb, nc := o.NumMelBins, o.NumCeps
	dct := dctFunc(nc, nb)
	var lift []float32
	if o.CepstralLifter != 0 {
		lift = lifterFunc(nc, o.CepstralLifter)
	}
	melOff, eCol := 0, 0
	if o.UseEnergy {
		if o.HTKCompat {
			eCol = nb
		} else {
			melOff = 1
		}
	}
	out := make([][]float64, len(fb))
	for i, row := range fb {
		c := make([]float64, nc)
		for j := range nc {
			var s float64
			for b := range nb {
				s += row[melOff+b] * float64(dct[b][j])
			}
			if lift != nil {
				s *= float64(lift[j])
			}
			c[j] = s
		}
		if o.UseEnergy {
			c[0] = row[eCol]
		}
		if o.HTKCompat {
			e := c[0]
			if !o.UseEnergy {
				e *= math.Sqrt2
			}
			copy(c, c[1:])
			c[nc-1] = e
		}
		out[i] = c
	}
	subtractMean(out, o.SubtractMean)
	return out, nil
}

// The float32 tables, as variables so the reference test can run the
// pipeline on torchaudio's own tables too.
var (
	melBanksFunc = MelBanks
	dctFunc      = dctMatrix
	lifterFunc   = lifterCoeffs
)

// run frames x, FFTs each frame and lets fill write one output row; cols
// is called once with the geometry to size the rows (and build tables).
func run(x []float64, o *Options, fill func(spec []complex128, logE float64, row []float64), cols func(frameGeometry) (int, error)) ([][]float64, frameGeometry, error) {
	g, err := o.geometry(len(x))
	if err != nil {
		return nil, g, err
	}
	if float64(len(x)) < o.MinDuration*o.SampleFrequency {
		return [][]float64{}, g, nil
	}
	nc, err := cols(g)
	if err != nil {
		return nil, g, err
	}
	m := numFrames(len(x), g, o.SnipEdges)
	fr := newFramer(o, g)
	fft := fourier.NewFFT(g.padded)
	buf := make([]float64, g.padded)
	spec := make([]complex128, g.padded/2+1)
	out := make([][]float64, m)
	for i := range m {
		logE := fr.frame(buf, x, i)
		fft.Coefficients(spec, buf)
		out[i] = make([]float64, nc)
		fill(spec, logE, out[i])
	}
	return out, g, nil
}

// subtractMean removes each column's mean over the frames.
func subtractMean(m [][]float64, on bool) {
	if !on || len(m) == 0 {
		return
	}
	for j := range m[0] {
		var s float64
		for _, r := range m {
			s += r[j]
		}
		mean := s / float64(len(m))
		for _, r := range m {
			r[j] -= mean
		}
	}
}

// melScale32 is torchaudio's mel_scale on a float32 tensor: 1127 ln(1 + f/700).
func melScale32(f float32) float32 {
	return 1127 * log32(1+f/700)
}

func log32(x float32) float32 { return float32(math.Log(float64(x))) }

// MelBanks returns Kaldi's triangular mel filters, num_bins × padded/2 (the
// Nyquist bin is left out, as Kaldi does), computed in float32 exactly as
// torchaudio.compliance.kaldi.get_mel_banks does (without VTLN).
// highFreq <= 0 is an offset from the Nyquist frequency.
func MelBanks(numBins, padded int, sampleFreq, lowFreq, highFreq float64) ([][]float32, error) {
	o := Options{NumMelBins: numBins, SampleFrequency: sampleFreq, LowFreq: lowFreq, HighFreq: highFreq, VTLNWarp: 1}
	if err := o.checkMel(); err != nil {
		return nil, err
	}
	if padded%2 != 0 {
		return nil, fmt.Errorf("mel banks: padded window size %d must be even", padded)
	}
	nyq := 0.5 * sampleFreq
	if highFreq <= 0 {
		highFreq += nyq
	}
	fftBinWidth := float32(sampleFreq / float64(padded))
	melLow := 1127.0 * math.Log(1.0+lowFreq/700.0)
	melHigh := 1127.0 * math.Log(1.0+highFreq/700.0)
	delta := float32((melHigh - melLow) / float64(numBins+1))
	low := float32(melLow)
	nf := padded / 2
	mel := make([]float32, nf)
	for k := range mel {
		mel[k] = melScale32(fftBinWidth * float32(k))
	}
	banks := make([][]float32, numBins)
	for b := range banks {
		left := low + float32(b)*delta
		center := low + (float32(b)+1)*delta
		right := low + (float32(b)+2)*delta
		w := make([]float32, nf)
		for k, m := range mel {
			up := (m - left) / (center - left)
			down := (right - m) / (right - center)
			w[k] = max(0, min(up, down))
		}
		banks[b] = w
	}
	return banks, nil
}

// dctMatrix is torchaudio's create_dct(num_mel_bins, num_mel_bins, "ortho")
// in float32 with column 0 set to sqrt(1/num_mel_bins), cut to num_ceps
// columns: dct[b][j] weighs mel bin b in cepstrum j.
func dctMatrix(numCeps, numMel int) [][]float32 {
	step := float32(math.Pi / float64(numMel))
	s := float32(math.Sqrt(2.0 / float64(numMel)))
	c0 := float32(math.Sqrt(1 / float64(numMel)))
	d := make([][]float32, numMel)
	for b := range d {
		d[b] = make([]float32, numCeps)
		for j := range numCeps {
			v := float32(math.Cos(float64(step * (float32(b) + 0.5) * float32(j))))
			if j == 0 {
				v = c0
			} else {
				v *= s
			}
			d[b][j] = v
		}
	}
	return d
}

// lifterCoeffs is torchaudio's _get_lifter_coeffs in float32:
// 1 + L/2 sin(π i / L).
func lifterCoeffs(numCeps int, lifter float64) []float32 {
	out := make([]float32, numCeps)
	pi := float32(math.Pi)
	l := float32(lifter)
	half := float32(0.5 * lifter)
	for i := range out {
		out[i] = 1 + half*float32(math.Sin(float64(pi*float32(i)/l)))
	}
	return out
}
