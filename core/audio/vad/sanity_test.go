package vad

import (
	"math"
	"math/rand/v2"
	"testing"
)

// inside reports whether s lies within p widened by slack samples.
func inside(s, p Segment, slack int) bool {
	return s.Start >= p.Start-slack && s.End <= p.End+slack
}

// checkParts: every segment lies within one recording of the concatenation
// and every recording has speech found in it.
func checkParts(t *testing.T, method string, segs, parts []Segment, slack int) {
	t.Helper()
	hit := make([]bool, len(parts))
	for _, s := range segs {
		ok := false
		for i, p := range parts {
			if inside(s, p, slack) {
				ok, hit[i] = true, true
			}
		}
		if !ok {
			t.Errorf("%s: segment %v spans a pause or lies outside the recordings %v", method, s, parts)
		}
	}
	for i, h := range hit {
		if !h {
			t.Errorf("%s: no speech found in recording %d %v (segments %v)", method, i, parts[i], segs)
		}
	}
}

// Real speech with real pauses: three pocketsphinx recordings separated by
// 0.6 s and 0.3 s of silence give one segment per recording with Silero (the
// digit string numbers.raw is fluent: its longest pause, ~40 ms, is under
// min_silence_duration_ms, so it is one segment starting after its ~0.48 s
// lead-in), and segments inside the recordings with the energy detector.
func TestRealSpeechSegments(t *testing.T) {
	x, parts := concatSpeech(t)
	s, err := LoadSilero(modelPath(t, "silero_vad.onnx"), 16000)
	if err != nil {
		t.Fatal(err)
	}
	segs, err := s.Segments(x, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("silero: %v", segs)
	if len(segs) != 3 {
		t.Errorf("silero: %d segments, want 3 (one per recording): %v", len(segs), segs)
	}
	checkParts(t, "silero", segs, parts, 480)
	if len(segs) > 0 && (segs[0].Start < 7000 || segs[0].Start > 8500) {
		t.Errorf("silero: numbers.raw speech starts at %.3f s, want about 0.48 s", float64(segs[0].Start)/16000)
	}
	esegs, err := Energy(x, 16000, DefaultEnergyOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("energy: %v", esegs)
	// energy decisions are per 10 ms slot from 20 ms frames: a segment may
	// start up to pad + hop + half a frame before the sound
	checkParts(t, "energy", esegs, parts, 480+160+160)
	// the energy detector's speech overlaps Silero's for most of its length
	var overlap, total int
	for _, e := range esegs {
		total += e.End - e.Start
		for _, g := range segs {
			overlap += max(0, min(e.End, g.End)-max(e.Start, g.Start))
		}
	}
	if total == 0 || float64(overlap) < 0.8*float64(total) {
		t.Errorf("energy: %d of %d speech samples inside Silero's segments", overlap, total)
	}
}

// Silence and white noise (loud and faint) hold no speech for either method.
func TestNoSpeechInSilenceOrNoise(t *testing.T) {
	s, err := LoadSilero(modelPath(t, "silero_vad.onnx"), 16000)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	signals := map[string][]float32{"silence": make([]float32, 32000)}
	for _, amp := range []float64{0.3, 0.01} {
		x := make([]float32, 48000)
		for i := range x {
			x[i] = float32(amp * rng.NormFloat64())
		}
		signals[map[float64]string{0.3: "loud noise", 0.01: "faint noise"}[amp]] = x
	}
	for name, x := range signals {
		segs, err := s.Segments(x, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(segs) != 0 {
			t.Errorf("silero on %s: %v", name, segs)
		}
		probs, _ := s.Probs(x)
		hi := float32(0)
		for _, p := range probs {
			hi = max(hi, p)
		}
		t.Logf("silero on %s: highest probability %.3f", name, hi)
		esegs, err := Energy(x, 16000, DefaultEnergyOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(esegs) != 0 {
			t.Errorf("energy on %s: %v", name, esegs)
		}
	}
}

// An 8 kHz recording runs natively with silero_vad.onnx, and refusals are clear.
func TestLoadSileroRates(t *testing.T) {
	if _, err := LoadSilero(modelPath(t, "silero_vad_half.onnx"), 8000); err == nil {
		t.Error("the 16 kHz-only half model accepted 8000 Hz")
	}
	if _, err := LoadSilero(modelPath(t, "silero_vad.onnx"), 44100); err == nil {
		t.Error("44100 Hz accepted")
	}
}

// The joined recordings with white noise added throughout (σ 0.006,
// -44 dBFS, about 20 dB below the speech peaks of the quietest recording,
// goforward.raw): the pauses are noise now, not zeros, and both detectors
// still keep each segment inside one recording and find all three. (At σ
// 0.02, 10 dB below goforward's peaks, Silero still does; the energy
// detector misses goforward.)
func TestNoisySpeechSegments(t *testing.T) {
	x, parts := concatSpeech(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range x {
		x[i] += float32(0.006 * rng.NormFloat64())
	}
	s, err := LoadSilero(modelPath(t, "silero_vad.onnx"), 16000)
	if err != nil {
		t.Fatal(err)
	}
	segs, err := s.Segments(x, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("silero: %v", segs)
	checkParts(t, "silero", segs, parts, 480)
	esegs, err := Energy(x, 16000, DefaultEnergyOptions())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("energy: %v", esegs)
	checkParts(t, "energy", esegs, parts, 480+160+160)
}

// Frame energies on worked examples: a constant 0.1 is -20 dBFS, zeros are
// the -100 floor, frames are centred on their 10 ms slots (so the first one
// sees half a frame of signal), and a bad rate is an error.
func TestFrameEnergies(t *testing.T) {
	x := make([]float32, 1600)
	for i := 800; i < 1600; i++ {
		x[i] = 0.1
	}
	e := FrameEnergies(x, 320, 160)
	if len(e) != 10 {
		t.Fatalf("%d frames", len(e))
	}
	near := func(a, b float64) bool { return a-b < 1e-6 && b-a < 1e-6 }
	// slot 4 covers [640, 800): its frame [560, 880) has 80 samples of 0.1
	if !near(e[0], -100) || !near(e[3], -100) || !near(e[4], 10*math.Log10(80*0.01/320+1e-12)) || !near(e[6], 10*math.Log10(0.01+1e-12)) {
		t.Errorf("energies %v", e)
	}
	// the last slot's frame runs past the end: half of it is zeros
	if !near(e[9], 10*math.Log10(240*0.01/320+1e-12)) {
		t.Errorf("last frame %g", e[9])
	}
	if _, err := Energy(x, 0, DefaultEnergyOptions()); err == nil {
		t.Error("rate 0 accepted")
	}
	if segs, err := Energy(nil, 16000, DefaultEnergyOptions()); err != nil || len(segs) != 0 {
		t.Errorf("empty input: %v %v", segs, err)
	}
}
