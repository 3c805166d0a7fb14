// Package feature holds the general audio features, as torchaudio's
// transforms compute them: the short-time Fourier transform, power and
// magnitude spectrograms, mel filterbanks on the HTK and Slaney scales (with
// optional Slaney area normalisation), mel spectrograms, SpecAugment masks
// and cepstral mean/variance normalisation. Kaldi's own fbank/MFCC are in
// core/audio/kaldi.
//
// Where things are:
//
//	stft.go      STFT options, Hann window, STFT, Spectrogram
//	mel.go       MelScale, HzToMel/MelToHz, MelFilterbank, MelSpectrogram
//	augment.go   SpecAugment (frequency and time masks, seeded)
//	cmvn.go      CMVN statistics and normalisation
package feature

import (
	"fmt"
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/dsp/fourier"
)

// STFTOptions are torchaudio.transforms.Spectrogram's parameters.
type STFTOptions struct {
	NFFT      int  // FFT size (n_fft)
	Hop       int  // hop_length; 0 means WinLength/2
	WinLength int  // win_length; 0 means NFFT. The window is centred in NFFT.
	Center    bool // pad NFFT/2 samples on each side by reflection (torch.stft center=True, pad_mode "reflect")
	// Window is the analysis window (length WinLength); nil means the
	// periodic Hann window (torch.hann_window's default).
	Window []float64
}

func (o *STFTOptions) resolve() (win []float64, hop int, err error) {
	if o.NFFT < 1 {
		return nil, 0, fmt.Errorf("stft: n_fft %d", o.NFFT)
	}
	wl := o.WinLength
	if wl == 0 {
		wl = o.NFFT
	}
	if wl > o.NFFT {
		return nil, 0, fmt.Errorf("stft: win_length %d > n_fft %d", wl, o.NFFT)
	}
	hop = o.Hop
	if hop == 0 {
		hop = max(wl/2, 1)
	}
	if hop < 1 {
		return nil, 0, fmt.Errorf("stft: hop_length %d", hop)
	}
	w := o.Window
	if w == nil {
		w = HannWindow(wl, true)
	}
	if len(w) != wl {
		return nil, 0, fmt.Errorf("stft: window of %d samples, win_length %d", len(w), wl)
	}
	// centre the window in n_fft, as torch.stft pads it
	win = make([]float64, o.NFFT)
	copy(win[(o.NFFT-wl)/2:], w)
	return win, hop, nil
}

// HannWindow returns the Hann window of n samples; periodic leaves out the
// final zero (for spectral analysis), symmetric (periodic false) keeps it.
func HannWindow(n int, periodic bool) []float64 {
	w := make([]float64, n)
	d := n - 1
	if periodic {
		d = n
	}
	if n == 1 {
		w[0] = 1
		return w
	}
	for i := range w {
		w[i] = 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(d))
	}
	return w
}

// STFT returns the one-sided short-time Fourier transform of x: frames ×
// (NFFT/2+1) complex bins, unnormalised.
func STFT(x []float64, o STFTOptions) ([][]complex128, error) {
	win, hop, err := o.resolve()
	if err != nil {
		return nil, err
	}
	n := o.NFFT
	src := x
	if o.Center {
		p := n / 2
		if p >= len(x) && p > 0 {
			return nil, fmt.Errorf("stft: %d samples too short to reflect-pad by %d", len(x), p)
		}
		src = make([]float64, len(x)+2*p)
		copy(src[p:], x)
		for i := range p {
			src[p-1-i] = x[i+1]             // reflect without repeating the edge
			src[p+len(x)+i] = x[len(x)-2-i] //
		}
	}
	if len(src) < n {
		return [][]complex128{}, nil
	}
	frames := 1 + (len(src)-n)/hop
	fft := fourier.NewFFT(n)
	buf := make([]float64, n)
	out := make([][]complex128, frames)
	for f := range frames {
		seg := src[f*hop : f*hop+n]
		for i := range buf {
			buf[i] = seg[i] * win[i]
		}
		out[f] = fft.Coefficients(nil, buf)
	}
	return out, nil
}

// Spectrogram returns |STFT|^power per frame (frames × NFFT/2+1): power 2
// is the power spectrogram, 1 the magnitude.
func Spectrogram(x []float64, o STFTOptions, power float64) ([][]float64, error) {
	s, err := STFT(x, o)
	if err != nil {
		return nil, err
	}
	out := make([][]float64, len(s))
	for f, row := range s {
		r := make([]float64, len(row))
		for k, c := range row {
			a := cmplx.Abs(c)
			switch power {
			case 1:
				r[k] = a
			case 2:
				r[k] = a * a
			default:
				r[k] = math.Pow(a, power)
			}
		}
		out[f] = r
	}
	return out, nil
}
