package feature

import (
	"archive/zip"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/audio"
	"paddle/core/hub"
	pio "paddle/core/io"
	"paddle/core/tensor"
)

// refArrays loads kaldi_ref.npz/json (scripts/ref/kaldi_features.py), which
// also holds torchaudio's melscale_fbanks, transforms.Spectrogram and
// MelSpectrogram values.
func refArrays(t *testing.T) (map[string]any, map[string]*tensor.Tensor) {
	t.Helper()
	b, err := os.ReadFile("../testdata/kaldi_ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	z, err := zip.OpenReader("../testdata/kaldi_ref.npz")
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	arrays := map[string]*tensor.Tensor{}
	for _, f := range z.File {
		name := strings.TrimSuffix(f.Name, ".npy")
		if !strings.HasPrefix(name, "mel") && !strings.HasPrefix(name, "stft") {
			continue
		}
		r, _ := f.Open()
		a, err := pio.DecodeNpy(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		arrays[name] = a
	}
	return meta, arrays
}

// torchaudio builds melscale_fbanks in float32: ours (float64) agree to 1e-5
// of the largest weight (measured 3e-6).
func TestMelFilterbankVsTorchaudio(t *testing.T) {
	meta, arrays := refArrays(t)
	for _, m := range meta["melscale"].([]any) {
		c := m.(map[string]any)
		scale := HTK
		if c["mel_scale"] == "slaney" {
			scale = Slaney
		}
		fb, err := MelFilterbank(int(c["n_freqs"].(float64)), c["f_min"].(float64), c["f_max"].(float64),
			int(c["n_mels"].(float64)), int(c["sample_rate"].(float64)), scale, c["norm"] == "slaney")
		if err != nil {
			t.Fatal(err)
		}
		ref := arrays[c["name"].(string)]
		want, cols := ref.F32(), ref.Shape()[1]
		peak, worst := 0.0, 0.0
		for k, row := range fb {
			for j, v := range row {
				w := float64(want[k*cols+j])
				peak = max(peak, math.Abs(w))
				worst = max(worst, math.Abs(v-w))
			}
		}
		if worst > 1e-5*peak {
			t.Errorf("%s: max |go - torchaudio| %g (peak %g)", c["name"], worst, peak)
		}
	}
}

func librivox(t *testing.T) []float64 {
	t.Helper()
	p := filepath.Join(hub.CacheDir(), "data", "speech", "pocketsphinx", "librivox", "sense_and_sensibility_01_austen_64kb-0880.wav")
	a, err := audio.ReadWAV(p)
	if err != nil {
		t.Skipf("%v (run scripts/setup.sh to fetch the speech recordings)", err)
	}
	x := make([]float64, 8000)
	for i := range x {
		x[i] = float64(a.Channels[0][i])
	}
	return x
}

// STFT power/magnitude spectrograms and a Slaney mel spectrogram against
// torchaudio.transforms (float64) on real speech: relative 1e-10 for the
// spectrograms, 1e-5 for the mel spectrogram (torchaudio's filterbank is
// float32).
func TestSpectrogramVsTorchaudio(t *testing.T) {
	meta, arrays := refArrays(t)
	x := librivox(t)
	for _, s := range meta["stft"].([]any) {
		c := s.(map[string]any)
		o := STFTOptions{NFFT: int(c["n_fft"].(float64)), Hop: int(c["hop"].(float64)), WinLength: int(c["win"].(float64)), Center: c["center"].(bool)}
		got, err := Spectrogram(x, o, c["power"].(float64))
		if err != nil {
			t.Fatal(err)
		}
		compare(t, c["name"].(string), got, arrays[c["name"].(string)], 1e-10)
	}
	fb, _ := MelFilterbank(201, 0, 8000, 40, 16000, Slaney, true)
	got, err := MelSpectrogram(x, STFTOptions{NFFT: 400, Hop: 160, Center: true}, 2, fb)
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "melspec", got, arrays["melspec/400_160_40_slaney"], 1e-5)
}

func compare(t *testing.T, name string, got [][]float64, ref *tensor.Tensor, rel float64) {
	t.Helper()
	r, c := ref.Shape()[0], ref.Shape()[1]
	if len(got) < r || len(got[0]) != c {
		t.Fatalf("%s: %dx%d, want at least %dx%d", name, len(got), len(got[0]), r, c)
	}
	want := ref.F64()
	peak := 0.0
	for _, v := range want {
		peak = max(peak, math.Abs(v))
	}
	for i := range r {
		for j := range c {
			w := want[i*c+j]
			if d := math.Abs(got[i][j] - w); d > rel*math.Abs(w)+1e-12*peak {
				t.Fatalf("%s [%d,%d]: %g, torchaudio %g", name, i, j, got[i][j], w)
			}
		}
	}
}

func TestMelScales(t *testing.T) {
	// librosa: hz_to_mel(1000, htk=False) = 15, hz_to_mel(4000) = 15 + ln(4)/(ln(6.4)/27);
	// HTK: 2595 log10(1 + 1000/700) = 999.9855371396244 (Python)
	if m := HzToMel(1000, Slaney); m != 15 {
		t.Errorf("slaney(1000) = %v", m)
	}
	if m, w := HzToMel(4000, Slaney), 15+math.Log(4)*27/math.Log(6.4); math.Abs(m-w) > 1e-12 {
		t.Errorf("slaney(4000) = %v, want %v", m, w)
	}
	if m := HzToMel(1000, HTK); math.Abs(m-999.9855371396246) > 1e-9 {
		t.Errorf("htk(1000) = %v", m)
	}
	for _, s := range []MelScale{HTK, Slaney} {
		for _, f := range []float64{0, 300, 999, 1000, 5000, 22050} {
			if g := MelToHz(HzToMel(f, s), s); math.Abs(g-f) > 1e-9*(1+f) {
				t.Errorf("scale %d: round trip %g -> %g", s, f, g)
			}
		}
	}
}

func TestSpecAugmentAndCMVN(t *testing.T) {
	mk := func() [][]float64 {
		f := make([][]float64, 100)
		for i := range f {
			f[i] = make([]float64, 40)
			for j := range f[i] {
				f[i][j] = 1 + float64(i%7) + float64(j)
			}
		}
		return f
	}
	o := SpecAugmentOptions{FreqMasks: 2, MaxFreq: 10, TimeMasks: 2, MaxTime: 20, MaxTimeRatio: 0.1}
	a, b := mk(), mk()
	SpecAugment(a, o, rand.New(rand.NewPCG(1, 2)))
	SpecAugment(b, o, rand.New(rand.NewPCG(1, 2)))
	zeroCols, zeroRows := map[int]bool{}, 0
	for i := range a {
		all := true
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				t.Fatalf("same seed, different masks at [%d,%d]", i, j)
			}
			if a[i][j] != 0 {
				all = false
			}
		}
		if all {
			zeroRows++
		}
	}
	for j := range 40 {
		col := true
		for i := range a {
			col = col && a[i][j] == 0
		}
		if col {
			zeroCols[j] = true
		}
	}
	// at most 2 masks x 10 bins; time masks capped at 10% of 100 frames each
	if len(zeroCols) == 0 || len(zeroCols) > 20 || zeroRows > 20 {
		t.Errorf("masked %d columns, %d rows", len(zeroCols), zeroRows)
	}
	c := mk()
	if err := UtteranceCMVN(c, true); err != nil {
		t.Fatal(err)
	}
	var st CMVN
	st.Add(c)
	for j, m := range st.Mean() {
		if math.Abs(m) > 1e-12 || math.Abs(st.Std(0)[j]-1) > 1e-12 {
			t.Fatalf("dim %d: mean %g std %g after CMVN", j, m, st.Std(0)[j])
		}
	}
}
