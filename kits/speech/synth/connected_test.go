package synth

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestFliteSpans(t *testing.T) {
	// flite -voice slt -psdur -t "two nine oh": pau, t uw, n ay n, ow, pau
	out := "pau:0.193 t:0.277 uw:0.378 n:0.433 ay:0.613 n:0.655 ow:0.80 pau:1.0 \n"
	got, err := fliteSpans(out, []int{2, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []Span{{0.193, 0.378}, {0.378, 0.655}, {0.655, 0.80}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("spans %v, want %v", got, want)
	}
	// a pause between words belongs to neither
	got, err = fliteSpans("pau:0.1 t:0.2 uw:0.3 pau:0.5 ow:0.7 pau:0.9", []int{2, 1})
	if err != nil || got[1] != (Span{0.5, 0.7}) {
		t.Errorf("spans across a pause: %v %v", got, err)
	}
	for _, counts := range [][]int{{2, 2, 1}, {2, 3}, {2, 3, 2}} {
		if _, err := fliteSpans(out, counts); err == nil {
			t.Errorf("word sizes %v accepted for %q", counts, out)
		}
	}
}

func TestFestivalSpans(t *testing.T) {
	out := "@word two 0.220000 0.415287\nnoise\n@word oh 0.415287 0.707434\n"
	got, err := festivalSpans(out, []string{"two", "oh"})
	if err != nil || !reflect.DeepEqual(got, []Span{{0.22, 0.415287}, {0.415287, 0.707434}}) {
		t.Errorf("spans %v %v", got, err)
	}
	if _, err := festivalSpans(out, []string{"two", "four"}); err == nil {
		t.Error("a different word accepted")
	}
	if _, err := festivalSpans(out, []string{"two", "oh", "five"}); err == nil {
		t.Error("a missing word accepted")
	}
}

func TestPlanConnected(t *testing.T) {
	base := PlanOptions{Words: []string{"yes", "two"}, PerWord: 40, Seed: 5, Espeak: true, Flite: true}
	a, _ := Plan(base)
	zero := base
	zero.Connected = 0
	if b, _ := Plan(zero); !reflect.DeepEqual(a, b) {
		t.Fatal("Connected 0 changes the plan")
	}
	c := base
	c.Connected = 0.5
	p, err := Plan(c)
	if err != nil {
		t.Fatal(err)
	}
	if q, _ := Plan(c); !reflect.DeepEqual(p, q) {
		t.Fatal("a connected plan is not deterministic")
	}
	if len(p) != len(a) {
		t.Fatalf("%d clips, want %d", len(p), len(a))
	}
	n := map[string]int{}
	for _, cl := range p {
		if cl.Phrase == "" {
			continue
		}
		n[cl.Label]++
		words := strings.Fields(cl.Phrase)
		if cl.At < 0 || cl.At >= len(words) || words[cl.At] != cl.Text || len(words) < 2 || len(words) > 6 {
			t.Errorf("clip %+v: word %d of %q", cl, cl.At, cl.Phrase)
		}
		if !slices.Contains(TimedEngines(), cl.Voice.Engine) {
			t.Errorf("connected clip with %s", cl.Voice)
		}
		if (cl.Split == "val") != HeldOut(cl.Voice) {
			t.Errorf("clip %d: split %s for %s", cl.Index, cl.Split, cl.Voice)
		}
	}
	if n["yes"] != 20 || n["two"] != 20 || n[Unknown] != 20 {
		t.Errorf("connected clips per class %v, want 20 each", n)
	}
	if _, err := Plan(PlanOptions{Words: []string{"go"}, PerWord: 4, Espeak: true, Connected: 0.5}); err == nil {
		t.Error("connected clips planned without a timed synthesiser")
	}
	c.ConnectedEspeak = 0.5
	p, err = Plan(c)
	if err != nil {
		t.Fatal(err)
	}
	ne := 0
	for _, cl := range p {
		if cl.Phrase != "" && cl.Voice.Engine == "espeak-ng" {
			ne++
		}
	}
	if ne != 30 { // half of the 20 connected clips of each of 3 classes
		t.Errorf("%d connected espeak-ng clips, want 30", ne)
	}
	if _, err := Plan(PlanOptions{Words: []string{"go"}, PerWord: 4, Flite: true, Connected: 0.5, ConnectedEspeak: 0.5}); err == nil {
		t.Error("an espeak-ng share planned without espeak-ng")
	}
}

func TestPhrase(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	places := map[int]bool{}
	for range 200 {
		w, at := Phrase("go", r)
		if w[at] != "go" || len(w) < 2 || len(w) > 6 {
			t.Fatalf("Phrase = %v, %d", w, at)
		}
		places[at] = true
	}
	if len(places) < 4 {
		t.Errorf("the word sits at only %d places", len(places))
	}
}

// With flite installed: a phrase's word spans are in order, inside the
// audio, and the cut word is as long as its span plus the padding.
func TestSayWordsFlite(t *testing.T) {
	e := FindEngines()
	if e.Flite == "" {
		t.Skip("flite not installed (scripts/fetch_espeak.sh)")
	}
	ctx := context.Background()
	for _, v := range []Voice{{Engine: "flite", Name: "awb", Speed: 1.25}, {Engine: "flite", Name: "kal16", Speed: 0.8}} {
		words := []string{"two", "nine", "three", "oh", "four"}
		a, spans, err := e.SayWords(ctx, words, v)
		if err != nil {
			t.Fatal(err)
		}
		dur := float64(a.Len()) / float64(a.Rate)
		prev := 0.0
		for i, s := range spans {
			if s.Start < prev-1e-9 || s.End-s.Start < 0.08 || s.End > dur+0.01 {
				t.Errorf("%s: word %q span %v (audio %.3f s)", v, words[i], s, dur)
			}
			prev = s.End
		}
		c := Clip{Text: "three", Phrase: strings.Join(words, " "), At: 2, Voice: v}
		w, err := connectedWord(ctx, e, c, 8000)
		if err != nil {
			t.Fatal(err)
		}
		want := int((spans[2].End-spans[2].Start+2*CutPad)*8000 + 0.5)
		if len(w) < want-2 || len(w) > want+2 {
			t.Errorf("%s: cut %d samples, want %d", v, len(w), want)
		}
	}
}

func TestSayWordsFestival(t *testing.T) {
	e := FindEngines()
	if e.Festival == "" {
		t.Skip("festival not installed (scripts/fetch_festival.sh)")
	}
	words := []string{"four", "queen", "of", "clubs"}
	a, spans, err := e.SayWords(context.Background(), words, Voice{Engine: "festival", Name: "ked_diphone", Speed: 1})
	if err != nil {
		t.Fatal(err)
	}
	dur := float64(a.Len()) / float64(a.Rate)
	for i, s := range spans {
		if s.End-s.Start < 0.05 || s.End > dur+0.01 || (i > 0 && s.Start < spans[i-1].End-1e-6) {
			t.Errorf("word %q span %v (audio %.3f s)", words[i], s, dur)
		}
	}
}

// The alignment espeak-ng's connected clips use, checked against flite's
// own word times: the word boundaries it finds in flite phrases are within
// a few frames of flite's (the real words are cut with 50 ms padding).
func TestAlignAgainstFlite(t *testing.T) {
	e := FindEngines()
	if e.Flite == "" {
		t.Skip("flite not installed (scripts/fetch_espeak.sh)")
	}
	ctx := context.Background()
	var sum float64
	n := 0
	for _, tc := range []struct {
		v     Voice
		words string
	}{
		{Voice{Engine: "flite", Name: "slt", Speed: 1}, "two nine three four zero"},
		{Voice{Engine: "flite", Name: "awb", Speed: 1.25}, "four queen of clubs"},
		{Voice{Engine: "flite", Name: "kal16", Speed: 0.8}, "go forward seven oh left"},
	} {
		words := strings.Fields(tc.words)
		_, want, err := e.SayWords(ctx, words, tc.v)
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := e.SayWordsAligned(ctx, words, tc.v)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(words); i++ {
			d := math.Abs(got[i].Start - want[i].Start)
			sum += d
			n++
			if d > 0.1 {
				t.Errorf("%s %q: word %q starts at %.3f s, flite says %.3f", tc.v, tc.words, words[i], got[i].Start, want[i].Start)
			}
		}
	}
	// measured: 0.032 s; splitting the phrase in proportion to the words'
	// lengths alone is off by 0.117 s
	if mean := sum / float64(n); mean > 0.05 {
		t.Errorf("mean boundary error %.3f s over %d boundaries", mean, n)
	} else {
		t.Logf("mean boundary error %.3f s over %d boundaries", mean, n)
	}
}

func TestSayWordsAlignedEspeak(t *testing.T) {
	e := FindEngines()
	if e.Espeak == "" {
		t.Skip("espeak-ng not installed (scripts/fetch_espeak.sh)")
	}
	c := Clip{Text: "five", Phrase: "three five oh", At: 1, Voice: Voice{Engine: "espeak-ng", Name: "en-us+f3", Speed: 175, Pitch: 50}}
	w, err := connectedWord(context.Background(), e, c, 8000)
	if err != nil {
		t.Fatal(err)
	}
	// "five" alone lasts about 0.4 s at 175 wpm; cut with 2 x 50 ms padding
	if len(w) < 0.25*8000 || len(w) > 0.7*8000 {
		t.Errorf("cut %d samples", len(w))
	}
}
