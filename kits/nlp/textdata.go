package nlp

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"
	"unicode"

	"paddle/core/tokenizer"
)

// Example is one labelled text.
type Example struct {
	Text  string
	Label int // index into the label map; -1 when unknown (predict)
}

// LabelMap maps label names to class indices, in a fixed order.
type LabelMap struct {
	Names []string
	index map[string]int
}

// NewLabelMap returns a label map over names (in that order). Duplicate or
// empty names are an error.
func NewLabelMap(names []string) (*LabelMap, error) {
	m := &LabelMap{Names: append([]string(nil), names...), index: map[string]int{}}
	for i, n := range names {
		if n == "" {
			return nil, fmt.Errorf("label map: empty label at position %d", i)
		}
		if _, dup := m.index[n]; dup {
			return nil, fmt.Errorf("label map: label %q listed twice", n)
		}
		m.index[n] = i
	}
	return m, nil
}

// Index returns the class of name.
func (m *LabelMap) Index(name string) (int, bool) {
	i, ok := m.index[name]
	return i, ok
}

// ReadLabelFile reads one label name per line (PaddleNLP's label file;
// blank lines are skipped).
func ReadLabelFile(path string) (*LabelMap, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("label file: %w", err)
	}
	var names []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			names = append(names, l)
		}
	}
	m, err := NewLabelMap(names)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// ReadTSV reads `text<TAB>label` lines (PaddleNLP's train.txt / dev.txt
// layout). With labels nil, the label map is built from the labels in the
// file, sorted by name; otherwise a label the map lacks is an error naming
// the file and line. Blank lines are skipped.
func ReadTSV(path string, labels *LabelMap) ([]Example, *LabelMap, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read tsv: %w", err)
	}
	defer f.Close()
	var rows []rawExample
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		tab := strings.LastIndexByte(l, '\t')
		if tab < 0 {
			return nil, nil, fmt.Errorf("%s:%d: want text<TAB>label, found no tab", path, n)
		}
		lab := strings.TrimSpace(l[tab+1:])
		if lab == "" {
			return nil, nil, fmt.Errorf("%s:%d: empty label", path, n)
		}
		rows = append(rows, rawExample{l[:tab], lab, n})
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return labelRows(path, rows, labels)
}

// rawExample is a text and its label name, from line `line` of a file.
type rawExample struct {
	text, label string
	line        int
}

// labelRows maps the rows' label names to classes: with labels nil, over
// the file's labels sorted by name; otherwise a label the map lacks is an
// error naming path and the row's line.
func labelRows(path string, rows []rawExample, labels *LabelMap) ([]Example, *LabelMap, error) {
	var err error
	if labels == nil {
		seen := map[string]bool{}
		var names []string
		for _, r := range rows {
			if !seen[r.label] {
				seen[r.label] = true
				names = append(names, r.label)
			}
		}
		sort.Strings(names)
		if labels, err = NewLabelMap(names); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	out := make([]Example, len(rows))
	for i, r := range rows {
		c, ok := labels.Index(r.label)
		if !ok {
			return nil, nil, fmt.Errorf("%s:%d: label %q is not in the label map %v", path, r.line, r.label, labels.Names)
		}
		out[i] = Example{Text: r.text, Label: c}
	}
	return out, labels, nil
}

// Words splits text into lower-cased runs of letters and digits; every
// other non-space character is a word of its own.
func Words(text string) []string {
	var out []string
	start := -1
	for i, r := range text {
		alnum := unicode.IsLetter(r) || unicode.IsDigit(r)
		if alnum {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, strings.ToLower(text[start:i]))
			start = -1
		}
		if !unicode.IsSpace(r) {
			out = append(out, string(r))
		}
	}
	if start >= 0 {
		out = append(out, strings.ToLower(text[start:]))
	}
	return out
}

// TextEncoder turns a text into model ids; id PadID pads.
type TextEncoder interface {
	// Encode returns the ids of text's first maxLen tokens (0: all).
	Encode(text string, maxLen int) []int64
	// Size is the number of ids (the embedding table's rows).
	Size() int
}

// tokEncoder encodes with a core/tokenizer tokenizer, without special
// tokens; its ids are shifted up by one so that 0 stays the padding.
type tokEncoder struct{ tok *tokenizer.Tokenizer }

// Encode returns the tokenizer's ids + 1 (an encoding error gives no ids).
func (e *tokEncoder) Encode(text string, maxLen int) []int64 {
	enc, err := e.tok.Encode(text, false)
	if err != nil {
		return nil
	}
	ids := enc.IDs
	if maxLen > 0 && len(ids) > maxLen {
		ids = ids[:maxLen]
	}
	out := make([]int64, len(ids))
	for i, id := range ids {
		out[i] = int64(id) + 1
	}
	return out
}

// Size is the tokenizer's vocabulary size + 1.
func (e *tokEncoder) Size() int { return e.tok.VocabSize() + 1 }

// Word-vocabulary ids 0 and 1 are reserved.
const (
	PadID = 0 // padding
	UnkID = 1 // a word not in the vocabulary
)

