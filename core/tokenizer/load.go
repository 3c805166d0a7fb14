package tokenizer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// FromFile loads a Hugging Face tokenizer.json.
func FromFile(path string) (*Tokenizer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := FromJSON(b)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", path, err)
	}
	return t, nil
}

type jsonObj = map[string]json.RawMessage

type fileJSON struct {
	AddedTokens []struct {
		ID         int    `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		LStrip     bool   `json:"lstrip"`
		RStrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
		Special    bool   `json:"special"`
	} `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Decoder       json.RawMessage `json:"decoder"`
	Model         json.RawMessage `json:"model"`
	Truncation    *struct {
		MaxLength int    `json:"max_length"`
		Direction string `json:"direction"`
		Strategy  string `json:"strategy"`
	} `json:"truncation"`
	Padding *struct {
		Strategy        json.RawMessage `json:"strategy"`
		Direction       string          `json:"direction"`
		PadToMultipleOf *int            `json:"pad_to_multiple_of"`
		PadID           int             `json:"pad_id"`
		PadTypeID       int             `json:"pad_type_id"`
		PadToken        string          `json:"pad_token"`
	} `json:"padding"`
}

// FromJSON builds a tokenizer from the contents of a tokenizer.json.
func FromJSON(b []byte) (*Tokenizer, error) {
	var f fileJSON
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	t := &Tokenizer{}
	var err error
	if t.normalizer, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, fmt.Errorf("normalizer: %w", err)
	}
	if t.pre, err = parsePre(f.PreTokenizer); err != nil {
		return nil, fmt.Errorf("pre_tokenizer: %w", err)
	}
	if t.model, err = parseModel(f.Model); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if t.post, err = parsePost(f.PostProcessor); err != nil {
		return nil, fmt.Errorf("post_processor: %w", err)
	}
	if t.decoder, err = parseDecoder(f.Decoder); err != nil {
		return nil, fmt.Errorf("decoder: %w", err)
	}
	var toks []AddedToken
	for _, a := range f.AddedTokens {
		toks = append(toks, AddedToken{ID: a.ID, Content: a.Content, Special: a.Special, SingleWord: a.SingleWord,
			LStrip: a.LStrip, RStrip: a.RStrip, Normalized: a.Normalized})
	}
	t.added = newAddedVocab(toks, t.normalizer)
	if f.Truncation != nil {
		t.Truncation = &Truncation{MaxLength: f.Truncation.MaxLength, Left: f.Truncation.Direction == "Left", Strategy: f.Truncation.Strategy}
	}
	if p := f.Padding; p != nil {
		t.Padding = &Padding{PadID: p.PadID, PadTypeID: p.PadTypeID, PadToken: p.PadToken, Left: p.Direction == "Left"}
		if p.PadToMultipleOf != nil {
			t.Padding.PadToMultipleOf = *p.PadToMultipleOf
		}
		var fixed struct {
			Fixed int `json:"Fixed"`
		}
		if json.Unmarshal(p.Strategy, &fixed) == nil {
			t.Padding.Length = fixed.Fixed
		}
	}
	return t, nil
}

func isNull(r json.RawMessage) bool {
	return len(r) == 0 || bytes.Equal(bytes.TrimSpace(r), []byte("null"))
}

func typeOf(r json.RawMessage) (string, jsonObj, error) {
	var o jsonObj
	if err := json.Unmarshal(r, &o); err != nil {
		return "", nil, err
	}
	var ty string
	if err := json.Unmarshal(o["type"], &ty); err != nil {
		return "", nil, fmt.Errorf("missing type")
	}
	return ty, o, nil
}

func get[T any](o jsonObj, key string, def T) T {
	v := def
	if r, ok := o[key]; ok && !isNull(r) {
		if err := json.Unmarshal(r, &v); err != nil {
			return def
		}
	}
	return v
}

// parsePattern reads {"String": s} or {"Regex": r}.
func parsePattern(r json.RawMessage) (finder, error) {
	var p struct {
		String *string
		Regex  *string
	}
	if err := json.Unmarshal(r, &p); err != nil {
		return nil, err
	}
	switch {
	case p.String != nil:
		return literalFinder{*p.String}, nil
	case p.Regex != nil:
		return newFinder(*p.Regex)
	}
	return nil, fmt.Errorf("pattern needs String or Regex")
}

