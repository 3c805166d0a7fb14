package nlp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBrownPassages(t *testing.T) {
	s := func(n int) TagSentence { return TagSentence{Tokens: strings.Fields(strings.Repeat("w ", n))} }
	got := brownPassages([]TagSentence{s(60), s(50), s(120), s(30)})
	// 60+50 ≥ 100 → one passage; 120 → one; the last 30 join it
	if len(got) != 2 || len(strings.Fields(got[0])) != 110 || len(strings.Fields(got[1])) != 150 {
		t.Fatalf("passages of %d texts: %q", len(got), got)
	}
	if got := brownPassages([]TagSentence{s(20)}); len(got) != 1 {
		t.Fatalf("a short file gives %d passages", len(got))
	}
}

// The Brown genre split: 9,016 passages from the 450 training files and
// 998 from the 50 held-out ones, every genre in both.
func TestBrownGenreSplit(t *testing.T) {
	dir := defaultBrownDir()
	if _, err := os.Stat(filepath.Join(dir, "ca01")); err != nil {
		t.Skipf("Brown corpus not found (%v): run scripts/fetch_brown.sh", err)
	}
	train, dev, err := BrownGenreSplit(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(train) != 9016 || len(dev) != 998 {
		t.Fatalf("%d train and %d held-out passages, want 9016 and 998", len(train), len(dev))
	}
	for _, split := range [][]Example{train, dev} {
		seen := map[int]bool{}
		for _, e := range split {
			seen[e.Label] = true
		}
		if len(seen) != len(brownGenreLabels) {
			t.Errorf("%d genres in a split, want %d", len(seen), len(brownGenreLabels))
		}
	}
	if !strings.HasPrefix(train[0].Text, "The Fulton County Grand Jury said Friday") || brownGenreLabels[train[0].Label] != "news" {
		t.Errorf("first passage %q (%s)", train[0].Text[:60], brownGenreLabels[train[0].Label])
	}
}
