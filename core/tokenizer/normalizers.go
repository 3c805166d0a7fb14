package tokenizer

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A Normalizer rewrites text before pre-tokenization, keeping alignments.
type Normalizer interface {
	normalize(n *normStr)
}

// unicodeNorm is NFC, NFD, NFKC or NFKD.
type unicodeNorm struct{ form norm.Form }

func (u unicodeNorm) normalize(n *normStr) {
	if u.form.IsNormalString(n.s) {
		return
	}
	// Work segment by segment (a starter and what combines with it). Each
	// output char is traced to the input char its first decomposed piece
	// came from: it replaces that char; input chars no output char starts
	// from are removals charged to the output char before them; a second
	// output char from the same input char is an insertion. This is how the
	// alignment-aware normalization Hugging Face uses reports changes
	// (é from e + U+0301 replaces e and removes the accent; fi from ﬁ is
	// f replacing ﬁ plus an inserted i).
	decomp := norm.NFD
	if u.form == norm.NFKC || u.form == norm.NFKD {
		decomp = norm.NFKD
	}
	var dest []change
	initial := 0
	remove := func(k int) {
		if k == 0 {
			return
		}
		if len(dest) == 0 {
			initial += k
		} else {
			dest[len(dest)-1].d -= k
		}
	}
	s := n.s
	for len(s) > 0 {
		_, sz := utf8.DecodeRuneInString(s)
		k := u.form.FirstBoundaryInString(s[sz:])
		if k < 0 {
			k = len(s)
		} else {
			k += sz
		}
		seg := s[:k]
		s = s[k:]
		in := []rune(seg)
		var src []int // input char of every decomposed piece
		for ci, r := range in {
			for range []rune(decomp.String(string(r))) {
				src = append(src, ci)
			}
		}
		consumed, pos, prev := 0, 0, -1
		for _, r := range []rune(u.form.String(seg)) {
			ci := len(in) - 1
			if pos < len(src) {
				ci = src[pos]
			}
			pos += utf8.RuneCountInString(decomp.String(string(r)))
			if ci == prev || ci < consumed {
				dest = append(dest, change{r, 1})
				continue
			}
			remove(ci - consumed)
			dest = append(dest, change{r, 0})
			consumed, prev = ci+1, ci
		}
		remove(len(in) - consumed)
	}
	n.transform(dest, initial)
}

// lowercaseNorm lower-cases with Unicode's full mapping (İ becomes i̇).
type lowercaseNorm struct{}

func (lowercaseNorm) normalize(n *normStr) {
	if !strings.ContainsRune(n.s, 0x130) {
		n.mapRunes(unicode.ToLower)
		return
	}
	dest := make([]change, 0, len(n.s))
	for _, r := range n.s {
		if r == 0x130 {
			dest = append(dest, change{'i', 0}, change{0x307, 1})
			continue
		}
		dest = append(dest, change{unicode.ToLower(r), 0})
	}
	n.transform(dest, 0)
}

// stripNorm strips whitespace on the left and/or right.
type stripNorm struct{ left, right bool }

func (s stripNorm) normalize(n *normStr) { n.strip(s.left, s.right) }

// stripAccentsNorm removes combining marks (Mn).
type stripAccentsNorm struct{}

func (stripAccentsNorm) normalize(n *normStr) {
	n.filter(func(r rune) bool { return !unicode.Is(unicode.Mn, r) })
}

// replaceNorm replaces a literal or regex pattern by content.
type replaceNorm struct {
	pat     finder
	content string
}

func (r replaceNorm) normalize(n *normStr) { n.replaceMatches(r.pat.find(n.s), r.content) }

// prependNorm prepends a string to non-empty text.
type prependNorm struct{ s string }

func (p prependNorm) normalize(n *normStr) { n.prepend(p.s) }

// seqNorm runs normalizers in order.
type seqNorm []Normalizer

func (q seqNorm) normalize(n *normStr) {
	for _, x := range q {
		x.normalize(n)
	}
}

// bertNorm is BERT's normalizer: clean control chars, pad CJK chars with
// spaces, strip accents, lower-case.
type bertNorm struct {
	cleanText, chinese, stripAccents, lowercase bool
}

func (b bertNorm) normalize(n *normStr) {
	if b.cleanText {
		n.filter(func(r rune) bool { return !(r == 0 || r == 0xFFFD || isControl(r)) })
		n.mapRunes(func(r rune) rune {
			if isBertWhitespace(r) {
				return ' '
			}
			return r
		})
	}
	if b.chinese && strings.IndexFunc(n.s, isChineseChar) >= 0 {
		dest := make([]change, 0, len(n.s))
		for _, r := range n.s {
			if isChineseChar(r) {
				dest = append(dest, change{' ', 0}, change{r, 1}, change{' ', 1})
			} else {
				dest = append(dest, change{r, 0})
			}
		}
		n.transform(dest, 0)
	}
	if b.stripAccents {
		unicodeNorm{norm.NFD}.normalize(n)
		stripAccentsNorm{}.normalize(n)
	}
	if b.lowercase {
		lowercaseNorm{}.normalize(n)
	}
}

// byteLevelNorm maps every byte to GPT-2's byte-level alphabet (the ByteLevel normalizer).
type byteLevelNorm struct{}

func (byteLevelNorm) normalize(n *normStr) { toByteLevel(n) }
