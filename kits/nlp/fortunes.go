package nlp

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"paddle/core/hub"
)

// Language identification data: the Debian fortune-cookie packages that
// scripts/fetch_fortunes.sh unpacks as <root>/<lang>/<file>, one folder per
// language (en, de, es, it, pl, ru, cs, zh, pt, bg, eo). A fortune file
// holds texts separated by lines that are a single "%".

// FortuneLangs are the languages fetch_fortunes.sh provides, in label order.
var FortuneLangs = []string{"bg", "cs", "de", "en", "eo", "es", "it", "pl", "pt", "ru", "zh"}

// Fortune texts shorter than minFortuneLetters letters (ASCII art, "%"
// noise) are dropped, longer than maxFortuneRunes characters cut.
const (
	minFortuneLetters = 10
	maxFortuneRunes   = 1000
)

// ParseFortunes splits a fortune file into its cleaned texts (CleanFortune),
// dropping those with fewer than 10 letters.
func ParseFortunes(b []byte) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if t := CleanFortune(cur.String()); letters(t) >= minFortuneLetters {
			out = append(out, t)
		}
		cur.Reset()
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		l := strings.TrimRight(sc.Text(), "\r")
		if l == "%" {
			flush()
			continue
		}
		cur.WriteString(l)
		cur.WriteByte('\n')
	}
	flush()
	return out
}

// CleanFortune makes a fortune one line of text: ANSI escape sequences and
// backspace overstrikes ("_\bx") removed, invalid UTF-8 and other control
// characters dropped, each run of white space one space, cut to 1,000
// characters.
func CleanFortune(s string) string {
	var b strings.Builder
	space := true // drop leading space
	n := 0
	for i := 0; i < len(s) && n < maxFortuneRunes; {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b: // ESC [ params letter
			i += w
			if i < len(s) && s[i] == '[' {
				i++
				for i < len(s) && !(s[i] >= '@' && s[i] <= '~') {
					i++
				}
				i++
			}
			continue
		case i+w < len(s) && s[i+w] == '\b': // x\b: the next char overstrikes x
			i += w + 1
			continue
		case unicode.IsSpace(r):
			if !space {
				b.WriteByte(' ')
				n++
			}
			space = true
		case r == utf8.RuneError && w == 1, unicode.IsControl(r):
		default:
			b.WriteRune(r)
			space = false
			n++
		}
		i += w
	}
	return strings.TrimRight(b.String(), " ")
}

func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// ReadFortunes reads every fortune file of each language folder under root
// (files in name order), dropping texts seen before in any language (the
// packages repeat some, and a repeat would leak from train to test).
func ReadFortunes(root string, langs []string) (map[string][]string, error) {
	out := map[string][]string{}
	seen := map[string]bool{}
	for _, lang := range langs {
		files, err := filepath.Glob(filepath.Join(root, lang, "*"))
		if err != nil {
			return nil, err
		}
		slices.Sort(files)
		for _, f := range files {
			st, err := os.Stat(f)
			if err != nil {
				return nil, fmt.Errorf("fortunes: %w", err)
			}
			if st.IsDir() || strings.HasSuffix(f, ".dat") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("fortunes: %w", err)
			}
			for _, t := range ParseFortunes(b) {
				if !seen[t] {
					seen[t] = true
					out[lang] = append(out[lang], t)
				}
			}
		}
		if len(out[lang]) == 0 {
			return nil, fmt.Errorf("fortunes: no texts in %s (run scripts/fetch_fortunes.sh)", filepath.Join(root, lang))
		}
	}
	return out, nil
}

// FortunesSplit reads the languages under root and splits each one with a
// generator seeded by seed: after shuffling, at most maxPerLang texts
// (0: all) are kept, the first 80% train, the next 10% dev and the rest
// test. Labels are the language codes in langs' order.
func FortunesSplit(root string, langs []string, maxPerLang int, seed uint64) (train, dev, test []Example, err error) {
	byLang, err := ReadFortunes(root, langs)
	if err != nil {
		return nil, nil, nil, err
	}
	for c, lang := range langs {
		texts := byLang[lang]
		r := rand.New(rand.NewPCG(seed, uint64(c)))
		r.Shuffle(len(texts), func(i, j int) { texts[i], texts[j] = texts[j], texts[i] })
		if maxPerLang > 0 && len(texts) > maxPerLang {
			texts = texts[:maxPerLang]
		}
		a, b := len(texts)*8/10, len(texts)*9/10
		for i, t := range texts {
			e := Example{Text: t, Label: c}
			switch {
			case i < a:
				train = append(train, e)
			case i < b:
				dev = append(dev, e)
			default:
				test = append(test, e)
			}
		}
	}
	return train, dev, test, nil
}

// defaultFortunesDir is where scripts/fetch_fortunes.sh puts the files.
func defaultFortunesDir() string {
	return filepath.Join(hub.CacheDir(), "data", "fortunes")
}