// Segmenter splits a text into the units a vocabulary maps: words (Words)
// or characters. With characters, the text is lower-cased, each run of
// white space becomes one space, a space is put at both ends (so that
// n-grams see word boundaries, as fastText's < >), and every n-gram of
// 1..NGram characters is a unit, those starting at one position before
// the next position's (a local order the convolution or recurrent models
// can use).
type Segmenter struct {
	Unit  string // "word" (default) or "char"
	NGram int    // char n-grams from 1 to NGram (default 1)
}

// NewSegmenter checks unit and ngram (Global.unit, Global.ngram).
func NewSegmenter(unit string, ngram int) (Segmenter, error) {
	switch unit {
	case "", "word":
		if ngram > 1 {
			return Segmenter{}, fmt.Errorf("ngram %d needs unit: char", ngram)
		}
		return Segmenter{Unit: "word", NGram: 1}, nil
	case "char":
		if ngram < 0 || ngram > 8 {
			return Segmenter{}, fmt.Errorf("ngram %d: want 1..8", ngram)
		}
		return Segmenter{Unit: "char", NGram: max(ngram, 1)}, nil
	}
	return Segmenter{}, fmt.Errorf("unit %q: want word or char", unit)
}

// Split returns the units of text's first maxLen words or characters
// (0: all).
func (s Segmenter) Split(text string, maxLen int) []string {
	if s.Unit != "char" {
		ws := Words(text)
		if maxLen > 0 && len(ws) > maxLen {
			ws = ws[:maxLen]
		}
		return ws
	}
	rs := []rune{' '}
	space, cut := true, false
	for _, r := range strings.ToLower(text) {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			if !space {
				rs = append(rs, ' ')
			}
			space = true
			continue
		}
		space = false
		rs = append(rs, r)
		if maxLen > 0 && len(rs) > maxLen {
			cut = true
			break
		}
	}
	if !space && !cut {
		rs = append(rs, ' ')
	}
	n := max(s.NGram, 1)
	out := make([]string, 0, len(rs)*n)
	for i := range rs {
		for k := 1; k <= n && i+k <= len(rs); k++ {
			if k == 1 && rs[i] == ' ' && n > 1 {
				continue // a lone space says nothing n-grams do not
			}
			out = append(out, string(rs[i:i+k]))
		}
	}
	return out
}

// MaxUnits bounds len(Split(text, maxLen)) for any text.
func (s Segmenter) MaxUnits(maxLen int) int {
	if s.Unit != "char" {
		return maxLen
	}
	return (maxLen + 2) * max(s.NGram, 1)
}

// WordVocab maps units (words, or character n-grams with a char
// Segmenter) to ids: [PAD], [UNK], then units by falling count (ties by
// unit), so the same training texts always give the same ids.
type WordVocab struct {
	Words []string
	Seg   Segmenter
	ids   map[string]int
}

// BuildWordVocab keeps the words seen at least minFreq times, at most size
// entries in all (0: no limit).
func BuildWordVocab(texts []string, size, minFreq int) *WordVocab {
	return BuildVocab(texts, Segmenter{Unit: "word", NGram: 1}, size, minFreq)
}

// BuildVocab keeps the units of seg seen at least minFreq times, at most
// size entries in all (0: no limit).
func BuildVocab(texts []string, seg Segmenter, size, minFreq int) *WordVocab {
	count := map[string]int{}
	for _, t := range texts {
		for _, w := range seg.Split(t, 0) {
			count[w]++
		}
	}
	words := make([]string, 0, len(count))
	for w, c := range count {
		if c >= max(minFreq, 1) {
			words = append(words, w)
		}
	}
	sort.Slice(words, func(a, b int) bool {
		if count[words[a]] != count[words[b]] {
			return count[words[a]] > count[words[b]]
		}
		return words[a] < words[b]
	})
	if size > 2 && len(words) > size-2 {
		words = words[:size-2]
	}
	v := &WordVocab{Words: append([]string{"[PAD]", "[UNK]"}, words...), Seg: seg, ids: map[string]int{}}
	for i, w := range v.Words {
		v.ids[w] = i
	}
	return v
}

// Size is the number of entries.
func (v *WordVocab) Size() int { return len(v.Words) }

// Encode returns the ids of the units of text's first maxLen words or
// characters (0: all).
func (v *WordVocab) Encode(text string, maxLen int) []int64 {
	ws := v.Seg.Split(text, maxLen)
	ids := make([]int64, len(ws))
	for i, w := range ws {
		id, ok := v.ids[w]
		if !ok {
			id = UnkID
		}
		ids[i] = int64(id)
	}
	return ids
}

// ReadWordVocab reads a vocabulary written one unit a line (vocab.txt of a
// training run: [PAD], [UNK], then the units; a unit may hold spaces, so
// lines are not trimmed) for the segmenter seg.
func ReadWordVocab(path string, seg Segmenter) (*WordVocab, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("word vocab: %w", err)
	}
	words := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(words) < 2 || words[PadID] != "[PAD]" || words[UnkID] != "[UNK]" {
		return nil, fmt.Errorf("%s: want [PAD] and [UNK] on the first two lines", path)
	}
	v := &WordVocab{Words: words, Seg: seg, ids: map[string]int{}}
	for i, w := range words {
		if _, dup := v.ids[w]; dup {
			return nil, fmt.Errorf("%s:%d: word %q listed twice", path, i+1, w)
		}
		v.ids[w] = i
	}
	return v, nil
}
