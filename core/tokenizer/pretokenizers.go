package tokenizer

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// splitBehavior says what a Split pre-tokenizer does with the delimiters.
type splitBehavior int

const (
	splitRemoved splitBehavior = iota
	splitIsolated
	splitMergedWithPrevious
	splitMergedWithNext
	splitContiguous
)

// piece is a part of the input during pre-tokenization; tokens is set once
// the part is final (an added token, or after the model ran).
type piece struct {
	n      *normStr
	tokens []token
	done   bool
}

// token is a model output: an id, its string, and byte offsets in the piece's normalized text.
type token struct {
	id    int
	value string
	s, e  int
}

// A PreTokenizer splits normalized text into words.
type PreTokenizer interface {
	preTokenize(ps []piece) []piece
}

// splitPieces applies f to every piece not yet tokenized, dropping empty results.
func splitPieces(ps []piece, f func(n *normStr) []*normStr) []piece {
	out := make([]piece, 0, len(ps))
	for _, p := range ps {
		if p.done {
			out = append(out, p)
			continue
		}
		for _, q := range f(p.n) {
			if len(q.s) > 0 {
				out = append(out, piece{n: q})
			}
		}
	}
	return out
}

// splitPre is the Split pre-tokenizer: a pattern, a behaviour, and invert.
type splitPre struct {
	pat      finder
	behavior splitBehavior
	invert   bool
}

func (sp splitPre) preTokenize(ps []piece) []piece {
	return splitPieces(ps, func(n *normStr) []*normStr {
		ms := segment(sp.pat.find(n.s), len(n.s))
		if sp.invert {
			ms = invertMatches(ms)
		}
		return n.split(ms, sp.behavior)
	})
}

// byteLevelPre is GPT-2's ByteLevel pre-tokenizer.
type byteLevelPre struct {
	addPrefixSpace, useRegex bool
	re                       finder
}

var gpt2Finder = &handFinder{kind: kindGPT2}

func (b byteLevelPre) preTokenize(ps []piece) []piece {
	ps = splitPieces(ps, func(n *normStr) []*normStr {
		if b.addPrefixSpace && !strings.HasPrefix(n.s, " ") {
			n.prepend(" ")
		}
		if b.useRegex {
			return n.split(segment(gpt2Finder.find(n.s), len(n.s)), splitIsolated)
		}
		return []*normStr{n}
	})
	for i := range ps {
		if !ps[i].done {
			toByteLevel(ps[i].n)
		}
	}
	return ps
}

// toByteLevel maps every byte to its printable byte-level char; a char's
// extra bytes are insertions sharing its alignment.
func toByteLevel(n *normStr) {
	var sb strings.Builder
	sb.Grow(2 * len(n.s))
	al := make([]span, 0, 2*len(n.s))
	for i := 0; i < len(n.s); {
		_, sz := utf8.DecodeRuneInString(n.s[i:])
		a := n.al[i]
		for j := 0; j < sz; j++ {
			c := bytesChar[n.s[i+j]]
			sb.WriteRune(c)
			w := 1
			if c >= 0x80 {
				w = 2
			}
			for k := 0; k < w; k++ {
				al = append(al, a)
			}
		}
		i += sz
	}
	n.s, n.al = sb.String(), al
}

// bytesChar is GPT-2's byte to printable char table; charBytes its inverse.
var bytesChar, charBytes = func() ([256]rune, map[rune]byte) {
	var bc [256]rune
	cb := map[rune]byte{}
	used := [256]bool{}
	for b := '!'; b <= '~'; b++ {
		used[b] = true
	}
	for b := 0xA1; b <= 0xAC; b++ {
		used[b] = true
	}
	for b := 0xAE; b <= 0xFF; b++ {
		used[b] = true
	}
	n := 0
	for b := 0; b < 256; b++ {
		if used[b] {
			bc[b] = rune(b)
		} else {
			bc[b] = rune(256 + n)
			n++
		}
		cb[bc[b]] = byte(b)
	}
	return bc, cb
}()

// whitespacePre is `\w+|[^\w\s]+` (Whitespace); whitespaceSplit splits on whitespace only.
type whitespacePre struct{ splitOnly bool }

func (w whitespacePre) preTokenize(ps []piece) []piece {
	return splitPieces(ps, func(n *normStr) []*normStr {
		if w.splitOnly {
			return n.split(charMatches(n.s, isWhitespace), splitRemoved)
		}
		var spans [][2]int
		rs, pos := decodeRunes(n.s)
		for i := 0; i < len(rs); {
			var j int
			switch {
			case isWordChar(rs[i]):
				j = runWhile(rs, i, isWordChar)
			case !isWhitespace(rs[i]):
				j = runWhile(rs, i, func(r rune) bool { return !isWordChar(r) && !isWhitespace(r) })
			default:
				i++
				continue
			}
			spans = append(spans, [2]int{pos[i], pos[j]})
			i = j
		}
		return n.split(invertMatches(segment(spans, len(n.s))), splitRemoved)
	})
}

// bertPre splits on whitespace (removed) then punctuation (isolated).
type bertPre struct{}

func (bertPre) preTokenize(ps []piece) []piece {
	ps = splitPieces(ps, func(n *normStr) []*normStr { return n.split(charMatches(n.s, isWhitespace), splitRemoved) })
	return splitPieces(ps, func(n *normStr) []*normStr { return n.split(charMatches(n.s, isBertPunc), splitIsolated) })
}

// punctPre splits on punctuation with a behaviour.
type punctPre struct{ behavior splitBehavior }

func (p punctPre) preTokenize(ps []piece) []piece {
	return splitPieces(ps, func(n *normStr) []*normStr { return n.split(charMatches(n.s, isBertPunc), p.behavior) })
}

// digitsPre splits digits, one by one or in runs.
type digitsPre struct{ individual bool }

func (d digitsPre) preTokenize(ps []piece) []piece {
	return splitPieces(ps, func(n *normStr) []*normStr {
		ms := charMatches(n.s, unicode.IsNumber)
		if d.individual {
			return n.split(ms, splitIsolated)
		}
		return n.split(ms, splitContiguous)
	})
}

// charDelimPre splits on one char (removed).
type charDelimPre struct{ c rune }

func (d charDelimPre) preTokenize(ps []piece) []piece {
	return splitPieces(ps, func(n *normStr) []*normStr {
		return n.split(charMatches(n.s, func(r rune) bool { return r == d.c }), splitRemoved)
	})
}

// metaspacePre replaces spaces by ▁, prepends one, and splits before each ▁.
type metaspacePre struct {
	replacement rune
	prepend     string // always, first, never
	split       bool
}

func (m metaspacePre) preTokenize(ps []piece) []piece {
	rep := string(m.replacement)
	return splitPieces(ps, func(n *normStr) []*normStr {
		var ms [][2]int
		for i := 0; i < len(n.s); i++ {
			if n.s[i] == ' ' {
				ms = append(ms, [2]int{i, i + 1})
			}
		}
		n.replaceMatches(ms, rep)
		if (m.prepend == "always" || (m.prepend == "first" && n.al[0].s == 0)) && !strings.HasPrefix(n.s, rep) {
			n.prepend(rep)
		}
		if m.split {
			return n.split(charMatches(n.s, func(r rune) bool { return r == m.replacement }), splitMergedWithNext)
		}
		return []*normStr{n}
	})
}

// seqPre runs pre-tokenizers in order.
type seqPre []PreTokenizer

func (q seqPre) preTokenize(ps []piece) []piece {
	for _, p := range q {
		ps = p.preTokenize(ps)
	}
	return ps
}
