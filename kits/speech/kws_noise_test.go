package speech

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"paddle/core/audio"
)

// The noise bank adds a stretch of a recording at the drawn SNR, skips
// excluded files and loops recordings shorter than the clip.
func TestNoiseBankSNR(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	for _, name := range []string{"a.wav", "b_desc.wav"} {
		x := make([]float32, 3000) // shorter than the 8000-sample clip
		for i := range x {
			x[i] = float32(r.NormFloat64() * 0.1)
		}
		if name == "b_desc.wav" {
			for i := range x {
				x[i] = 0.9 // excluded: would give a DC offset
			}
		}
		if err := audio.WriteWAV(filepath.Join(dir, name), &audio.Audio{Rate: 8000, Channels: [][]float32{x}}, audio.Float32); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not audio"), 0o644); err != nil {
		t.Fatal(err)
	}
	z := newFeaturizer(KWSGlobal{SampleRate: 8000, ClipSeconds: 1}, defaultFeature())
	b := &noiseBank{o: KWSNoiseOpts{Dir: dir, Exclude: "_desc", Prob: 1, SNRdB: [2]float64{10, 10}}, z: z}
	clip := make([]float32, 8000)
	for i := range clip {
		clip[i] = float32(0.2 * math.Sin(float64(i)*0.3))
	}
	orig := append([]float32(nil), clip...)
	if err := b.mix(clip, r); err != nil {
		t.Fatal(err)
	}
	if len(b.clip) != 1 {
		t.Fatalf("bank holds %d recordings, want 1 (b_desc excluded, notes.txt skipped)", len(b.clip))
	}
	noise := make([]float32, len(clip))
	mean := 0.0
	for i := range clip {
		noise[i] = clip[i] - orig[i]
		mean += float64(noise[i])
	}
	snr := 10 * math.Log10(power(orig)/power(noise))
	if math.Abs(snr-10) > 1e-3 || math.Abs(mean/8000) > 0.01 {
		t.Errorf("SNR %.4f dB (want 10), noise mean %.4f", snr, mean/8000)
	}
	b.o.Prob = 0
	copy(clip, orig)
	if err := b.mix(clip, r); err != nil || power(clip) != power(orig) {
		t.Errorf("prob 0 changed the clip (%v)", err)
	}
}
