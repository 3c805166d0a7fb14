package kaldi

import (
	"math"
	"strings"
	"testing"
)

func TestOptionErrors(t *testing.T) {
	x := make([]float64, 1600)
	for i := range x {
		x[i] = 1000 * math.Sin(float64(i)*0.3)
	}
	tests := []struct {
		name string
		set  func(*Options)
		want string
	}{
		{"short input", func(o *Options) { o.FrameLength = 200 }, "1600 samples is shorter than one frame (3200 samples"},
		{"window", func(o *Options) { o.WindowType = "kaiser" }, `window_type "kaiser"`},
		{"odd fft", func(o *Options) { o.RoundToPowerOfTwo = false; o.FrameLength = 25.0625 }, "FFT size 401"},
		{"preemph", func(o *Options) { o.PreemphasisCoefficient = 1.5 }, "preemphasis_coefficient 1.5"},
		{"shift", func(o *Options) { o.FrameShift = 0.01 }, "frame_shift 0.01 ms is 0 samples"},
		{"mel bins", func(o *Options) { o.NumMelBins = 3 }, "num_mel_bins 3"},
		{"high freq", func(o *Options) { o.HighFreq = 9000 }, "low_freq 20 and high_freq 9000 vs. nyquist 8000"},
		{"vtln", func(o *Options) { o.VTLNWarp = 0.9 }, "VTLN warping is not implemented"},
		{"ceps", func(o *Options) { o.NumCeps = 30 }, "num_ceps 30 must be in [1, num_mel_bins 23]"},
	}
	for _, tt := range tests {
		o := Defaults()
		tt.set(&o)
		_, err := MFCC(x, o)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestFramesAndDither(t *testing.T) {
	x := make([]float64, 16000)
	o := Defaults()
	// digital silence: every mel cell floors at log(eps), energy at log(energy_floor) = 0
	o.UseEnergy = true
	f, err := Fbank(x, o)
	if err != nil || len(f) != 98 || len(f[0]) != 24 {
		t.Fatalf("%d frames, %v", len(f), err)
	}
	if f[5][0] != 0 || f[5][1] != math.Log(epsilon) {
		t.Errorf("silence: energy %v, mel %v", f[5][0], f[5][1])
	}
	o.SnipEdges = false
	if f, _ = Fbank(x, o); len(f) != 100 {
		t.Errorf("snip_edges=false: %d frames, want 100", len(f))
	}
	o.MinDuration = 1.5
	if f, _ = Fbank(x, o); len(f) != 0 {
		t.Errorf("min_duration: %d frames", len(f))
	}
	for kind, want := range map[string]int{"fbank": 24, "mfcc": 13, "spectrogram": 257} {
		if d := o.Dim(kind); d != want {
			t.Errorf("Dim(%s) = %d, want %d", kind, d, want)
		}
	}
	// dither is seeded: same seed same output, and it lifts silence off the floor
	o = Defaults()
	o.Dither, o.Seed = 1, 7
	a, _ := Fbank(x, o)
	b, _ := Fbank(x, o)
	o.Seed = 8
	c, _ := Fbank(x, o)
	if a[3][4] != b[3][4] || a[3][4] == c[3][4] || a[3][4] <= math.Log(epsilon) {
		t.Errorf("dither: %v %v %v", a[3][4], b[3][4], c[3][4])
	}
}
