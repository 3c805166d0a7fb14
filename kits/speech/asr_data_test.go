package speech

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/kits/speech/synth"
)

func TestFoldAccents(t *testing.T) {
	for in, want := range map[string]string{
		"Un pingüino":                        "un pinguino",
		"Una moneda «peñique».":              "una moneda penique",
		"Une pièce, appelée “penny”, à Noël": "une piece appelee penny a noel",
		"L’œuf de Ça":                        "l'oeuf de ca",
		"Ein Fuß":                            "ein fuss",
		"Ελλάδα":                             "", // other letters: skipped
	} {
		if got := synth.NormalizeText(foldAccents(in)); got != want {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
}

// A fake stamp tree: descriptions in two languages with their .txt files.
func TestTuxpaintItems(t *testing.T) {
	snd, txt := t.TempDir(), t.TempDir()
	write := func(path, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(txt, "animals/frog.txt"), "A frog.\nes.utf8=Una rana.\nfr.utf8=Une grenouille.\n")
	write(filepath.Join(txt, "money/penny.txt"), "A 1 cent piece.\nes.utf8=Una moneda de 1 centavo.\n")
	write(filepath.Join(txt, "animals/cat.txt"), "A cat.\n")
	for _, f := range []string{"animals/frog_desc.ogg", "animals/frog_desc_es.ogg", "animals/frog_desc_fr.ogg",
		"money/penny_desc_es.ogg", "animals/cat_desc_es.ogg", "animals/frog.ogg", "animals/dog_desc_es.ogg"} {
		write(filepath.Join(snd, f), "")
	}
	items, skipped, err := tuxpaintItems(snd, txt, "es")
	if err != nil {
		t.Fatal(err)
	}
	// frog: kept; penny: digits; cat: no es line; dog: no .txt.
	if len(items) != 1 || items[0].Text != "una rana" || !strings.HasSuffix(items[0].Path, "frog_desc_es.ogg") || skipped != 3 {
		t.Errorf("es: %+v, %d skipped", items, skipped)
	}
	items, _, err = tuxpaintItems(snd, txt, "en")
	if err != nil || len(items) != 1 || items[0].Text != "a frog" || !strings.HasSuffix(items[0].Path, "frog_desc.ogg") {
		t.Errorf("en: %+v (%v)", items, err)
	}
	// The split is by text: equal texts land in the same set.
	var many []asrItem
	for i := range 200 {
		many = append(many, asrItem{Path: string(rune('a' + i%26)), Text: strings.Repeat("x", 1+i%40)})
	}
	train, test := splitByText(many, 15)
	in := map[string]bool{}
	for _, it := range test {
		in[it.Text] = true
	}
	for _, it := range train {
		if in[it.Text] {
			t.Fatalf("%q in both sets", it.Text)
		}
	}
	if len(test) == 0 || len(train) == 0 || len(train)+len(test) != 200 {
		t.Errorf("split %d / %d", len(train), len(test))
	}
}
