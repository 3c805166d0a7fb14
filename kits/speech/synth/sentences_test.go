package synth

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/audio"
)

func TestNormalizeText(t *testing.T) {
	for in, want := range map[string]string{
		"The jury said, ``no evidence'' .": "the jury said no evidence",
		"Atlanta's term-end presentments":  "atlanta's term end presentments",
		"'Tis  the  'end'":                 "tis the end",
		"in 1961":                          "",
		"café":                             "",
	} {
		if got := NormalizeText(in); got != want {
			t.Errorf("NormalizeText(%q) = %q, want %q", in, got, want)
		}
	}
}

// The plan keeps validation sentences and voices apart from training ones;
// two sentences are synthesised into WAVs and lists.
func TestSentencePlanAndRun(t *testing.T) {
	var sents []string
	for i := range 200 {
		sents = append(sents, strings.Repeat("word ", 3+i%5)+string(rune('a'+i%26))+strings.Repeat("x", i/26))
	}
	clips, err := PlanSentences(sents, 300, 0.1, 1, true, true)
	if err != nil {
		t.Fatal(err)
	}
	trainText := map[string]bool{}
	nval := 0
	for _, c := range clips {
		if c.Split == "train" {
			trainText[c.Text] = true
			if HeldOut(c.Voice) {
				t.Errorf("training clip %d has a held-out voice %s", c.Index, c.Voice)
			}
		}
	}
	for _, c := range clips {
		if c.Split == "val" {
			nval++
			if trainText[c.Text] || !HeldOut(c.Voice) {
				t.Errorf("validation clip %d: text trained on %v, voice %s", c.Index, trainText[c.Text], c.Voice)
			}
		}
	}
	if nval != 30 {
		t.Errorf("%d validation clips of 300, want 30", nval)
	}
	eng := FindEngines()
	if eng.Espeak == "" {
		t.Skip("espeak-ng not installed (run scripts/fetch_espeak.sh)")
	}
	dir := t.TempDir()
	few := []SentenceClip{
		{Index: 0, Text: "he was not an ill disposed young man", Voice: Voice{Engine: "espeak-ng", Name: "en-us", Speed: 160, Pitch: 50}, Split: "train"},
		{Index: 1, Text: "ten of clubs", Voice: Voice{Engine: "espeak-ng", Name: "en-gb+m3", Speed: 150, Pitch: 40}, Split: "val"},
	}
	if err := RunSentences(context.Background(), eng, few, dir, 16000, 2); err != nil {
		t.Fatal(err)
	}
	for _, c := range few {
		a, err := audio.ReadWAV(filepath.Join(dir, c.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if a.Rate != 16000 || a.Duration() < 0.5 || a.Duration() > 6 {
			t.Errorf("%s: %d Hz, %.2f s", c.Name(), a.Rate, a.Duration())
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "val.list"))
	if string(b) != "val_000001.wav\tten of clubs\n" {
		t.Errorf("val.list = %q", b)
	}
}
