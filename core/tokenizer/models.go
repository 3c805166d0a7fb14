package tokenizer

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// WordPiece is greedy longest-match-first subword tokenization (BERT).
type WordPiece struct {
	vocab
	unk      string
	prefix   string
	maxChars int
}

func (w *WordPiece) tokenize(s string) ([]token, error) {
	unk := func() ([]token, error) {
		id, ok := w.ids[w.unk]
		if !ok {
			return nil, fmt.Errorf("unk token %q is not in the vocabulary", w.unk)
		}
		return []token{{id: id, value: w.unk, s: 0, e: len(s)}}, nil
	}
	if utf8.RuneCountInString(s) > w.maxChars {
		return unk()
	}
	var out []token
	for start := 0; start < len(s); {
		end := len(s)
		found := false
		for start < end {
			sub := s[start:end]
			if start > 0 {
				sub = w.prefix + sub
			}
			if id, ok := w.ids[sub]; ok {
				out = append(out, token{id: id, value: sub, s: start, e: end})
				found = true
				break
			}
			_, sz := utf8.DecodeLastRuneInString(s[start:end])
			end -= sz
		}
		if !found {
			return unk()
		}
		start = end
	}
	return out, nil
}

// WordLevel maps whole words to ids (also used for character vocabularies).
type WordLevel struct {
	vocab
	unk string
}

func (w *WordLevel) tokenize(s string) ([]token, error) {
	if id, ok := w.ids[s]; ok {
		return []token{{id: id, value: s, s: 0, e: len(s)}}, nil
	}
	if id, ok := w.ids[w.unk]; ok {
		return []token{{id: id, value: w.unk, s: 0, e: len(s)}}, nil
	}
	return nil, fmt.Errorf("word %q is not in the vocabulary and there is no unk token", s)
}

// Unigram is SentencePiece's unigram model: the segmentation of highest
// total log-probability (Viterbi).
type Unigram struct {
	vocab
	scores       []float64
	unkID        int
	byteFallback bool
	fuseUnk      bool
	minScore     float64
	trie         map[string]bool // every prefix of every piece
	maxLen       int
}

func newUnigram(pieces []string, scores []float64, unkID int, byteFallback bool) (*Unigram, error) {
	ids := make(map[string]int, len(pieces))
	u := &Unigram{scores: scores, unkID: unkID, byteFallback: byteFallback, fuseUnk: true, trie: map[string]bool{}, minScore: math.Inf(1)}
	for i, p := range pieces {
		ids[p] = i
		if scores[i] < u.minScore {
			u.minScore = scores[i]
		}
		for j := 1; j <= len(p); j++ {
			u.trie[p[:j]] = true
		}
		if len(p) > u.maxLen {
			u.maxLen = len(p)
		}
	}
	if unkID < 0 || unkID >= len(pieces) {
		return nil, fmt.Errorf("unigram unk_id %d out of range [0,%d)", unkID, len(pieces))
	}
	u.vocab = newVocab(ids)
	return u, nil
}

func (u *Unigram) tokenize(s string) ([]token, error) {
	if s == "" {
		return nil, nil
	}
	const unkPenalty = 10.0
	unkScore := u.minScore - unkPenalty
	type node struct {
		score float64
		start int
		id    int
		ok    bool
	}
	best := make([]node, len(s)+1)
	best[0] = node{ok: true}
	for i := 0; i < len(s); {
		if !best[i].ok {
			_, sz := utf8.DecodeRuneInString(s[i:])
			i += sz
			continue
		}
		_, csz := utf8.DecodeRuneInString(s[i:])
		hasSingle := false
		for j := i + 1; j <= len(s) && j-i <= u.maxLen; j++ {
			p := s[i:j]
			if !u.trie[p] {
				break
			}
			if !utf8.RuneStart(s[j%len(s)]) && j < len(s) {
				continue
			}
			id, ok := u.ids[p]
			if !ok {
				continue
			}
			if j-i == csz {
				hasSingle = true
			}
			sc := best[i].score + u.scores[id]
			if !best[j].ok || sc > best[j].score {
				best[j] = node{sc, i, id, true}
			}
		}
		if !hasSingle {
			sc := best[i].score + unkScore
			if !best[i+csz].ok || sc > best[i+csz].score {
				best[i+csz] = node{sc, i, u.unkID, true}
			}
		}
		i += csz
	}
	var rev []token
	for e := len(s); e > 0; e = best[e].start {
		n := best[e]
		rev = append(rev, token{id: n.id, s: n.start, e: e})
	}
	out := make([]token, 0, len(rev))
	for i := len(rev) - 1; i >= 0; i-- {
		t := rev[i]
		if u.fuseUnk && t.id == u.unkID && len(out) > 0 && out[len(out)-1].id == u.unkID {
			out[len(out)-1].e = t.e
			continue
		}
		out = append(out, t)
	}
	res := make([]token, 0, len(out))
	for _, t := range out {
		if t.id == u.unkID && u.byteFallback {
			seg := s[t.s:t.e]
			all := true
			for k := 0; k < len(seg); k++ {
				if _, ok := u.ids[fmt.Sprintf("<0x%02X>", seg[k])]; !ok {
					all = false
				}
			}
			if all {
				for k := 0; k < len(seg); k++ {
					v := fmt.Sprintf("<0x%02X>", seg[k])
					res = append(res, token{id: u.ids[v], value: v, s: t.s + k, e: t.s + k + 1})
				}
				continue
			}
		}
		if t.id == u.unkID {
			t.value = s[t.s:t.e] // the library keeps the unknown text as the token string
		} else {
			t.value = u.toks[t.id]
		}
		res = append(res, t)
	}
	return res, nil
}