// parseSequence parses the list of a "Sequence" component with parse, in
// order, leaving out null entries; errors name the entry.
func parseSequence[T any](raw json.RawMessage, parse func(json.RawMessage) (T, error)) ([]T, error) {
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("Sequence: %w", err)
	}
	var q []T
	for i, x := range list {
		p, err := parse(x)
		if err != nil {
			return nil, fmt.Errorf("Sequence[%d]: %w", i, err)
		}
		if any(p) != nil {
			q = append(q, p)
		}
	}
	return q, nil
}

func parseNormalizer(r json.RawMessage) (Normalizer, error) {
	if isNull(r) {
		return nil, nil
	}
	ty, o, err := typeOf(r)
	if err != nil {
		return nil, err
	}
	switch ty {
	case "NFC":
		return unicodeNorm{norm.NFC}, nil
	case "NFD":
		return unicodeNorm{norm.NFD}, nil
	case "NFKC":
		return unicodeNorm{norm.NFKC}, nil
	case "NFKD":
		return unicodeNorm{norm.NFKD}, nil
	case "Lowercase":
		return lowercaseNorm{}, nil
	case "ByteLevel":
		return byteLevelNorm{}, nil
	case "StripAccents":
		return stripAccentsNorm{}, nil
	case "Strip":
		return stripNorm{get(o, "strip_left", true), get(o, "strip_right", true)}, nil
	case "Prepend":
		return prependNorm{get(o, "prepend", "")}, nil
	case "Replace":
		p, err := parsePattern(o["pattern"])
		if err != nil {
			return nil, fmt.Errorf("Replace: %w", err)
		}
		return replaceNorm{p, get(o, "content", "")}, nil
	case "BertNormalizer":
		lower := get(o, "lowercase", true)
		return bertNorm{get(o, "clean_text", true), get(o, "handle_chinese_chars", true), get(o, "strip_accents", lower), lower}, nil
	case "Sequence":
		q, err := parseSequence(o["normalizers"], parseNormalizer)
		if err != nil {
			return nil, err
		}
		return seqNorm(q), nil
	}
	return nil, fmt.Errorf("unsupported normalizer type %q (supported: NFC NFD NFKC NFKD Lowercase ByteLevel StripAccents Strip Prepend Replace BertNormalizer Sequence)", ty)
}

func parseBehavior(s string) (splitBehavior, error) {
	switch s {
	case "Removed":
		return splitRemoved, nil
	case "Isolated":
		return splitIsolated, nil
	case "MergedWithPrevious":
		return splitMergedWithPrevious, nil
	case "MergedWithNext":
		return splitMergedWithNext, nil
	case "Contiguous":
		return splitContiguous, nil
	}
	return 0, fmt.Errorf("unknown split behavior %q", s)
}

func parsePre(r json.RawMessage) (PreTokenizer, error) {
	if isNull(r) {
		return nil, nil
	}
	ty, o, err := typeOf(r)
	if err != nil {
		return nil, err
	}
	switch ty {
	case "ByteLevel":
		return byteLevelPre{addPrefixSpace: get(o, "add_prefix_space", true), useRegex: get(o, "use_regex", true)}, nil
	case "Split":
		p, err := parsePattern(o["pattern"])
		if err != nil {
			return nil, fmt.Errorf("Split: %w", err)
		}
		b, err := parseBehavior(get(o, "behavior", "Removed"))
		if err != nil {
			return nil, fmt.Errorf("Split: %w", err)
		}
		return splitPre{p, b, get(o, "invert", false)}, nil
	case "Whitespace":
		return whitespacePre{}, nil
	case "WhitespaceSplit":
		return whitespacePre{splitOnly: true}, nil
	case "BertPreTokenizer":
		return bertPre{}, nil
	case "Punctuation":
		b, err := parseBehavior(get(o, "behavior", "Isolated"))
		if err != nil {
			return nil, err
		}
		return punctPre{b}, nil
	case "Digits":
		return digitsPre{get(o, "individual_digits", false)}, nil
	case "CharDelimiterSplit":
		d := []rune(get(o, "delimiter", " "))
		if len(d) != 1 {
			return nil, fmt.Errorf("CharDelimiterSplit: delimiter must be one char")
		}
		return charDelimPre{d[0]}, nil
	case "Metaspace":
		rep := []rune(get(o, "replacement", "▁"))
		if len(rep) != 1 {
			return nil, fmt.Errorf("Metaspace: replacement must be one char")
		}
		scheme := get(o, "prepend_scheme", "")
		if scheme == "" {
			scheme = "never"
			if get(o, "add_prefix_space", true) {
				scheme = "always"
			}
		}
		return metaspacePre{rep[0], scheme, get(o, "split", true)}, nil
	case "Sequence":
		q, err := parseSequence(o["pretokenizers"], parsePre)
		if err != nil {
			return nil, err
		}
		return seqPre(q), nil
	}
	return nil, fmt.Errorf("unsupported pre-tokenizer type %q (supported: ByteLevel Split Whitespace WhitespaceSplit BertPreTokenizer Punctuation Digits CharDelimiterSplit Metaspace Sequence)", ty)
}

