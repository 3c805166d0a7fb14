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

func TestSpellDigits(t *testing.T) {
	for in, want := range map[string]string{
		"press 1, 2 or 3":   "press one, two or three",
		"3D audio enabled":  "3D audio enabled",
		"extension 162":     "extension 162",
		"9 to decrease":     "nine to decrease",
		"option 0.":         "option zero.",
		"no digits at all.": "no digits at all.",
	} {
		if got := spellDigits(in); got != want {
			t.Errorf("spellDigits(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAsteriskItems(t *testing.T) {
	dir := t.TempDir()
	txt := "; Core Asterisk Sounds in English\n\n" +
		"auth-thankyou: Thank you.\n" +
		"conf-usermenu: Please press 1 to mute or unmute yourself.\n" +
		"dictate/pause: Paused.\n" +
		"beep: [this is a simple beep tone]\n" +
		"confbridge-join: <beep ascending>\n" +
		"demo-enterkeywords: Separated by * and then press the pound key.\n" +
		"conf-adminmenu-162: Press 162 now.\n" +
		"no-recording: This prompt has no file.\n"
	if err := os.WriteFile(filepath.Join(dir, "core-sounds-en.txt"), []byte(txt), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"auth-thankyou", "conf-usermenu", "dictate/pause", "beep", "confbridge-join", "demo-enterkeywords", "conf-adminmenu-162"} {
		p := filepath.Join(dir, "prompts", filepath.FromSlash(n)+".wav")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	items, skipped, err := asteriskItems(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range items {
		rel, _ := filepath.Rel(filepath.Join(dir, "prompts"), it.Path)
		got = append(got, filepath.ToSlash(rel)+"="+it.Text)
	}
	want := []string{"auth-thankyou.wav=thank you", "conf-usermenu.wav=please press one to mute or unmute yourself", "dictate/pause.wav=paused"}
	if strings.Join(got, "|") != strings.Join(want, "|") || skipped != 5 {
		t.Errorf("items %q, skipped %d; want %q, 5 skipped", got, skipped, want)
	}
	if _, _, err := asteriskItems(t.TempDir()); err == nil {
		t.Error("a folder without core-sounds-en.txt gave no error")
	}
}
