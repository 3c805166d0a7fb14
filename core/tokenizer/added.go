package tokenizer

import (
	"unicode/utf8"
)

// AddedToken is a token matched in the raw text before pre-tokenization
// (special tokens like <|endoftext|>, or user-added words).
type AddedToken struct {
	ID         int
	Content    string
	Special    bool
	SingleWord bool
	LStrip     bool
	RStrip     bool
	Normalized bool
}

// trieNode is a byte trie for leftmost-longest matching.
type trieNode struct {
	next map[byte]*trieNode
	tok  int // index into addedVocab.tokens, -1 if none
}

func (t *trieNode) insert(s string, v int) {
	n := t
	for i := 0; i < len(s); i++ {
		c := n.next[s[i]]
		if c == nil {
			c = &trieNode{next: map[byte]*trieNode{}, tok: -1}
			n.next[s[i]] = c
		}
		n = c
	}
	n.tok = v
}

// addedVocab holds the added tokens and their two matchers (on original and on normalized text).
type addedVocab struct {
	tokens  []AddedToken
	byID    map[int]int
	byText  map[string]int
	raw     *trieNode
	normed  *trieNode
	special map[string]bool
}

func newAddedVocab(toks []AddedToken, nz Normalizer) *addedVocab {
	a := &addedVocab{byID: map[int]int{}, byText: map[string]int{}, special: map[string]bool{}}
	for _, t := range toks {
		if t.Content == "" {
			continue
		}
		i := len(a.tokens)
		a.tokens = append(a.tokens, t)
		a.byID[t.ID] = i
		a.byText[t.Content] = i
		if t.Special {
			a.special[t.Content] = true
		}
		pat := t.Content
		root := &a.raw
		if t.Normalized {
			root = &a.normed
			if nz != nil {
				n := newNormStr(pat, 0)
				nz.normalize(n)
				pat = n.s
			}
		}
		if *root == nil {
			*root = &trieNode{next: map[byte]*trieNode{}, tok: -1}
		}
		(*root).insert(pat, i)
	}
	return a
}

func endsWithWord(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return s != "" && isWordChar(r)
}

func startsWithWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return s != "" && isWordChar(r)
}

// find returns the added-token matches in s: ranges and token indexes, leftmost-longest.
func (a *addedVocab) find(s string, root *trieNode) (out [][3]int) {
	if root == nil {
		return nil
	}
	startOff := 0
	for i := 0; i < len(s); {
		n, best, bestEnd := root, -1, 0
		for j := i; j < len(s); j++ {
			n = n.next[s[j]]
			if n == nil {
				break
			}
			if n.tok >= 0 {
				best, bestEnd = n.tok, j+1
			}
		}
		if best < 0 {
			i++
			continue
		}
		t := a.tokens[best]
		start, stop := i, bestEnd
		if t.SingleWord {
			startSpace := start == 0 || !endsWithWord(s[:start])
			stopSpace := stop == len(s) || !startsWithWord(s[stop:])
			if !startSpace || !stopSpace {
				i = bestEnd // the matcher resumes after a discarded match, as HF's does
				continue
			}
		}
		if t.LStrip {
			ns := start
			for ns > 0 {
				r, sz := utf8.DecodeLastRuneInString(s[:ns])
				if !isWhitespace(r) {
					break
				}
				ns -= sz
			}
			start = max(ns, startOff)
		}
		if t.RStrip {
			for stop < len(s) {
				r, sz := utf8.DecodeRuneInString(s[stop:])
				if !isWhitespace(r) {
					break
				}
				stop += sz
			}
		}
		out = append(out, [3]int{start, stop, best})
		startOff = stop
		i = max(stop, bestEnd)
	}
	return out
}

// extract splits text into added tokens and normalized pieces.
func (a *addedVocab) extract(text string, nz Normalizer) []piece {
	ps := a.splitWith([]piece{{n: newNormStr(text, 0)}}, a.raw)
	for i := range ps {
		if !ps[i].done && nz != nil {
			nz.normalize(ps[i].n)
		}
	}
	return a.splitWith(ps, a.normed)
}

func (a *addedVocab) splitWith(ps []piece, root *trieNode) []piece {
	out := make([]piece, 0, len(ps))
	for _, p := range ps {
		if p.done {
			out = append(out, p)
			continue
		}
		if root == nil {
			if len(p.n.s) > 0 {
				out = append(out, p)
			}
			continue
		}
		last := 0
		for _, m := range a.find(p.n.s, root) {
			if m[0] > last {
				out = append(out, piece{n: p.n.slice(last, m[0])})
			}
			sl := p.n.slice(m[0], m[1])
			t := a.tokens[m[2]]
			out = append(out, piece{n: sl, done: true, tokens: []token{{id: t.ID, value: sl.s, s: 0, e: len(sl.s)}}})
			last = m[1]
		}
		if last < len(p.n.s) {
			out = append(out, piece{n: p.n.slice(last, len(p.n.s))})
		}
	}
	return out
}