func parseModel(r json.RawMessage) (Model, error) {
	if isNull(r) {
		return nil, fmt.Errorf("missing model")
	}
	var o jsonObj
	if err := json.Unmarshal(r, &o); err != nil {
		return nil, err
	}
	ty := get(o, "type", "")
	if ty == "" { // old files: guess from the fields
		switch {
		case o["merges"] != nil:
			ty = "BPE"
		case o["continuing_subword_prefix"] != nil:
			ty = "WordPiece"
		case o["unk_id"] != nil:
			ty = "Unigram"
		default:
			ty = "WordLevel"
		}
	}
	switch ty {
	case "BPE":
		var ids map[string]int
		if err := json.Unmarshal(o["vocab"], &ids); err != nil {
			return nil, fmt.Errorf("BPE vocab: %w", err)
		}
		var raw []json.RawMessage
		if err := json.Unmarshal(o["merges"], &raw); err != nil {
			return nil, fmt.Errorf("BPE merges: %w", err)
		}
		merges := make([][2]string, len(raw))
		for i, m := range raw {
			if len(m) > 0 && m[0] == '"' {
				var s string
				if err := json.Unmarshal(m, &s); err != nil {
					return nil, fmt.Errorf("BPE merge %d: %w", i, err)
				}
				a, b, ok := strings.Cut(s, " ")
				if !ok || strings.Contains(b, " ") {
					return nil, fmt.Errorf("BPE merge %d %q: want two tokens", i, s)
				}
				merges[i] = [2]string{a, b}
			} else if err := json.Unmarshal(m, &merges[i]); err != nil {
				return nil, fmt.Errorf("BPE merge %d: %w", i, err)
			}
		}
		if get[*float64](o, "dropout", nil) != nil && *get[*float64](o, "dropout", nil) > 0 {
			return nil, fmt.Errorf("BPE dropout is not supported (encoding would be random)")
		}
		b, err := newBPE(ids, merges, get(o, "continuing_subword_prefix", ""))
		if err != nil {
			return nil, fmt.Errorf("BPE: %w", err)
		}
		b.unk = get(o, "unk_token", "")
		b.suffix = get(o, "end_of_word_suffix", "")
		b.fuseUnk = get(o, "fuse_unk", false)
		b.byteFallback = get(o, "byte_fallback", false)
		b.ignoreMerges = get(o, "ignore_merges", false)
		return b, nil
	case "WordPiece":
		var ids map[string]int
		if err := json.Unmarshal(o["vocab"], &ids); err != nil {
			return nil, fmt.Errorf("WordPiece vocab: %w", err)
		}
		return &WordPiece{vocab: newVocab(ids), unk: get(o, "unk_token", "[UNK]"),
			prefix: get(o, "continuing_subword_prefix", "##"), maxChars: get(o, "max_input_chars_per_word", 100)}, nil
	case "WordLevel":
		var ids map[string]int
		if err := json.Unmarshal(o["vocab"], &ids); err != nil {
			return nil, fmt.Errorf("WordLevel vocab: %w", err)
		}
		return &WordLevel{vocab: newVocab(ids), unk: get(o, "unk_token", "")}, nil
	case "Unigram":
		var vs [][2]json.RawMessage
		if err := json.Unmarshal(o["vocab"], &vs); err != nil {
			return nil, fmt.Errorf("Unigram vocab: %w", err)
		}
		pieces := make([]string, len(vs))
		scores := make([]float64, len(vs))
		for i, v := range vs {
			if json.Unmarshal(v[0], &pieces[i]) != nil {
				return nil, fmt.Errorf("Unigram vocab entry %d: want [piece, score]", i)
			}
			var err error
			if scores[i], err = parseSerdeFloat(string(bytes.TrimSpace(v[1]))); err != nil {
				return nil, fmt.Errorf("Unigram vocab entry %d: %w", i, err)
			}
		}
		return newUnigram(pieces, scores, get(o, "unk_id", 0), get(o, "byte_fallback", false))
	}
	return nil, fmt.Errorf("unsupported model type %q (supported: BPE WordPiece WordLevel Unigram)", ty)
}
