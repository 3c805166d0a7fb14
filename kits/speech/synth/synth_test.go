package synth

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestPlanDeterministic(t *testing.T) {
	o := PlanOptions{Words: []string{"yes", "no"}, PerWord: 30, Seed: 7, Espeak: true, Flite: true}
	a, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Plan(o)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("Plan with the same options differs")
	}
	o.Seed = 8
	c, _ := Plan(o)
	if reflect.DeepEqual(a, c) {
		t.Fatal("Plan ignores the seed")
	}
	// 2 words x 30 + 30 unknown + 15 silence
	if len(a) != 105 {
		t.Fatalf("len(plan) = %d, want 105", len(a))
	}
	counts := map[string]int{}
	flite := 0
	for i, cl := range a {
		if cl.Index != i {
			t.Fatalf("clip %d has index %d", i, cl.Index)
		}
		counts[cl.Label]++
		if cl.Voice.Engine == "flite" {
			flite++
		}
		if cl.Label != Silence && (cl.Split == "val") != HeldOut(cl.Voice) {
			t.Errorf("clip %d: split %s for voice %s", i, cl.Split, cl.Voice)
		}
	}
	if counts["yes"] != 30 || counts["no"] != 30 || counts[Unknown] != 30 || counts[Silence] != 15 {
		t.Errorf("class counts %v", counts)
	}
	// a quarter of the 90 spoken clips from flite (round(30*0.25) = 8 per class)
	if flite != 24 {
		t.Errorf("flite clips = %d, want 24", flite)
	}
}

func TestHeldOut(t *testing.T) {
	for _, tt := range []struct {
		v    Voice
		want bool
	}{
		{Voice{Engine: "espeak-ng", Name: "en-us+m3"}, true},
		{Voice{Engine: "espeak-ng", Name: "en-gb+paul"}, true},
		{Voice{Engine: "espeak-ng", Name: "en-us+m1"}, false},
		{Voice{Engine: "espeak-ng", Name: "en-us"}, false},
		{Voice{Engine: "flite", Name: "rms"}, true},
		{Voice{Engine: "flite", Name: "slt"}, false},
	} {
		if got := HeldOut(tt.v); got != tt.want {
			t.Errorf("HeldOut(%s) = %v, want %v", tt.v, got, tt.want)
		}
	}
}

func tone(n int, f, rate float64) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(0.5 * math.Sin(2*math.Pi*f*float64(i)/rate))
	}
	return x
}

func TestSpeedScalesLength(t *testing.T) {
	x := tone(16000, 440, 16000)
	for _, f := range []float64{0.9, 1.1, 1.25} {
		y, err := Speed(x, 16000, f)
		if err != nil {
			t.Fatal(err)
		}
		if want := 16000 / f; math.Abs(float64(len(y))-want) > 2 {
			t.Errorf("Speed(%g): %d samples, want about %.0f", f, len(y), want)
		}
		// the tone's pitch rises by f: count zero crossings
		zc := 0
		for i := 1; i < len(y); i++ {
			if (y[i-1] < 0) != (y[i] < 0) {
				zc++
			}
		}
		if got, want := float64(zc)/2/(float64(len(y))/16000), 440*f; math.Abs(got-want) > 3 {
			t.Errorf("Speed(%g): tone at %.1f Hz, want %.1f", f, got, want)
		}
	}
}

func TestMixNoiseSNR(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	x := tone(16000, 300, 16000)
	noise := make([]float32, 5000)
	for i := range noise {
		noise[i] = float32(r.NormFloat64())
	}
	for _, snr := range []float64{0, 10, 25} {
		y := append([]float32(nil), x...)
		MixNoise(y, noise, snr, r)
		d := make([]float32, len(y))
		for i := range y {
			d[i] = y[i] - x[i]
		}
		if got := RMSdB(x) - RMSdB(d); math.Abs(got-snr) > 0.01 {
			t.Errorf("MixNoise(snr %g): measured %.3f dB", snr, got)
		}
	}
}

func TestPlaceAndTrim(t *testing.T) {
	w := []float32{0, 0, 0, 1, 2, 3, 0, 0}
	tr := Trim(w, -40, 0)
	if !reflect.DeepEqual(tr, []float32{1, 2, 3}) {
		t.Fatalf("Trim = %v", tr)
	}
	if got := Place(tr, 7, 0, nil); !reflect.DeepEqual(got, []float32{0, 0, 1, 2, 3, 0, 0}) {
		t.Errorf("Place centred = %v", got)
	}
	r := rand.New(rand.NewPCG(3, 4))
	seen := map[int]bool{}
	for range 200 {
		p := Place(tr, 9, 1, r)
		for i, v := range p {
			if v == 1 {
				seen[i] = true
			}
		}
	}
	if len(seen) != 7 { // the word can start at 0..6
		t.Errorf("shift reached starts %v, want all 7", seen)
	}
	if got := Place([]float32{1, 2, 3, 4, 5}, 3, 0, nil); !reflect.DeepEqual(got, []float32{2, 3, 4}) {
		t.Errorf("Place cut = %v", got)
	}
}

