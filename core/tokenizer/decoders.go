package tokenizer

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A Decoder turns tokens back into text.
type Decoder interface {
	decodeChain(toks []string) []string
}

// byteLevelDec maps byte-level chars back to bytes (tokens with other chars stay as they are).
type byteLevelDec struct{}

func (byteLevelDec) decodeChain(toks []string) []string {
	var buf []byte
	for _, t := range toks {
		start := len(buf)
		ok := true
		for _, r := range t {
			b, found := charBytes[r]
			if !found {
				ok = false
				break
			}
			buf = append(buf, b)
		}
		if !ok {
			buf = append(buf[:start], t...)
		}
	}
	return []string{utf8Lossy(buf)}
}

// byteFallbackDec turns <0xXX> tokens into bytes (U+FFFD per byte when invalid UTF-8).
type byteFallbackDec struct{}

func (byteFallbackDec) decodeChain(toks []string) []string {
	var out []string
	var pending []byte
	flush := func() {
		if len(pending) == 0 {
			return
		}
		if utf8.Valid(pending) {
			out = append(out, string(pending))
		} else {
			for range pending {
				out = append(out, "\uFFFD")
			}
		}
		pending = pending[:0]
	}
	for _, t := range toks {
		if len(t) == 6 && strings.HasPrefix(t, "<0x") && t[5] == '>' {
			if v, err := strconv.ParseUint(t[3:5], 16, 8); err == nil {
				pending = append(pending, byte(v))
				continue
			}
		}
		flush()
		out = append(out, t)
	}
	flush()
	return out
}

// fuseDec joins all tokens into one.
type fuseDec struct{}

func (fuseDec) decodeChain(toks []string) []string { return []string{strings.Join(toks, "")} }

// replaceDec replaces a literal in every token.
type replaceDec struct{ pat, content string }

func (r replaceDec) decodeChain(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = strings.ReplaceAll(t, r.pat, r.content)
	}
	return out
}

// stripDec removes up to start leading and stop trailing copies of a char.
type stripDec struct {
	content     rune
	start, stop int
}

func (s stripDec) decodeChain(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		rs := []rune(t)
		a, b := 0, len(rs)
		for a < s.start && a < len(rs) && rs[a] == s.content {
			a++
		}
		for k := 0; k < s.stop && b > a && rs[b-1] == s.content; k++ {
			b--
		}
		out[i] = string(rs[a:b])
	}
	return out
}

// metaspaceDec turns ▁ back into spaces; in the first token it drops them
// (when a prefix was prepended), as the library (0.19 and later) does.
type metaspaceDec struct {
	replacement rune
	prepend     bool
}

func (m metaspaceDec) decodeChain(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		if i == 0 && m.prepend {
			out[i] = strings.ReplaceAll(t, string(m.replacement), "") // every ▁ of the first token goes
			continue
		}
		out[i] = strings.ReplaceAll(t, string(m.replacement), " ")
	}
	return out
}

// wordPieceDec joins ## pieces and puts spaces between words.
type wordPieceDec struct {
	prefix  string
	cleanup bool
}

func cleanup(s string) string {
	for _, p := range [][2]string{{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"},
		{" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}} {
		s = strings.ReplaceAll(s, p[0], p[1])
	}
	return s
}

func (w wordPieceDec) decodeChain(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		if i != 0 {
			if strings.HasPrefix(t, w.prefix) {
				t = strings.Replace(t, w.prefix, "", 1)
			} else {
				t = " " + t
			}
		}
		if w.cleanup {
			t = cleanup(t)
		}
		out[i] = t
	}
	return out
}

// bpeDec replaces the end-of-word suffix by a space.
type bpeDec struct{ suffix string }

func (b bpeDec) decodeChain(toks []string) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		r := " "
		if i == len(toks)-1 {
			r = ""
		}
		out[i] = strings.ReplaceAll(t, b.suffix, r)
	}
	return out
}

// seqDec runs decoders in order.
type seqDec []Decoder

func (q seqDec) decodeChain(toks []string) []string {
	for _, d := range q {
		toks = d.decodeChain(toks)
	}
	return toks
}

// utf8Lossy is Rust's String::from_utf8_lossy: each maximal invalid
// subsequence becomes one U+FFFD.
func utf8Lossy(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for i := 0; i < len(b); {
		r, sz := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || sz > 1 {
			sb.WriteRune(r)
			i += sz
			continue
		}
		sb.WriteRune(utf8.RuneError)
		i += invalidLen(b[i:])
	}
	return sb.String()
}

// invalidLen is the length of the maximal prefix of b that starts a valid
// UTF-8 sequence but does not complete one (at least 1).
func invalidLen(b []byte) int {
	c := b[0]
	var n int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		n = 2
	case c == 0xE0:
		n, lo = 3, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		n = 3
	case c == 0xED:
		n, hi = 3, 0x9F
	case c == 0xF0:
		n, lo = 4, 0x90
	case c >= 0xF1 && c <= 0xF3:
		n = 4
	case c == 0xF4:
		n, hi = 4, 0x8F
	default:
		return 1
	}
	k := 1
	for k < n && k < len(b) {
		x := b[k]
		if k == 1 && (x < lo || x > hi) || k > 1 && (x < 0x80 || x > 0xBF) {
			break
		}
		k++
	}
	return k
}
