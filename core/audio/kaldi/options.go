// Package kaldi computes Kaldi's speech features — compute-fbank-feats,
// compute-mfcc-feats and compute-spectrogram-feats — exactly as
// torchaudio.compliance.kaldi does, with its option names and defaults
// (dither 0, preemphasis 0.97, povey window, 25 ms frames every 10 ms, 23
// mel bins, 13 cepstra, lifter 22, ...). VTLN warping is not implemented
// (vtln_warp must be 1).
//
// Input samples are int16-valued, as Kaldi reads a 16-bit WAV: multiply
// [-1, 1) samples by audio.KaldiScale. Arithmetic is float64; the mel banks,
// DCT matrix and lifter are built in float32 as torchaudio builds them and
// then widened, so the results match torchaudio's float64 run to within its
// own float32/float64 spread (see kaldi_test.go).
//
// Where things are:
//
//	options.go  Options (the torchaudio names), Defaults, validation
//	frames.go   framing (snip_edges), dither, DC removal, pre-emphasis, windows, log energy
//	kaldi.go    Spectrogram, Fbank, MFCC, MelBanks, the DCT and lifter
package kaldi

import (
	"fmt"
	"slices"
)

// Window types (window_type).
const (
	Povey       = "povey"
	Hamming     = "hamming"
	Hanning     = "hanning"
	Rectangular = "rectangular"
	Blackman    = "blackman"
)

// WindowTypes lists the accepted window_type values.
var WindowTypes = []string{Povey, Hamming, Hanning, Rectangular, Blackman}

// Options are torchaudio.compliance.kaldi's keyword arguments (Kaldi's
// options with underscores). Fields a feature does not use are ignored:
// Spectrogram ignores the mel and cepstral fields, Fbank the cepstral ones.
type Options struct {
	SampleFrequency        float64 // sample_frequency, Hz (16000)
	FrameLength            float64 // frame_length, ms (25)
	FrameShift             float64 // frame_shift, ms (10)
	Dither                 float64 // dither: Gaussian noise stddev added to each sample (0)
	Seed                   uint64  // seed of the dither noise (torch's generator cannot be matched)
	PreemphasisCoefficient float64 // preemphasis_coefficient (0.97)
	RemoveDCOffset         bool    // remove_dc_offset (true)
	WindowType             string  // window_type (povey)
	BlackmanCoeff          float64 // blackman_coeff (0.42)
	SnipEdges              bool    // snip_edges (true): only whole frames; false: reflect at the ends
	RoundToPowerOfTwo      bool    // round_to_power_of_two (true): FFT size
	RawEnergy              bool    // raw_energy (true): energy before pre-emphasis and window
	EnergyFloor            float64 // energy_floor (1.0); 0 means no floor beyond epsilon
	MinDuration            float64 // min_duration, s (0): shorter input gives no frames
	SubtractMean           bool    // subtract_mean (false): per-utterance mean normalisation (CMN)

	NumMelBins  int     // num_mel_bins (23)
	LowFreq     float64 // low_freq, Hz (20)
	HighFreq    float64 // high_freq, Hz (0); <= 0 is an offset from Nyquist
	UseEnergy   bool    // use_energy (false): add the log energy column
	UseLogFbank bool    // use_log_fbank (true)
	UsePower    bool    // use_power (true): power, not magnitude, spectrum
	HTKCompat   bool    // htk_compat (false): energy last; MFCC C0 last, scaled as HTK
	VTLNWarp    float64 // vtln_warp (1.0); only 1 is supported

	NumCeps        int     // num_ceps (13)
	CepstralLifter float64 // cepstral_lifter (22); 0 disables liftering
}

// Defaults returns torchaudio.compliance.kaldi's defaults.
func Defaults() Options {
	return Options{
		SampleFrequency: 16000, FrameLength: 25, FrameShift: 10,
		PreemphasisCoefficient: 0.97, RemoveDCOffset: true, WindowType: Povey, BlackmanCoeff: 0.42,
		SnipEdges: true, RoundToPowerOfTwo: true, RawEnergy: true, EnergyFloor: 1,
		NumMelBins: 23, LowFreq: 20, UseLogFbank: true, UsePower: true, VTLNWarp: 1,
		NumCeps: 13, CepstralLifter: 22,
	}
}