func TestReverbDecays(t *testing.T) {
	x := make([]float32, 16000)
	x[0] = 1
	y := Reverb(x, 16000, 0.4, 0.5, rand.New(rand.NewPCG(5, 6)))
	if y[0] != 1 {
		t.Fatalf("direct sound %v, want 1", y[0])
	}
	early, late := RMSdB(y[100:1600]), RMSdB(y[4800:6400]) // 6-100 ms vs 300-400 ms
	if early-late < 20 {
		t.Errorf("tail decays %.1f dB from early to 300 ms, want > 20 (RT60 0.4 s)", early-late)
	}
	if RMSdB(y[6500:]) > -200 {
		t.Errorf("tail continues after RT60")
	}
}

func TestApplyDeterministic(t *testing.T) {
	w := tone(6000, 500, 16000)
	noise := [][]float32{tone(3000, 1234, 16000)}
	a, err := DefaultAugment().Apply(w, 16000, 16000, noise, rand.New(rand.NewPCG(9, 9)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := DefaultAugment().Apply(w, 16000, 16000, noise, rand.New(rand.NewPCG(9, 9)))
	c, _ := DefaultAugment().Apply(w, 16000, 16000, noise, rand.New(rand.NewPCG(9, 10)))
	if !reflect.DeepEqual(a, b) || len(a) != 16000 {
		t.Fatal("Apply with the same seed differs")
	}
	if reflect.DeepEqual(a, c) {
		t.Fatal("Apply ignores the seed")
	}
}

// TestRunDeterministic synthesises a small plan twice, with 1 and 3
// workers, and wants byte-identical files and lists.
func TestRunDeterministic(t *testing.T) {
	eng := FindEngines()
	if eng.Espeak == "" {
		t.Skip("espeak-ng not installed (run scripts/fetch_espeak.sh)")
	}
	conn := 0.0 // with flite: connected clips too, half of them espeak-ng's
	if eng.Flite != "" {
		conn = 0.5
	}
	plan, err := Plan(PlanOptions{Words: []string{"yes", "no"}, PerWord: 3, UnknownClips: 2, SilenceClips: 2, Seed: 3, Espeak: true, Flite: eng.Flite != "",
		Connected: conn, ConnectedEspeak: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	noises, bgs, err := LoadNoises("", 16000)
	if err != nil {
		t.Fatal(err)
	}
	classes := Classes([]string{"yes", "no"})
	dirs := []string{t.TempDir(), t.TempDir()}
	for i, w := range []int{1, 3} {
		if err := Run(context.Background(), eng, plan, classes, dirs[i], Options{Augment: DefaultAugment(), Workers: w, Noises: noises, Backgrounds: bgs}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range plan {
		a, err := os.ReadFile(filepath.Join(dirs[0], c.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dirs[1], c.Name()))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between 1 and 3 workers", c.Name())
		}
		if len(a) != 44+32000 {
			t.Errorf("%s: %d bytes, want a 1 s 16-bit clip", c.Name(), len(a))
		}
	}
	for _, f := range []string{"train.list", "val.list", "labels.txt", "plan.jsonl"} {
		a, _ := os.ReadFile(filepath.Join(dirs[0], f))
		b, _ := os.ReadFile(filepath.Join(dirs[1], f))
		if !bytes.Equal(a, b) || (len(a) == 0 && f != "val.list") { // a small plan may have no val clip
			t.Errorf("%s differs or is empty", f)
		}
	}
}

func TestMissingEngine(t *testing.T) {
	err := (Engines{}).Check([]Voice{{Engine: "espeak-ng"}})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("fetch_espeak.sh")) {
		t.Errorf("Check without espeak-ng = %v, want an error with the fetch hint", err)
	}
}

func TestApplyHeadroom(t *testing.T) {
	// a click-like word (crest factor 30 dB) at the loudest level must not clip
	w := make([]float32, 4000)
	w[2000] = 1
	for i := range w {
		w[i] += 0.001 * float32(math.Sin(float64(i)))
	}
	a := Augment{LevelMin: -14, LevelMax: -14}
	out, err := a.Apply(w, 16000, 16000, nil, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if p := peak(out); p > 0.5+1e-6 {
		t.Errorf("peak %.3f after Apply, want at most 0.5", p)
	}
}

func TestUnknownSynthesiser(t *testing.T) {
	_, err := Engines{}.path("say")
	if err == nil || err.Error() != `unknown synthesiser "say" (known: espeak-ng, flite, festival, recorded)` {
		t.Errorf("path(say): %v", err)
	}
}
