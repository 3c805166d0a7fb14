package synth

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
)

// Charset presets for --charset.
var Charsets = map[string]string{
	"digits": "0123456789",
	"lower":  "0123456789abcdefghijklmnopqrstuvwxyz",
	"alnum":  "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
	// en: PaddleOCR's en_dict.txt characters (printable ASCII), plus space.
	"en": "0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~!\"#$%&'()*+,-./ ",
}

// Texts picks the text of each sample: a window of words from a corpus line,
// or a random string over Charset. Characters outside Charset (when set) are
// dropped from corpus text.
type Texts struct {
	Lines          []string // corpus lines; empty: random strings
	Charset        []rune   // allowed characters (random strings draw from it)
	MinLen, MaxLen int      // length range in characters (default 1–25)
	// Doc is the share of samples that are document-like lines (docLine): corpus
	// words in varied case mixed with prices, dates, times, e-mail addresses, URLs,
	// phone numbers, codes and IDs.
	Doc     float64
	allowed map[rune]bool
}

// NewTexts builds a text source. charset is a preset name (digits, lower,
// alnum, en), a dictionary file (one character per line) or the characters
// themselves; "" allows everything (then corpus must be set).
func NewTexts(corpus []string, charset string, minLen, maxLen int) (*Texts, error) {
	t := &Texts{Lines: corpus, MinLen: max(minLen, 1), MaxLen: maxLen}
	if t.MaxLen <= 0 {
		t.MaxLen = 25
	}
	if t.MaxLen < t.MinLen {
		return nil, fmt.Errorf("max length %d is below min length %d", t.MaxLen, t.MinLen)
	}
	cs, err := ParseCharset(charset)
	if err != nil {
		return nil, err
	}
	t.Charset = cs
	if len(cs) > 0 {
		t.allowed = map[rune]bool{}
		for _, c := range cs {
			t.allowed[c] = true
		}
	}
	if len(corpus) == 0 && len(cs) == 0 {
		return nil, fmt.Errorf("give a corpus file or a character set")
	}
	if len(corpus) == 0 && len(slices.DeleteFunc(slices.Clone(cs), func(r rune) bool { return r == ' ' })) == 0 {
		return nil, fmt.Errorf("character set %q has no visible characters", charset)
	}
	return t, nil
}

// ParseCharset resolves a --charset value (see NewTexts) to its characters, in order, without duplicates.
func ParseCharset(s string) ([]rune, error) {
	if s == "" {
		return nil, nil
	}
	if p, ok := Charsets[s]; ok {
		s = p
	} else if fi, err := os.Stat(s); err == nil && !fi.IsDir() {
		b, err := os.ReadFile(s)
		if err != nil {
			return nil, err
		}
		var sb strings.Builder
		for _, line := range strings.Split(string(b), "\n") {
			sb.WriteString(strings.TrimRight(line, "\r"))
		}
		s = sb.String()
	}
	var out []rune
	seen := map[rune]bool{}
	for _, r := range s {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out, nil
}

// ReadCorpus reads a text file: one text per line, blank lines and
// fortune-file `%` separators skipped, runs of white space collapsed.
func ReadCorpus(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		line := strings.Join(strings.Fields(sc.Text()), " ")
		if line != "" && line != "%" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("corpus %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("corpus %s: no text", path)
	}
	return out, nil
}

// Pick returns one text, never empty, never starting or ending with a space.
func (t *Texts) Pick(r *rand.Rand) string {
	for range 50 {
		var s string
		if t.Doc > 0 && r.Float64() < t.Doc {
			s = t.docLine(r, t.MinLen+r.IntN(t.MaxLen-t.MinLen+1))
		} else if len(t.Lines) > 0 {
			s = t.window(t.Lines[r.IntN(len(t.Lines))], r)
		} else {
			s = t.random(r)
		}
		if n := len([]rune(s)); n >= t.MinLen && n <= t.MaxLen {
			return s
		}
	}
	return t.random(r)
}

// window takes a random run of whole words of line (after filtering) that fits MaxLen.
func (t *Texts) window(line string, r *rand.Rand) string {
	line = t.filter(line)
	words := strings.Fields(line)
	if len(words) == 0 {
		return ""
	}
	target := t.MinLen + r.IntN(t.MaxLen-t.MinLen+1)
	i := r.IntN(len(words))
	s := words[i]
	for j := i + 1; j < len(words) && len([]rune(s))+1+len([]rune(words[j])) <= target; j++ {
		s += " " + words[j]
	}
	if rs := []rune(s); len(rs) > t.MaxLen {
		s = strings.TrimSpace(string(rs[:t.MaxLen]))
	}
	return s
}

// filter drops the characters outside Charset (when set) and collapses white space.
func (t *Texts) filter(line string) string {
	if t.allowed == nil {
		return line
	}
	line = strings.Map(func(c rune) rune {
		if t.allowed[c] {
			return c
		}
		if c == ' ' || c == '\t' {
			return ' '
		}
		return -1
	}, line)
	return strings.Join(strings.Fields(line), " ")
}

// random draws a string over Charset; spaces never lead, trail or double.
func (t *Texts) random(r *rand.Rand) string {
	n := t.MinLen + r.IntN(t.MaxLen-t.MinLen+1)
	rs := make([]rune, 0, n)
	for len(rs) < n {
		c := t.Charset[r.IntN(len(t.Charset))]
		if c == ' ' && (len(rs) == 0 || len(rs) == n-1 || rs[len(rs)-1] == ' ') {
			continue
		}
		rs = append(rs, c)
	}
	return string(rs)
}