// frameGeometry holds the sizes derived from the options.
type frameGeometry struct {
	shift, size, padded int
}

// geometry derives the window sizes exactly as torchaudio does (int() of the
// float products) and checks the options that torchaudio asserts.
func (o *Options) geometry(numSamples int) (frameGeometry, error) {
	var g frameGeometry
	if o.SampleFrequency <= 0 {
		return g, fmt.Errorf("sample_frequency %g must be > 0", o.SampleFrequency)
	}
	g.shift = int(o.SampleFrequency * o.FrameShift * 0.001)
	g.size = int(o.SampleFrequency * o.FrameLength * 0.001)
	g.padded = g.size
	if o.RoundToPowerOfTwo {
		g.padded = nextPow2(g.size)
	}
	switch {
	case g.size < 2:
		return g, fmt.Errorf("frame_length %g ms is %d samples at %g Hz, want >= 2", o.FrameLength, g.size, o.SampleFrequency)
	case g.size > numSamples:
		return g, fmt.Errorf("%d samples is shorter than one frame (%d samples, frame_length %g ms)", numSamples, g.size, o.FrameLength)
	case g.shift <= 0:
		return g, fmt.Errorf("frame_shift %g ms is %d samples at %g Hz, want > 0", o.FrameShift, g.shift, o.SampleFrequency)
	case g.padded%2 != 0:
		return g, fmt.Errorf("the FFT size %d (frame_length %g ms) must be even: set round_to_power_of_two or change frame_length", g.padded, o.FrameLength)
	case o.PreemphasisCoefficient < 0 || o.PreemphasisCoefficient > 1:
		return g, fmt.Errorf("preemphasis_coefficient %g must be in [0, 1]", o.PreemphasisCoefficient)
	case !slices.Contains(WindowTypes, o.WindowType):
		return g, fmt.Errorf("window_type %q (known: %v)", o.WindowType, WindowTypes)
	case o.Dither < 0:
		return g, fmt.Errorf("dither %g must be >= 0", o.Dither)
	case o.EnergyFloor < 0:
		return g, fmt.Errorf("energy_floor %g must be >= 0", o.EnergyFloor)
	}
	return g, nil
}

// checkMel validates the mel options for an FFT size.
func (o *Options) checkMel() error {
	if o.NumMelBins <= 3 {
		return fmt.Errorf("num_mel_bins %d: must have at least 3 mel bins (> 3)", o.NumMelBins)
	}
	if o.VTLNWarp != 1 && o.VTLNWarp != 0 {
		return fmt.Errorf("vtln_warp %g: VTLN warping is not implemented (use 1)", o.VTLNWarp)
	}
	nyq := 0.5 * o.SampleFrequency
	high := o.HighFreq
	if high <= 0 {
		high += nyq
	}
	if !(0 <= o.LowFreq && o.LowFreq < nyq && 0 < high && high <= nyq && o.LowFreq < high) {
		return fmt.Errorf("bad values in options: low_freq %g and high_freq %g vs. nyquist %g", o.LowFreq, o.HighFreq, nyq)
	}
	return nil
}

// Dim returns the number of columns a feature kind ("fbank", "mfcc",
// "spectrogram") has with these options (0 for an unknown kind).
func (o *Options) Dim(kind string) int {
	switch kind {
	case "fbank":
		if o.UseEnergy {
			return o.NumMelBins + 1
		}
		return o.NumMelBins
	case "mfcc":
		return o.NumCeps
	case "spectrogram":
		size := int(o.SampleFrequency * o.FrameLength * 0.001)
		if o.RoundToPowerOfTwo {
			size = nextPow2(size)
		}
		return size/2 + 1
	}
	return 0
}

func nextPow2(x int) int {
	p := 1
	for p < x {
		p <<= 1
	}
	return p
}
