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
	// Normalize segment by segment (a starter and its following non-starters):
	// the output chars of a segment take its chars' alignments in order, extra
	// ones are insertions, missing ones removals, as the alignment-aware
	// unicode normalization of Hugging Face reports them.
	var dest []change
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
		out := []rune(u.form.String(seg))
		switch {
		case len(out) >= len(in):
			for i, r := range out {
				d := 0
				if i >= len(in) {
					d = 1
				}
				dest = append(dest, change{r, d})
			}
		default:
			for i, r := range out {
				d := 0
				if i == len(out)-1 {
					d = -(len(in) - len(out))
				}
				dest = append(dest, change{r, d})
			}
			if len(out) == 0 {
				// Whole segment removed: fold it into the previous change.
				if len(dest) > 0 {
					dest[len(dest)-1].d -= len(in)
				}
			}
		}
	}
	n.transform(dest, 0)
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
