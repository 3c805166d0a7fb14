package audio

import (
	"fmt"
	"math"
	"testing"
)

func tone(f float64, rate, n int, amp float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(amp * math.Sin(2*math.Pi*f*float64(i)/float64(rate)))
	}
	return x
}

// fitTone fits y[i] ≈ a sin(wi) + b cos(wi) over y[lo:hi] and returns the
// amplitude, the phase and the rms of the residual.
func fitTone(y []float32, f float64, rate, lo, hi int) (amp, phase, resid float64) {
	w := 2 * math.Pi * f / float64(rate)
	var ss, sc, cc, ys, yc float64
	for i := lo; i < hi; i++ {
		s, c := math.Sin(w*float64(i)), math.Cos(w*float64(i))
		ss += s * s
		sc += s * c
		cc += c * c
		ys += float64(y[i]) * s
		yc += float64(y[i]) * c
	}
	det := ss*cc - sc*sc
	a := (ys*cc - yc*sc) / det
	b := (yc*ss - ys*sc) / det
	var r float64
	for i := lo; i < hi; i++ {
		e := float64(y[i]) - a*math.Sin(w*float64(i)) - b*math.Cos(w*float64(i))
		r += e * e
	}
	return math.Hypot(a, b), math.Atan2(b, a), math.Sqrt(r / float64(hi-lo))
}

func rms(y []float32, lo, hi int) float64 {
	var s float64
	for _, v := range y[lo:hi] {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(hi-lo))
}

func db(x float64) float64 { return 20 * math.Log10(x) }

// A sweep of tones through each rate pair. Passband (to 0.9 of the lower
// Nyquist frequency): gain within 0.001 dB, no phase shift (linear phase,
// zero delay), everything that is not the tone below -120 dB (the float32
// output alone is near -140 dB). Stopband (above the lower Nyquist, when
// downsampling): what comes out (the aliases) below -115 dB of the input.
// sox's default (rate -h) promises 125 dB of rejection and a 95% band.
func TestResampleToneSweep(t *testing.T) {
	pairs := [][2]int{{48000, 16000}, {16000, 48000}, {44100, 16000}, {8000, 44100}, {48000, 44100}, {22050, 8000}}
	for _, p := range pairs {
		from, to := p[0], p[1]
		r, err := NewResampler(from, to, ResampleOptions{})
		if err != nil {
			t.Fatal(err)
		}
		low := float64(min(from, to))
		n := from / 2 // 0.5 s
		for _, frac := range []float64{0.01, 0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 1.02, 1.1, 1.4, 1.9} {
			f := frac * low / 2
			if f >= float64(from)/2 {
				continue
			}
			y := r.Process(tone(f, from, n, 0.5))
			edge := 2 * r.half * to / from
			lo, hi := edge+10, len(y)-edge-10
			name := fmt.Sprintf("%d->%d %.0fHz", from, to, f)
			if frac < 1 {
				amp, phase, resid := fitTone(y, f, to, lo, hi)
				if g := db(amp / 0.5); math.Abs(g) > 0.001 {
					t.Errorf("%s: gain %.5f dB", name, g)
				}
				if math.Abs(phase) > 1e-5 {
					t.Errorf("%s: phase %.3g rad", name, phase)
				}
				if e := db(resid / 0.5 * math.Sqrt2); e > -120 {
					t.Errorf("%s: residual %.1f dB", name, e)
				}
				continue
			}
			if a := db(rms(y, lo, hi) / 0.5 * math.Sqrt2); a > -115 {
				t.Errorf("%s: alias at %.1f dB", name, a)
			}
		}
	}
}

// A linear chirp across the whole input band, downsampled: where its
// frequency is above the new Nyquist frequency (plus the filter's reach)
// nothing may come through.
func TestResampleChirpAliasing(t *testing.T) {
	from, to := 48000, 16000
	n := from // 1 s sweep 0 -> 24 kHz
	x := make([]float32, n)
	for i := range x {
		tt := float64(i) / float64(from)
		x[i] = float32(0.5 * math.Sin(math.Pi*24000*tt*tt)) // f(t) = 24000 t
	}
	y, err := Resample(x, from, to)
	if err != nil {
		t.Fatal(err)
	}
	if len(y) != 16000 {
		t.Fatalf("len %d", len(y))
	}
	// the chirp passes 8 kHz at t = 1/3 s; the filter reaches ~1.5 ms
	lo, hi := int(0.36*float64(to)), len(y)-100
	if a := db(rms(y, lo, hi) / 0.5 * math.Sqrt2); a > -110 {
		t.Errorf("chirp above Nyquist leaks at %.1f dB", a)
	}
	// below 7 kHz (t < 0.29 s) the output is the chirp itself
	var e float64
	m := 0
	for i := 200; i < int(0.29*float64(to)); i++ {
		tt := float64(i) / float64(to)
		d := float64(y[i]) - 0.5*math.Sin(math.Pi*24000*tt*tt)
		e += d * d
		m++
	}
	if err := db(math.Sqrt(e/float64(m)) / 0.5 * math.Sqrt2); err > -90 {
		t.Errorf("chirp passband error %.1f dB", err)
	}
}

func TestResampleLengthsAndIdentity(t *testing.T) {
	x := tone(100, 8000, 801, 0.3)
	for _, tt := range []struct{ from, to, want int }{{8000, 16000, 1602}, {8000, 44100, 4416}, {8000, 8000, 801}, {16000, 8000, 401}} {
		y, err := Resample(x, tt.from, tt.to)
		if err != nil || len(y) != tt.want {
			t.Errorf("%d->%d: len %d (%v), want %d", tt.from, tt.to, len(y), err, tt.want)
		}
	}
	// upsampling by 2 keeps the original samples (even outputs sit on inputs)
	y, _ := Resample(x, 8000, 16000)
	for i := 100; i < 700; i++ {
		if d := math.Abs(float64(y[2*i] - x[i])); d > 1e-6 {
			t.Fatalf("y[%d] = %g, x[%d] = %g", 2*i, y[2*i], i, x[i])
		}
	}
	if _, err := NewResampler(0, 16000, ResampleOptions{}); err == nil {
		t.Error("rate 0 accepted")
	}
	// a rate pair whose polyphase table would be huge computes taps per sample
	r, err := NewResampler(44100, 44099, ResampleOptions{})
	if err != nil || r.phases != nil {
		t.Fatalf("44100->44099: table %d, %v", len(r.phases), err)
	}
	y = r.Process(tone(1000, 44100, 4410, 0.5))
	if amp, _, _ := fitTone(y, 1000, 44099, 500, len(y)-500); math.Abs(db(amp/0.5)) > 0.001 {
		t.Errorf("44100->44099: gain %.5f dB", db(amp/0.5))
	}
}
