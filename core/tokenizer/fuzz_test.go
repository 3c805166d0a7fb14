package tokenizer

import (
	"strings"
	"testing"
)

// tokenizerSeeds are small tokenizer.json files, one per model type, with the
// normalizers, pre-tokenizers, post-processors and decoders around them.
var tokenizerSeeds = []string{
	`{"normalizer":{"type":"BertNormalizer","lowercase":true,"strip_accents":null,"clean_text":true,"handle_chinese_chars":true},
	 "pre_tokenizer":{"type":"BertPreTokenizer"},
	 "model":{"type":"WordPiece","unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":100,
	   "vocab":{"[PAD]":0,"[UNK]":1,"[CLS]":2,"[SEP]":3,"hello":4,"world":5,"##s":6,"un":7,"##aff":8,"##able":9}},
	 "post_processor":{"type":"BertProcessing","sep":["[SEP]",3],"cls":["[CLS]",2]},
	 "decoder":{"type":"WordPiece","prefix":"##","cleanup":true},
	 "added_tokens":[{"id":0,"content":"[PAD]","special":true},{"id":2,"content":"[CLS]","special":true,"lstrip":true}],
	 "truncation":{"max_length":8,"strategy":"LongestFirst","direction":"Right"},
	 "padding":{"strategy":{"Fixed":12},"direction":"Left","pad_id":0,"pad_type_id":0,"pad_token":"[PAD]","pad_to_multiple_of":4}}`,
	`{"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"use_regex":true},
	 "model":{"type":"BPE","vocab":{"h":0,"e":1,"l":2,"o":3,"he":4,"ll":5,"hell":6,"Ġ":7,"w":8},"merges":["h e","l l","he ll"],"byte_fallback":false},
	 "post_processor":{"type":"ByteLevel","trim_offsets":true},
	 "decoder":{"type":"ByteLevel"}}`,
	`{"normalizer":{"type":"Sequence","normalizers":[{"type":"NFKC"},{"type":"Replace","pattern":{"String":" "},"content":"▁"},{"type":"Prepend","prepend":"▁"}]},
	 "pre_tokenizer":{"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true},
	 "model":{"type":"Unigram","unk_id":0,"vocab":[["<unk>",0],["▁",-1.5],["▁he",-2.0],["llo",-2.5],["l",-3],["o",-3],["h",-4],["e",-4]],"byte_fallback":true},
	 "post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],
	   "pair":[{"Sequence":{"id":"A","type_id":0}},{"Sequence":{"id":"B","type_id":1}}],"special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]}}},
	 "decoder":{"type":"Sequence","decoders":[{"type":"Replace","pattern":{"String":"▁"},"content":" "},{"type":"ByteFallback"},{"type":"Fuse"},{"type":"Strip","content":" ","start":1,"stop":0}]}}`,
	`{"normalizer":{"type":"Lowercase"},
	 "pre_tokenizer":{"type":"Sequence","pretokenizers":[{"type":"WhitespaceSplit"},{"type":"Punctuation","behavior":"Isolated"},{"type":"Digits","individual_digits":true},
	   {"type":"Split","pattern":{"Regex":"\\s+|[a-z]+"},"behavior":"MergedWithPrevious","invert":false}]},
	 "model":{"type":"WordLevel","vocab":{"[UNK]":0,"the":1,"jury":2,"1":3},"unk_token":"[UNK]"},
	 "decoder":{"type":"BPEDecoder","suffix":"</w>"}}`,
	`{"model":{"type":"Nope"}}`,
}

// FuzzFromJSON: building a tokenizer from any tokenizer.json never panics,
// and what builds encodes and decodes text (a single text and a pair)
// without a panic, with ids inside the vocabulary.
func FuzzFromJSON(f *testing.F) {
	for _, s := range tokenizerSeeds {
		f.Add([]byte(s), "Hello, unaffable world 123 héllo [CLS] ")
	}
	f.Fuzz(func(t *testing.T, js []byte, text string) {
		tok, err := FromJSON(js)
		if err != nil {
			return
		}
		if tok.Padding != nil && (tok.Padding.Length > 1<<12 || tok.Padding.PadToMultipleOf > 1<<12) {
			return // a huge fixed padding is a legitimate (if odd) request
		}
		if len(text) > 256 {
			text = text[:256]
		}
		for _, add := range []bool{false, true} {
			e, err := tok.Encode(text, add)
			if err == nil {
				tok.Decode(e.IDs, add)
			}
			if e, err := tok.EncodePair(text, strings.ToUpper(text), add); err == nil {
				tok.Decode(e.IDs, !add)
			}
		}
	})
}
