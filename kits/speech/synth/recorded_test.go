package synth

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"paddle/core/audio"
)

// speakerDir writes a recorded speaker: one 0.3 s tone burst per word, at
// 8 kHz, each word its own pitch.
func speakerDir(t *testing.T, words ...string) string {
	t.Helper()
	dir := t.TempDir()
	for i, w := range words {
		a := &audio.Audio{Rate: 8000, Channels: [][]float32{tone(2400, 300+100*float64(i), 8000)}}
		if err := audio.WriteWAV(filepath.Join(dir, w+".wav"), a, audio.PCM16); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLoadSpeaker(t *testing.T) {
	dir := speakerDir(t, "zero", "oh", "hello")
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a recording"), 0o644)
	s, err := LoadSpeaker(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Words) != 3 || s.Words["oh"] != "oh.wav" {
		t.Fatalf("words %v, want zero, oh, hello", s.Words)
	}
	if got := s.has(UnknownWords); !slices.Equal(got, []string{"hello"}) {
		t.Errorf("unknown words recorded = %v, want [hello]", got)
	}
	if _, err := LoadSpeaker(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no <word>.wav") {
		t.Errorf("empty folder: err = %v", err)
	}
	os.WriteFile(filepath.Join(dir, "oh.ogg"), nil, 0o644)
	if _, err := LoadSpeaker(dir); err == nil || !strings.Contains(err.Error(), `two recordings of "oh"`) {
		t.Errorf("two recordings of a word: err = %v", err)
	}
}

func TestPlanRecorded(t *testing.T) {
	s, err := LoadSpeaker(speakerDir(t, "zero", "hello"))
	if err != nil {
		t.Fatal(err)
	}
	// alone: the speaker says every clip of its words
	plan, err := Plan(PlanOptions{Words: []string{"zero"}, PerWord: 20, UnknownClips: 10, SilenceClips: 2, Seed: 3, Recorded: []Speaker{s}})
	if err != nil {
		t.Fatal(err)
	}
	speeds := map[float64]int{}
	for _, c := range plan {
		if c.Label == Silence {
			continue
		}
		want := map[string]string{"zero": "zero", Unknown: "hello"}[c.Label]
		if c.Voice.Engine != RecordedEngine || c.Voice.Name != s.Dir || c.Text != want || c.Split != "train" {
			t.Fatalf("clip %+v: want %q by the recorded speaker, in train", c, want)
		}
		speeds[c.Voice.Speed]++
	}
	if len(speeds) != len(RecordedSpeeds) {
		t.Errorf("speeds used %v, want each of %v", speeds, RecordedSpeeds)
	}
	// a word it did not record, with no synthesiser: an error naming the word
	if _, err := Plan(PlanOptions{Words: []string{"zero", "one"}, PerWord: 4, Recorded: []Speaker{s}}); err == nil || !strings.Contains(err.Error(), `"one"`) {
		t.Errorf("unrecorded word without a synthesiser: err = %v", err)
	}
	// next to a synthesiser: a share of the recorded words' clips; the
	// synthesised clips are those of a plan with fewer clips
	o := PlanOptions{Words: []string{"zero", "one"}, PerWord: 40, Seed: 3, Espeak: true}
	base, _ := Plan(o)
	o.Recorded, o.RecordedShare = []Speaker{s}, 0.25
	mixed, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	rec := map[string]int{}
	for _, c := range mixed {
		if c.Voice.Engine == RecordedEngine {
			rec[c.Label]++
		}
	}
	if rec["zero"] != 10 || rec["one"] != 0 || rec[Unknown] != 10 {
		t.Errorf("recorded clips per class %v, want zero 10, one 0, _unknown_ 10", rec)
	}
	if len(mixed) != len(base) {
		t.Errorf("plan sizes %d and %d differ", len(mixed), len(base))
	}
	if _, err := Plan(PlanOptions{Words: []string{"zero"}, PerWord: 4, Espeak: true, Recorded: []Speaker{s}, RecordedShare: 2}); err == nil {
		t.Error("recorded share 2 accepted")
	}
}

func TestRunRecordedSpeeds(t *testing.T) {
	dir := speakerDir(t, "zero")
	a, err := sayRecorded("zero", Voice{Engine: RecordedEngine, Name: dir, Speed: 1.1})
	if err != nil {
		t.Fatal(err)
	}
	if a.Rate != 8800 || a.Len() != 2400 {
		t.Errorf("speed 1.1: rate %d, %d samples; want 8800 Hz, 2400 (the same samples, played faster)", a.Rate, a.Len())
	}
	if _, err := sayRecorded("ZERO", Voice{Engine: RecordedEngine, Name: dir, Speed: 1}); err != nil {
		t.Errorf("upper-case word: %v", err)
	}
	if _, err := sayRecorded("two", Voice{Engine: RecordedEngine, Name: dir}); err == nil || !strings.Contains(err.Error(), "has: zero") {
		t.Errorf("missing word: err = %v", err)
	}
	// a whole run needs no synthesiser program
	s, _ := LoadSpeaker(dir)
	plan, err := Plan(PlanOptions{Words: []string{"zero"}, PerWord: 5, UnknownClips: -1, SilenceClips: 1, Seed: 1, Recorded: []Speaker{s}})
	if err == nil {
		t.Fatalf("a speaker without any unknown word made a plan of %d clips", len(plan))
	}
	plan, err = Plan(PlanOptions{Words: []string{"zero"}, PerWord: 5, SilenceClips: 1, Seed: 1, Recorded: []Speaker{s, mustSpeaker(t, speakerDir(t, "hello"))}})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := Run(context.Background(), Engines{}, plan, Classes([]string{"zero"}), out, Options{Rate: 8000, Augment: DefaultAugment()}); err != nil {
		t.Fatal(err)
	}
	for _, c := range plan {
		b, err := audio.ReadWAV(filepath.Join(out, c.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if b.Rate != 8000 || b.Len() != 8000 {
			t.Errorf("%s: %d Hz, %d samples; want a 1 s clip at 8 kHz", c.Name(), b.Rate, b.Len())
		}
	}
}

func mustSpeaker(t *testing.T, dir string) Speaker {
	t.Helper()
	s, err := LoadSpeaker(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
