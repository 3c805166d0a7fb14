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

// ReadTSV reads `text<TAB>label` lines. With labels nil, the label map is
// built from the labels in the file, sorted by name; otherwise a label the
// map lacks is an error naming the file and line. Blank lines are skipped.
func ReadTSV(path string, labels *LabelMap) ([]Example, *LabelMap, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read tsv: %w", err)
	}
	defer f.Close()
	type raw struct {
		text, label string
		line        int
	}
	var rows []raw
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
		rows = append(rows, raw{l[:tab], lab, n})
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
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

// WordVocab maps words to ids: [PAD], [UNK], then words by falling count
// (ties by word), so the same training texts always give the same ids.
type WordVocab struct {
	Words []string
	ids   map[string]int
}

// BuildWordVocab keeps the words seen at least minFreq times, at most size
// entries in all (0: no limit).
func BuildWordVocab(texts []string, size, minFreq int) *WordVocab {
	count := map[string]int{}
	for _, t := range texts {
		for _, w := range Words(t) {
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
	v := &WordVocab{Words: append([]string{"[PAD]", "[UNK]"}, words...), ids: map[string]int{}}
	for i, w := range v.Words {
		v.ids[w] = i
	}
	return v
}

// Size is the number of entries.
func (v *WordVocab) Size() int { return len(v.Words) }

// Encode returns the ids of text's first maxLen words (0: all).
func (v *WordVocab) Encode(text string, maxLen int) []int64 {
	ws := Words(text)
	if maxLen > 0 && len(ws) > maxLen {
		ws = ws[:maxLen]
	}
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

// ReadWordVocab reads a vocabulary written one word a line (vocab.txt of a
// training run: [PAD], [UNK], then the words).
func ReadWordVocab(path string) (*WordVocab, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("word vocab: %w", err)
	}
	words := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(words) < 2 || words[PadID] != "[PAD]" || words[UnkID] != "[UNK]" {
		return nil, fmt.Errorf("%s: want [PAD] and [UNK] on the first two lines", path)
	}
	v := &WordVocab{Words: words, ids: map[string]int{}}
	for i, w := range words {
		if _, dup := v.ids[w]; dup {
			return nil, fmt.Errorf("%s:%d: word %q listed twice", path, i+1, w)
		}
		v.ids[w] = i
	}
	return v, nil
}
