package audio

import (
	"fmt"
	"math"
)

// Resampler converts between two sample rates with a Kaiser-windowed sinc
// low-pass filter evaluated in polyphase form (one filter phase per distinct
// output position between input samples). The defaults are in the class of
// sox's default "high quality" rate effect: linear phase, no aliasing (the
// stopband starts at the lower rate's Nyquist frequency), about 125 dB of
// stopband rejection, flat passband (ripple < 1e-5 dB) to 91% of the lower
// Nyquist frequency and -6 dB at 95.5% of it.
type Resampler struct {
	from, to int
	up, down int       // to/g and from/g: output n sits at input time n*down/up
	half     int       // filter half-width in input samples
	scale    float64   // cutoff as a fraction of the input rate, times 2 (the sinc's frequency)
	beta     float64   // Kaiser beta
	i0beta   float64   // I0(beta)
	phases   []float64 // up × 2*half coefficients, or nil when computed on the fly
}

// ResampleOptions tune a Resampler; the zero value means the defaults.
type ResampleOptions struct {
	// Passband is the edge of the flat band as a fraction of the lower
	// Nyquist frequency (default 0.91); the stopband starts at 1.0.
	Passband float64
	// Attenuation is the stopband rejection in dB (default 125).
	Attenuation float64
}

// maxPhaseTable bounds the precomputed polyphase table (coefficients); for
// rate pairs with a huge ratio numerator the taps are computed per sample.
const maxPhaseTable = 1 << 22

// NewResampler returns a resampler from one rate to another.
func NewResampler(from, to int, opt ResampleOptions) (*Resampler, error) {
	if from <= 0 || to <= 0 {
		return nil, fmt.Errorf("resample: rates %d -> %d Hz", from, to)
	}
	pass := opt.Passband
	if pass == 0 {
		pass = 0.91
	}
	att := opt.Attenuation
	if att == 0 {
		att = 125
	}
	if pass <= 0 || pass >= 1 || att < 20 {
		return nil, fmt.Errorf("resample: passband %g (want 0 < p < 1), attenuation %g dB (want >= 20)", pass, att)
	}
	g := gcd(from, to)
	r := &Resampler{from: from, to: to, up: to / g, down: from / g}
	// Kaiser's design formulas: beta for the attenuation, length for the
	// transition width (pass..1 of the lower Nyquist, as a fraction of the lower rate).
	r.beta = 0.1102 * (att - 8.7)
	if att <= 50 {
		r.beta = 0.5842*math.Pow(att-21, 0.4) + 0.07886*(att-21)
	}
	r.i0beta = besselI0(r.beta)
	low := float64(min(from, to))
	trans := (1 - pass) / 2 // transition width in cycles per lower-rate sample
	taps := (att - 7.95) / (2.285 * 2 * math.Pi * trans)
	halfLow := taps / 2 // half-width in lower-rate samples
	r.half = int(math.Ceil(halfLow * float64(from) / low))
	r.scale = (1 + pass) / 2 * low / float64(from)
	if r.up*2*r.half <= maxPhaseTable {
		r.phases = make([]float64, r.up*2*r.half)
		for p := range r.up {
			r.fillTaps(r.phases[p*2*r.half:(p+1)*2*r.half], float64(p)/float64(r.up))
		}
	}
	return r, nil
}

// fillTaps computes the taps for an output at input time k0+frac: tap j
// weighs input k0-half+1+j.
func (r *Resampler) fillTaps(dst []float64, frac float64) {
	for j := range dst {
		tau := frac + float64(r.half-1-j)
		dst[j] = r.kernel(tau)
	}
}

// kernel is the windowed sinc at tau input samples from the output time.
func (r *Resampler) kernel(tau float64) float64 {
	u := tau / float64(r.half)
	if u <= -1 || u >= 1 {
		return 0
	}
	x := r.scale * tau
	s := r.scale
	if x != 0 {
		s = r.scale * math.Sin(math.Pi*x) / (math.Pi * x)
	}
	return s * besselI0(r.beta*math.Sqrt(1-u*u)) / r.i0beta
}

// OutLen returns the number of output samples for n input samples:
// ceil(n * to / from), every output time that falls inside the input.
func (r *Resampler) OutLen(n int) int {
	return int((int64(n)*int64(r.up) + int64(r.down) - 1) / int64(r.down))
}

// Process resamples a whole signal (samples beyond its ends count as zero).
func (r *Resampler) Process(x []float32) []float32 {
	if r.from == r.to {
		return append([]float32(nil), x...)
	}
	out := make([]float32, r.OutLen(len(x)))
	w := 2 * r.half
	var taps []float64
	if r.phases == nil {
		taps = make([]float64, w)
	}
	for n := range out {
		pos := int64(n) * int64(r.down)
		k0 := int(pos / int64(r.up))
		p := int(pos % int64(r.up))
		var h []float64
		if r.phases != nil {
			h = r.phases[p*w : (p+1)*w]
		} else {
			r.fillTaps(taps, float64(p)/float64(r.up))
			h = taps
		}
		start := k0 - r.half + 1
		j0, j1 := max(0, -start), min(w, len(x)-start)
		var s float64
		for j := j0; j < j1; j++ {
			s += h[j] * float64(x[start+j])
		}
		out[n] = float32(s)
	}
	return out
}

// Resample converts x from one rate to another with the default options.
func Resample(x []float32, from, to int) ([]float32, error) {
	r, err := NewResampler(from, to, ResampleOptions{})
	if err != nil {
		return nil, err
	}
	return r.Process(x), nil
}

// Resample returns a copy of a at another rate (every channel, default options).
func (a *Audio) Resample(to int) (*Audio, error) {
	r, err := NewResampler(a.Rate, to, ResampleOptions{})
	if err != nil {
		return nil, err
	}
	out := &Audio{Rate: to, Encoding: a.Encoding, Channels: make([][]float32, len(a.Channels))}
	for c, ch := range a.Channels {
		out.Channels[c] = r.Process(ch)
	}
	return out, nil
}

// besselI0 is the modified Bessel function of the first kind, order 0 (power series).
func besselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	q := x * x / 4
	for k := 1; k < 200; k++ {
		term *= q / float64(k*k)
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return sum
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
