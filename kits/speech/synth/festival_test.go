package synth

import (
	"context"
	"slices"
	"testing"
)

// Festival voices join a plan only when asked for: without them the plan is
// the same as before; alone they speak every word clip, all in train.
func TestPlanFestival(t *testing.T) {
	base := PlanOptions{Words: []string{"yes", "no"}, PerWord: 40, Seed: 3, Espeak: true, Flite: true}
	a, err := Plan(base)
	if err != nil {
		t.Fatal(err)
	}
	withF := base
	withF.Festival = true
	b, err := Plan(withF)
	if err != nil {
		t.Fatal(err)
	}
	nf := 0
	for _, c := range b {
		if c.Voice.Engine == "festival" {
			nf++
			if c.Split != "train" || !slices.Contains(FestivalVoices, c.Voice.Name) {
				t.Errorf("festival clip %+v", c)
			}
		}
	}
	if nf != 3*10 { // a quarter of the 40 clips of yes, no and _unknown_
		t.Errorf("%d festival clips, want 30", nf)
	}
	for _, c := range a {
		if c.Voice.Engine == "festival" {
			t.Fatal("festival voice in a plan without Festival")
		}
	}
	only, err := Plan(PlanOptions{Words: []string{"go"}, PerWord: 12, Seed: 1, Festival: true})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Voice]bool{}
	for _, c := range only {
		if c.Label != Silence {
			if c.Voice.Engine != "festival" {
				t.Errorf("festival-only plan has %+v", c)
			}
			seen[c.Voice] = true
		}
	}
	if len(seen) != 12 { // 24 word clips over the 12 settings, each used twice
		t.Errorf("%d distinct festival settings, want 12", len(seen))
	}
}

// Festival speaks when scripts/fetch_festival.sh has installed it; a
// higher F0 target and a longer duration change the audio.
func TestFestivalSay(t *testing.T) {
	e := FindEngines()
	if e.Festival == "" {
		t.Skip("festival not installed (scripts/fetch_festival.sh)")
	}
	v := Voice{Engine: "festival", Name: "ked_diphone", Speed: 1}
	a, err := e.Say(context.Background(), "seven", v)
	if err != nil {
		t.Fatal(err)
	}
	v.Speed = 1.25
	b, err := e.Say(context.Background(), "seven", v)
	if err != nil {
		t.Fatal(err)
	}
	if a.Rate != 16000 || a.Len() < 8000 || float64(b.Len()) < 1.15*float64(a.Len()) {
		t.Errorf("rate %d, %d samples; stretched 1.25: %d", a.Rate, a.Len(), b.Len())
	}
}
