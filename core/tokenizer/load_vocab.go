package tokenizer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Load opens a tokenizer from a path: a tokenizer.json, a BERT-style
// vocab.txt, a character vocabulary (one char per line), or a folder holding
// tokenizer.json, GPT-2's encoder.json + vocab.bpe, or vocab.txt.
func Load(path string) (*Tokenizer, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	if st.IsDir() {
		has := func(f string) bool { _, err := os.Stat(filepath.Join(path, f)); return err == nil }
		switch {
		case has("tokenizer.json"):
			return FromFile(filepath.Join(path, "tokenizer.json"))
		case has("encoder.json") && has("vocab.bpe"):
			return FromGPT2Files(filepath.Join(path, "encoder.json"), filepath.Join(path, "vocab.bpe"))
		case has("vocab.txt"):
			return FromVocabFile(filepath.Join(path, "vocab.txt"))
		}
		return nil, fmt.Errorf("tokenizer %s: folder has no tokenizer.json, encoder.json + vocab.bpe, or vocab.txt", path)
	}
	if strings.HasSuffix(path, ".json") {
		return FromFile(path)
	}
	return FromVocabFile(path)
}

func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, strings.TrimRight(sc.Text(), " \t\r\n"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	return lines, nil
}

// FromVocabFile loads a vocabulary text file, one token per line (id = line
// number): a WordPiece vocab.txt (it has ## pieces or [UNK]) becomes a BERT
// tokenizer (FromWordPieceVocab), a list of single characters a character
// tokenizer (FromCharVocab).
func FromVocabFile(path string) (*Tokenizer, error) {
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("tokenizer %s: empty vocabulary", path)
	}
	chars := true
	for _, l := range lines {
		if strings.HasPrefix(l, "##") || l == "[UNK]" {
			return FromWordPieceVocab(lines, true), nil
		}
		if utf8.RuneCountInString(l) > 1 {
			chars = false
		}
	}
	if chars {
		return FromCharVocab(lines), nil
	}
	return FromWordPieceVocab(lines, true), nil
}

// FromWordPieceVocab builds BERT's tokenizer over a vocabulary (id = index):
// BertNormalizer (clean text, CJK chars split, accents stripped and
// lower-cased when lowercase is set), BertPreTokenizer, WordPiece with ##,
// [CLS] text [SEP], the WordPiece decoder, and the bracketed special tokens.
func FromWordPieceVocab(tokens []string, lowercase bool) *Tokenizer {
	ids := make(map[string]int, len(tokens))
	for i, t := range tokens {
		ids[t] = i
	}
	t := &Tokenizer{
		normalizer: bertNorm{cleanText: true, chinese: true, stripAccents: lowercase, lowercase: lowercase},
		pre:        bertPre{},
		model:      &WordPiece{vocab: newVocab(ids), unk: "[UNK]", prefix: "##", maxChars: 100},
		decoder:    wordPieceDec{prefix: "##", cleanup: true},
	}
	cls, ok1 := ids["[CLS]"]
	sep, ok2 := ids["[SEP]"]
	if ok1 && ok2 {
		t.post = bertProc{cls: "[CLS]", sep: "[SEP]", clsID: cls, sepID: sep}
	}
	var added []AddedToken
	for _, s := range []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"} {
		if id, ok := ids[s]; ok {
			added = append(added, AddedToken{ID: id, Content: s, Special: true})
		}
	}
	t.added = newAddedVocab(added, t.normalizer)
	return t
}

// FromCharVocab builds a character tokenizer (OCR dictionaries such as
// ppocr_keys_v1.txt): every char is a token, id = line index; chars not in
// the list map to an added "[UNK]" token with the next id.
func FromCharVocab(chars []string) *Tokenizer {
	ids := make(map[string]int, len(chars)+1)
	for i, c := range chars {
		if _, dup := ids[c]; !dup {
			ids[c] = i
		}
	}
	unk := "[UNK]"
	if _, ok := ids[unk]; !ok {
		ids[unk] = len(chars)
	}
	t := &Tokenizer{
		pre:     splitPre{pat: everyChar{}, behavior: splitIsolated},
		model:   &WordLevel{vocab: newVocab(ids), unk: unk},
		decoder: fuseDec{},
	}
	t.added = newAddedVocab(nil, nil)
	return t
}

// everyChar matches every char.
type everyChar struct{}

func (everyChar) find(s string) [][2]int {
	out := make([][2]int, 0, len(s))
	for i, r := range s {
		out = append(out, [2]int{i, i + utf8.RuneLen(r)})
	}
	return out
}

// FromGPT2Files builds GPT-2's tokenizer from encoder.json and vocab.bpe, as
// its tokenizer.json has it: ByteLevel pre-tokenizer (GPT-2 pattern, no
// prefix space), byte-level BPE, ByteLevel post-processor trimming offsets
// and decoder, <|endoftext|> special.
func FromGPT2Files(encoderJSON, vocabBPE string) (*Tokenizer, error) {
	b, err := os.ReadFile(encoderJSON)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	var ids map[string]int
	if err := json.Unmarshal(b, &ids); err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", encoderJSON, err)
	}
	lines, err := readLines(vocabBPE)
	if err != nil {
		return nil, err
	}
	var merges [][2]string
	for i, l := range lines {
		if strings.HasPrefix(l, "#version") || l == "" {
			continue
		}
		a, c, ok := strings.Cut(l, " ")
		if !ok || strings.Contains(c, " ") {
			return nil, fmt.Errorf("tokenizer %s:%d: want two tokens, got %q", vocabBPE, i+1, l)
		}
		merges = append(merges, [2]string{a, c})
	}
	m, err := newBPE(ids, merges, "")
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", vocabBPE, err)
	}
	t := &Tokenizer{
		pre:     byteLevelPre{useRegex: true},
		model:   m,
		post:    byteLevelProc{trim: true},
		decoder: byteLevelDec{},
	}
	var added []AddedToken
	if id, ok := ids["<|endoftext|>"]; ok {
		added = append(added, AddedToken{ID: id, Content: "<|endoftext|>", Special: true, Normalized: true})
	}
	t.added = newAddedVocab(added, nil)
	return t, nil
}
