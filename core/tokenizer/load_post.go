package tokenizer

import (
	"encoding/json"
	"fmt"
)

// Post-processors and decoders of tokenizer.json.

func parsePost(r json.RawMessage) (PostProcessor, error) {
	if isNull(r) {
		return nil, nil
	}
	ty, o, err := typeOf(r)
	if err != nil {
		return nil, err
	}
	switch ty {
	case "ByteLevel":
		return byteLevelProc{trim: get(o, "trim_offsets", true), addPrefixSpace: get(o, "add_prefix_space", true)}, nil
	case "BertProcessing", "RobertaProcessing":
		var sep, cls struct {
			tok string
			id  int
		}
		var sepRaw, clsRaw [2]json.RawMessage
		if json.Unmarshal(o["sep"], &sepRaw) != nil || json.Unmarshal(o["cls"], &clsRaw) != nil ||
			json.Unmarshal(sepRaw[0], &sep.tok) != nil || json.Unmarshal(sepRaw[1], &sep.id) != nil ||
			json.Unmarshal(clsRaw[0], &cls.tok) != nil || json.Unmarshal(clsRaw[1], &cls.id) != nil {
			return nil, fmt.Errorf("%s: sep and cls must be [token, id]", ty)
		}
		return bertProc{cls: cls.tok, sep: sep.tok, clsID: cls.id, sepID: sep.id, roberta: ty == "RobertaProcessing",
			trim: get(o, "trim_offsets", true), addPrefixSpace: get(o, "add_prefix_space", true)}, nil
	case "TemplateProcessing":
		var single []map[string]struct {
			ID     string `json:"id"`
			TypeID int    `json:"type_id"`
		}
		if err := json.Unmarshal(o["single"], &single); err != nil {
			return nil, fmt.Errorf("TemplateProcessing single: %w", err)
		}
		var specials map[string]struct {
			IDs    []int    `json:"ids"`
			Tokens []string `json:"tokens"`
		}
		if err := json.Unmarshal(o["special_tokens"], &specials); err != nil {
			return nil, fmt.Errorf("TemplateProcessing special_tokens: %w", err)
		}
		tp := &templateProc{special: map[string]struct {
			ids  []int
			toks []string
		}{}}
		for k, v := range specials {
			if len(v.IDs) != len(v.Tokens) {
				return nil, fmt.Errorf("TemplateProcessing special token %q: ids and tokens differ in length", k)
			}
			tp.special[k] = struct {
				ids  []int
				toks []string
			}{v.IDs, v.Tokens}
		}
		var err error
		if tp.single, err = parseTemplate(single, tp); err != nil {
			return nil, err
		}
		if r, ok := o["pair"]; ok && !isNull(r) {
			var pair []map[string]struct {
				ID     string `json:"id"`
				TypeID int    `json:"type_id"`
			}
			if err := json.Unmarshal(r, &pair); err != nil {
				return nil, fmt.Errorf("TemplateProcessing pair: %w", err)
			}
			if tp.pair, err = parseTemplate(pair, tp); err != nil {
				return nil, err
			}
		}
		return tp, nil
	case "Sequence":
		q, err := parseSequence(o["processors"], parsePost)
		if err != nil {
			return nil, err
		}
		return seqProc(q), nil
	}
	return nil, fmt.Errorf("unsupported post-processor type %q (supported: ByteLevel BertProcessing RobertaProcessing TemplateProcessing Sequence)", ty)
}

func parseDecoder(r json.RawMessage) (Decoder, error) {
	if isNull(r) {
		return nil, nil
	}
	ty, o, err := typeOf(r)
	if err != nil {
		return nil, err
	}
	switch ty {
	case "ByteLevel":
		return byteLevelDec{}, nil
	case "ByteFallback":
		return byteFallbackDec{}, nil
	case "Fuse":
		return fuseDec{}, nil
	case "Strip":
		c := []rune(get(o, "content", " "))
		if len(c) != 1 {
			return nil, fmt.Errorf("Strip: content must be one char")
		}
		return stripDec{c[0], get(o, "start", 0), get(o, "stop", 0)}, nil
	case "Replace":
		var p struct{ String *string }
		if json.Unmarshal(o["pattern"], &p) != nil || p.String == nil {
			return nil, fmt.Errorf("Replace decoder: only String patterns are supported")
		}
		return replaceDec{*p.String, get(o, "content", "")}, nil
	case "Metaspace":
		rep := []rune(get(o, "replacement", "▁"))
		if len(rep) != 1 {
			return nil, fmt.Errorf("Metaspace: replacement must be one char")
		}
		scheme := get(o, "prepend_scheme", "")
		prepend := scheme != "never"
		if scheme == "" {
			prepend = get(o, "add_prefix_space", true)
		}
		return metaspaceDec{rep[0], prepend}, nil
	case "WordPiece":
		return wordPieceDec{get(o, "prefix", "##"), get(o, "cleanup", true)}, nil
	case "BPEDecoder":
		return bpeDec{get(o, "suffix", "</w>")}, nil
	case "Sequence":
		q, err := parseSequence(o["decoders"], parseDecoder)
		if err != nil {
			return nil, err
		}
		return seqDec(q), nil
	}
	return nil, fmt.Errorf("unsupported decoder type %q (supported: ByteLevel ByteFallback Fuse Strip Replace Metaspace WordPiece BPEDecoder Sequence)", ty)
}

func parseTemplate(items []map[string]struct {
	ID     string `json:"id"`
	TypeID int    `json:"type_id"`
}, tp *templateProc) ([]templatePiece, error) {
	var out []templatePiece
	for _, item := range items {
		if s, ok := item["SpecialToken"]; ok {
			if _, ok := tp.special[s.ID]; !ok {
				return nil, fmt.Errorf("TemplateProcessing: special token %q not in special_tokens", s.ID)
			}
			out = append(out, templatePiece{special: s.ID, typeID: s.TypeID})
		} else if s, ok := item["Sequence"]; ok {
			seq := 0
			if s.ID == "B" {
				seq = 1
			}
			out = append(out, templatePiece{seq: seq, typeID: s.TypeID})
		}
	}
	return out, nil
}
