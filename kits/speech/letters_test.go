package speech

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/audio"
	"paddle/core/hub"
)

func TestRealLetters(t *testing.T) {
	src := filepath.Join(hub.CacheDir(), "data", "klettres")
	if _, err := os.Stat(filepath.Join(src, ".complete")); err != nil {
		t.Skipf("KLettres letters not in %s: run scripts/fetch_klettres.sh", src)
	}
	out := t.TempDir()
	if _, err := runSpeech(t, "speech", "realwords", "--set", "letters", "--output", out); err != nil {
		t.Fatal(err)
	}
	list, err := os.ReadFile(filepath.Join(out, "real_keywords.list"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(list)), "\n")
	if len(lines) != 52 {
		t.Fatalf("%d clips, want 52 (26 letters x 2 speakers)", len(lines))
	}
	perLetter := map[string]int{}
	for _, l := range lines {
		path, label, ok := strings.Cut(l, "\t")
		if !ok || !strings.HasPrefix(path, label+"/") {
			t.Fatalf("line %q: want <letter>/<file>\\t<letter>", l)
		}
		perLetter[label]++
		a, err := audio.Read(filepath.Join(out, path), nil)
		if err != nil {
			t.Fatal(err)
		}
		// cut to the letter: KLettres' files are 1.5-2.2 s, letter names 0.3-1.1 s
		if d := float64(len(a.Mono())) / float64(a.Rate); a.Rate != 16000 || d < 0.2 || d > 1.3 {
			t.Errorf("%s: %d Hz, %.2f s; want 16000 Hz, 0.2-1.3 s", path, a.Rate, d)
		}
	}
	for _, l := range Letters {
		if perLetter[l] != 2 {
			t.Errorf("letter %s: %d clips, want 2", l, perLetter[l])
		}
	}
	sp, err := os.ReadFile(filepath.Join(out, "speakers.tsv"))
	if err != nil || strings.Count(string(sp), "\ten_GB\n") != 26 || strings.Count(string(sp), "\ten\n") != 26 {
		t.Errorf("speakers.tsv: want 26 en and 26 en_GB lines (%v)", err)
	}

	if _, err := runSpeech(t, "speech", "realwords", "--set", "numbers", "--output", out); err == nil {
		t.Error("--set numbers: want an error")
	}
	if _, err := runSpeech(t, "speech", "realwords", "--set", "letters", "--data-dir", t.TempDir(), "--output", out); err == nil {
		t.Error("empty --data-dir: want an error")
	}
}
