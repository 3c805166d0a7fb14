package tokenizer

import (
	"fmt"
	"regexp"
	"strings"
)

// The byte-level BPE splitting patterns use a look-ahead (\s+(?!\S)) that
// Go's regexp (RE2) lacks. They are implemented here by hand, as the
// backtracking engine (Oniguruma) that Hugging Face uses evaluates them:
// alternatives tried in order, greedy quantifiers giving back characters.

// Known patterns, as they appear in tokenizer.json files.
const (
	patGPT2   = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
	patCL100K = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	patQwen   = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	patO200K  = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// finder returns the non-overlapping matches of a pattern, left to right.
type finder interface {
	find(s string) [][2]int
}

type patternKind int

const (
	kindGPT2 patternKind = iota
	kindCL100K
	kindO200K
)

// handFinder implements one of the known patterns.
type handFinder struct {
	kind      patternKind
	maxDigits int  // \p{N}{1,maxDigits} (GPT-2: unbounded)
	foldCase  bool // contractions are case-insensitive
}

// reFinder wraps Go's regexp for patterns RE2 can run.
type reFinder struct{ re *regexp.Regexp }

func (f reFinder) find(s string) [][2]int {
	idx := f.re.FindAllStringIndex(s, -1)
	out := make([][2]int, 0, len(idx))
	for _, m := range idx {
		if m[1] > m[0] {
			out = append(out, [2]int{m[0], m[1]})
		}
	}
	return out
}

// literalFinder matches a fixed string.
type literalFinder struct{ lit string }

func (f literalFinder) find(s string) [][2]int {
	if f.lit == "" {
		return nil
	}
	var out [][2]int
	for i := 0; ; {
		j := strings.Index(s[i:], f.lit)
		if j < 0 {
			return out
		}
		out = append(out, [2]int{i + j, i + j + len(f.lit)})
		i += j + len(f.lit)
	}
}

// newFinder compiles a Split/regex pattern: a known byte-level pattern by
// hand, anything else with Go's regexp.
func newFinder(pattern string) (finder, error) {
	switch pattern {
	case patGPT2:
		return &handFinder{kind: kindGPT2}, nil
	case patCL100K:
		return &handFinder{kind: kindCL100K, maxDigits: 3, foldCase: true}, nil
	case patQwen:
		return &handFinder{kind: kindCL100K, maxDigits: 1, foldCase: true}, nil
	case patO200K:
		return &handFinder{kind: kindO200K, maxDigits: 3, foldCase: true}, nil
	}
	re, err := regexp.Compile(onigToRE2(pattern))
	if err != nil {
		return nil, fmt.Errorf("regex %q: %w (only RE2 syntax and the GPT-2, cl100k, Qwen and o200k patterns are supported)", pattern, err)
	}
	return reFinder{re}, nil
}

// onigToRE2 rewrites the Perl classes \s \d \w (and negations) to the
// Unicode classes they are in Oniguruma (RE2's are ASCII-only): \s is
// White_Space, \d is Nd, \w is letters, marks, Nd and Pc.
func onigToRE2(p string) string {
	const (
		space = `\s\v\x{85}\p{Z}`
		word  = `\p{L}\p{M}\p{Nd}\p{Pc}`
	)
	var sb strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			e := p[i+1]
			i++
			rep := ""
			switch e {
			case 's':
				rep = space
			case 'd':
				rep = `\p{Nd}`
			case 'D':
				rep = `\P{Nd}`
			case 'w':
				rep = word
			case 'S':
				if !inClass {
					rep = "[^" + space + "]"
				}
			case 'W':
				if !inClass {
					rep = "[^" + word + "]"
				}
			}
			switch {
			case rep == "":
				sb.WriteByte('\\')
				sb.WriteByte(e)
			case inClass || e == 'd' || e == 'D' || e == 'S' || e == 'W':
				sb.WriteString(rep)
			default:
				sb.WriteString("[" + rep + "]")
			}
		case c == '[' && !inClass:
			inClass = true
			sb.WriteByte(c)
			// a ']' right after '[' or '[^' is a literal
			if i+1 < len(p) && p[i+1] == '^' {
				sb.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				sb.WriteByte(']')
				i++
			}
		case c == ']' && inClass:
			inClass = false
			sb.WriteByte(c)
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

// runes decodes s once: chars and their byte positions (pos has one extra entry, len(s)).
func decodeRunes(s string) ([]rune, []int) {
	rs := make([]rune, 0, len(s))
	pos := make([]int, 0, len(s)+1)
	for i, r := range s {
		rs = append(rs, r)
		pos = append(pos, i)
	}
	pos = append(pos, len(s))
	return rs, pos
}

func (f *handFinder) find(s string) [][2]int {
	rs, pos := decodeRunes(s)
	out := make([][2]int, 0, len(rs)/3+1)
	for i := 0; i < len(rs); {
		var e int
		switch f.kind {
		case kindGPT2:
			e = f.matchGPT2(rs, i)
		case kindCL100K:
			e = f.matchCL100K(rs, i)
		default:
			e = f.matchO200K(rs, i)
		}
		if e <= i {
			i++ // no match here: the char is left in a gap
			continue
		}
		out = append(out, [2]int{pos[i], pos[e]})
		i = e
	}
	return out
}

// contraction matches 's 't 're 've 'm 'll 'd at i; returns the end or -1.
func (f *handFinder) contraction(rs []rune, i int) int {
	if i >= len(rs) || rs[i] != '\'' || i+1 >= len(rs) {
		return -1
	}
	eq := func(r rune, c rune) bool {
		if r == c {
			return true
		}
		if !f.foldCase {
			return false
		}
		if r == c-32 { // ASCII upper
			return true
		}
		return c == 's' && r == 0x17F // LATIN SMALL LETTER LONG S folds to s
	}
	a := rs[i+1]
	switch {
	case eq(a, 's'), eq(a, 't'), eq(a, 'm'), eq(a, 'd'):
		return i + 2
	}
	if i+2 < len(rs) {
		b := rs[i+2]
		if (eq(a, 'r') && eq(b, 'e')) || (eq(a, 'v') && eq(b, 'e')) || (eq(a, 'l') && eq(b, 'l')) {
			return i + 3
		}
	}
	return -1
}

func runWhile(rs []rune, i int, f func(rune) bool) int {
	for i < len(rs) && f(rs[i]) {
		i++
	}
	return i
}

// spaceRun implements \s+(?!\S)|\s+ at i (i is whitespace).
func spaceRun(rs []rune, i int) int {
	j := runWhile(rs, i, isWhitespace)
	if j == i {
		return -1
	}
	if j == len(rs) || j-1 > i {
		if j == len(rs) {
			return j
		}
		return j - 1 // leave the last space to prefix the next word
	}
	return j // \s+ fallback: a single space before a non-space
}

func (f *handFinder) matchGPT2(rs []rune, i int) int {
	if e := f.contraction(rs, i); e > 0 {
		return e
	}
	k := i
	if rs[i] == ' ' && i+1 < len(rs) {
		k = i + 1
	}
	for _, class := range []func(rune) bool{isL, isN, isOther} {
		if k > i && class(rs[k]) {
			return runWhile(rs, k, class)
		}
		if class(rs[i]) {
			return runWhile(rs, i, class)
		}
	}
	return spaceRun(rs, i)
}

func notCRLFLN(r rune) bool { return r != '\r' && r != '\n' && !isL(r) && !isN(r) }
func isCRLF(r rune) bool    { return r == '\r' || r == '\n' }

// newlineRun implements \s*[\r\n]+ at i: the whitespace run up to its last \r or \n.
func newlineRun(rs []rune, i int) int {
	j := runWhile(rs, i, isWhitespace)
	for p := j - 1; p >= i; p-- {
		if isCRLF(rs[p]) {
			return p + 1
		}
	}
	return -1
}

// punctRun implements ` ?[^\s\p{L}\p{N}]+` followed by a greedy run of tail chars.
func punctRun(rs []rune, i int, tail func(rune) bool) int {
	k := -1
	if rs[i] == ' ' && i+1 < len(rs) && isOther(rs[i+1]) {
		k = i + 1
	} else if isOther(rs[i]) {
		k = i
	}
	if k < 0 {
		return -1
	}
	return runWhile(rs, runWhile(rs, k, isOther), tail)
}

func (f *handFinder) digits(rs []rune, i int) int {
	j := i
	for j < len(rs) && isN(rs[j]) && (f.maxDigits == 0 || j-i < f.maxDigits) {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

func (f *handFinder) matchCL100K(rs []rune, i int) int {
	if e := f.contraction(rs, i); e > 0 {
		return e
	}
	// [^\r\n\p{L}\p{N}]?\p{L}+
	if notCRLFLN(rs[i]) && i+1 < len(rs) && isL(rs[i+1]) {
		return runWhile(rs, i+1, isL)
	}
	if isL(rs[i]) {
		return runWhile(rs, i, isL)
	}
	if e := f.digits(rs, i); e > 0 {
		return e
	}
	if e := punctRun(rs, i, isCRLF); e > 0 {
		return e
	}
	if e := newlineRun(rs, i); e > 0 {
		return e
	}
	return spaceRun(rs, i)
}

// o200kA implements [\p{Lu}..\p{M}]*[\p{Ll}..\p{M}]+ from k (backtracking the
// first run until the second can match); -1 when it cannot match.
func o200kA(rs []rune, k int) int {
	u := runWhile(rs, k, isUpperish)
	if u < len(rs) && isLowerish(rs[u]) {
		return runWhile(rs, u, isLowerish)
	}
	for t := u - 1; t >= k; t-- {
		if isLowerish(rs[t]) {
			return t + 1
		}
	}
	return -1
}

// o200kB implements [\p{Lu}..\p{M}]+[\p{Ll}..\p{M}]* from k.
func o200kB(rs []rune, k int) int {
	u := runWhile(rs, k, isUpperish)
	if u == k {
		return -1
	}
	return runWhile(rs, u, isLowerish)
}

func (f *handFinder) matchO200K(rs []rune, i int) int {
	pre := notCRLFLN(rs[i]) && i+1 < len(rs)
	for _, word := range []func([]rune, int) int{o200kA, o200kB} {
		e := -1
		if pre {
			e = word(rs, i+1)
		}
		if e < 0 {
			e = word(rs, i)
		}
		if e > 0 {
			if c := f.contraction(rs, e); c > 0 {
				return c
			}
			return e
		}
	}
	if e := f.digits(rs, i); e > 0 {
		return e
	}
	if e := punctRun(rs, i, func(r rune) bool { return isCRLF(r) || r == '/' }); e > 0 {
		return e
	}
	if e := newlineRun(rs, i); e > 0 {
		return e
	}
	return spaceRun(rs, i)
}
