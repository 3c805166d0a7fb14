package speech

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"paddle/core/audio"
	"paddle/core/hub"
	"paddle/core/tensor"
	"paddle/kits/speech/synth"
)

// combineWarps on a worked example: softmax of [0 ln3] is [1/4 3/4], of
// [ln4 0] is [4/5 1/5] (the surer one), so "max" keeps [0.8 0.2] and
// "mean" (the default) gives [(0.25+0.8)/2 (0.75+0.2)/2].
func TestCombineWarps(t *testing.T) {
	l := []float32{0, float32(math.Log(3)), float32(math.Log(4)), 0}
	for _, tt := range []struct {
		mode string
		want []float64
	}{{"max", []float64{0.8, 0.2}}, {"", []float64{0.525, 0.475}}, {"mean", []float64{0.525, 0.475}}} {
		got := combineWarps(l, 2, 2, tt.mode)
		for c, w := range tt.want {
			if math.Abs(float64(got[c])-w) > 1e-6 {
				t.Errorf("%q: %v, want %v", tt.mode, got, tt.want)
			}
		}
	}
	if err := checkTestWarps([]float64{0.9, 1.1}, "vote"); err == nil {
		t.Error("test_combine vote accepted")
	}
	if err := checkTestWarps([]float64{0}, "max"); err == nil {
		t.Error("warp 0 accepted")
	}
}

// Each warp's slice of the test-time input is the clip's features under
// that warp (warp 1: the plain features), for audio and for .mfc words.
func TestWarpedFeatures(t *testing.T) {
	f := defaultFeature()
	f.NumMelBins, f.CepstralSmoothing, f.WindowType = 20, 13, "hamming"
	z := newFeaturizer(KWSGlobal{SampleRate: 8000, ClipSeconds: 1}, f)
	dir := t.TempDir()
	wav := filepath.Join(dir, "a.wav")
	x := make([]float32, 6000)
	for i := range x {
		x[i] = float32(0.3*math.Sin(float64(i)*0.3) + 0.1*math.Sin(float64(i)*1.7))
	}
	if err := audio.WriteWAV(wav, &audio.Audio{Rate: 8000, Channels: [][]float32{x}}, audio.PCM16); err != nil {
		t.Fatal(err)
	}
	items := []kwsItem{{Path: wav}}
	mfc := filepath.Join(hub.CacheDir(), "data", "speech", "pocketsphinx", "tidigits", "man.ah.2934za.mfc")
	if _, err := os.Stat(mfc); err == nil {
		items = append(items, kwsItem{Path: mfc, Seg: &mfcSegment{0.47, 0.87}})
	}
	warps := []float64{0.9, 1, 1.1}
	d := &kwsDataset{items: items, z: z, testWarps: warps}
	for i, it := range items {
		s, err := d.Get(i)
		if err != nil {
			t.Fatal(err)
		}
		if sh := s.X.Shape(); sh[0] != 3 || sh[1] != 98 || sh[2] != 20 {
			t.Fatalf("%s: warped shape %v", it.Path, sh)
		}
		per := 98 * 20
		for k, w := range warps {
			var ref []float32
			if it.Seg != nil {
				r, err := z.mfcFeaturesWarped(it.Path, it.Seg, 5, w)
				if err != nil {
					t.Fatal(err)
				}
				ref = r.F32()
			} else {
				a, err := z.load(wav) // the 16-bit samples
				if err != nil {
					t.Fatal(err)
				}
				r, err := z.featuresWarped(z.fit(a, 0), uint64(i), w, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				ref = r.F32()
			}
			got := s.X.F32()[k*per : (k+1)*per]
			for j := range ref {
				if math.Abs(float64(got[j]-ref[j])) > 1e-5 {
					t.Fatalf("%s warp %g: element %d = %g, want %g", it.Path, w, j, got[j], ref[j])
				}
			}
		}
		plain := &kwsDataset{items: items, z: z}
		p, err := plain.Get(i)
		if err != nil {
			t.Fatal(err)
		}
		for j, v := range p.X.F32() {
			if math.Abs(float64(s.X.F32()[per+j]-v)) > 1e-5 {
				t.Fatalf("%s: warp 1 differs from the plain features at %d", it.Path, j)
			}
		}
	}
}

// kws --warps: the spotter scores every window under each warp and merges
// the answers; warps [1] is the plain spotter.
func TestSpotterWarps(t *testing.T) {
	f := defaultFeature()
	f.NumMelBins = 20
	z := newFeaturizer(KWSGlobal{SampleRate: 8000, ClipSeconds: 1}, f)
	var rows int
	// a stand-in model: class 0's logit is the first feature value
	classify := func(x *tensor.Tensor) ([]float32, error) {
		n := x.Shape()[0]
		rows += n
		per := x.Len() / n
		out := make([]float32, 0, 2*n)
		for i := range n {
			p := softmax64([]float32{x.F32()[i*per], 0})
			out = append(out, float32(p[0]), float32(p[1]))
		}
		return out, nil
	}
	s := &spotter{z: z, classes: []string{"yes", synth.Unknown}, hop: 800, classify: classify}
	x := make([]float32, 4000)
	for i := range x {
		x[i] = float32(0.2 * math.Sin(float64(i)*0.21))
	}
	plain, err := s.spotSamples("a", x)
	if err != nil {
		t.Fatal(err)
	}
	s.warps, s.combine = []float64{1}, "mean"
	one, err := s.spotSamples("a", x)
	if err != nil || one.Label != plain.Label || math.Abs(one.Score-plain.Score) > 1e-5 {
		t.Errorf("warps [1]: %+v, plain %+v (%v)", one, plain, err)
	}
	rows = 0
	s.warps = []float64{0.9, 1, 1.1}
	if _, err := s.spotSamples("a", x); err != nil || rows != 3 {
		t.Errorf("3 warps of one window ran %d rows (%v)", rows, err)
	}
}
