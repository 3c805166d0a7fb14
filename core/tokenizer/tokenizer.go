// Package tokenizer encodes text into token ids exactly as the Hugging Face
// tokenizers library does: tokenizer.json pipelines (normalizers,
// pre-tokenizers, BPE / WordPiece / Unigram / WordLevel models,
// post-processors, decoders, added tokens), BERT-style vocab.txt, GPT-2's
// encoder.json + vocab.bpe, and character vocabularies.
//
// Offsets are in Unicode code points of the input, as the library's Python
// and Node bindings report them.
//
// Where things are:
//
//	tokenizer.go      Tokenizer: Encode, EncodeBatch, Decode
//	load.go load_post.go  tokenizer.json; load_vocab.go: vocab.txt, GPT-2 folder, char vocab
//	normalized.go     text with alignments to the original (NormalizedString)
//	normalizers.go pretokenizers.go regex.go (hand-written look-ahead patterns)
//	bpe.go models.go  BPE, WordPiece, WordLevel, Unigram
//	added.go          added/special tokens; encoding.go post-processors, truncation, padding
//	decoders.go
package tokenizer

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// Tokenizer is a complete pipeline. It is safe for concurrent use once built.
type Tokenizer struct {
	normalizer Normalizer
	pre        PreTokenizer
	model      Model
	post       PostProcessor
	decoder    Decoder
	added      *addedVocab

	// Truncation, when set, limits every encoding's length.
	Truncation *Truncation
	// Padding, when set, pads encodings (a batch to its longest, or to Padding.Length).
	Padding *Padding
}

// Model returns the tokenizer's model.
func (t *Tokenizer) Model() Model { return t.model }

// TokenToID returns the id of a token (added tokens first, then the model's vocabulary).
func (t *Tokenizer) TokenToID(tok string) (int, bool) {
	if i, ok := t.added.byText[tok]; ok {
		return t.added.tokens[i].ID, true
	}
	return t.model.TokenToID(tok)
}

// IDToToken returns the token of an id.
func (t *Tokenizer) IDToToken(id int) (string, bool) {
	if i, ok := t.added.byID[id]; ok {
		return t.added.tokens[i].Content, true
	}
	return t.model.IDToToken(id)
}

// VocabSize is the model's vocabulary size plus added tokens not in it.
func (t *Tokenizer) VocabSize() int {
	n := t.model.VocabSize()
	for _, a := range t.added.tokens {
		if _, ok := t.model.IDToToken(a.ID); !ok {
			n++
		}
	}
	return n
}

// Encode tokenizes one text. addSpecial adds the post-processor's special
// tokens (BOS, [CLS] ... [SEP]) as Hugging Face's encode does by default.
// Invalid UTF-8 is first replaced by U+FFFD (one per invalid run).
func (t *Tokenizer) Encode(text string, addSpecial bool) (*Encoding, error) {
	e, err := t.encodeRaw(text, 0)
	if err != nil {
		return nil, err
	}
	return t.finish(e, nil, addSpecial)
}

// EncodePair tokenizes a pair of texts (type ids 0 and 1), as Hugging Face's
// encode(a, b): truncation applies to the pair, the post-processor's pair
// template joins them.
func (t *Tokenizer) EncodePair(a, b string, addSpecial bool) (*Encoding, error) {
	ea, err := t.encodeRaw(a, 0)
	if err != nil {
		return nil, err
	}
	eb, err := t.encodeRaw(b, 1)
	if err != nil {
		return nil, err
	}
	return t.finish(ea, eb, addSpecial)
}

func (t *Tokenizer) encodeRaw(text string, typeID int) (*Encoding, error) {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD") // the library only takes valid strings
	}
	ps := t.added.extract(text, t.normalizer)
	if t.pre != nil {
		ps = t.pre.preTokenize(ps)
	}
	conv := newCharConv(text)
	e := newEncoding(len(text)/4 + 4)
	for _, p := range ps {
		toks := p.tokens
		if !p.done {
			var err error
			if toks, err = t.model.tokenize(p.n.s); err != nil {
				return nil, err
			}
		}
		for _, tk := range toks {
			off := [2]int{tk.s, tk.e}
			if s, e2, ok := p.n.origRange(tk.s, tk.e); ok {
				off = [2]int{s, e2}
			}
			e.push(tk.id, tk.value, conv.convert(off), typeID, 0, 1)
		}
	}
	return e, nil
}

// finish truncates, post-processes and pads (a single encoding when b is nil).
func (t *Tokenizer) finish(a, b *Encoding, addSpecial bool) (*Encoding, error) {
	if t.Truncation != nil && t.Truncation.MaxLength > 0 {
		n := t.Truncation.MaxLength
		if t.post != nil && addSpecial {
			n -= t.post.added(b != nil)
		}
		if err := t.Truncation.apply(a, b, max(n, 0)); err != nil {
			return nil, err
		}
	}
	encs := []*Encoding{a}
	if b != nil {
		encs = append(encs, b)
	}
	if t.post != nil {
		encs = t.post.process(encs, addSpecial)
	}
	e := concat(encs)
	if t.Padding != nil {
		// Fixed length, or (batch-longest) the encoding's own length rounded
		// up to PadToMultipleOf, as the library pads a single encoding.
		n := t.Padding.Length
		if n == 0 {
			n = e.Len()
		}
		t.Padding.pad(e, n)
	}
	return e, nil
}

// EncodeBatch encodes texts on up to threads goroutines (threads < 1: one),
// then pads the batch to its longest encoding when Padding is set without a Length.
func (t *Tokenizer) EncodeBatch(texts []string, addSpecial bool, threads int) ([]*Encoding, error) {
	out, err := t.EncodeEach(texts, addSpecial, threads)
	if err != nil {
		return nil, err
	}
	if t.Padding != nil && t.Padding.Length == 0 {
		longest := 0
		for _, e := range out {
			longest = max(longest, e.Len())
		}
		for _, e := range out {
			t.Padding.pad(e, longest)
		}
	}
	return out, nil
}

// EncodeEach encodes every text exactly as Encode does (no padding across
// texts), on up to threads goroutines; results are in input order.
func (t *Tokenizer) EncodeEach(texts []string, addSpecial bool, threads int) ([]*Encoding, error) {
	out := make([]*Encoding, len(texts))
	errs := make([]error, len(texts))
	threads = max(1, min(threads, len(texts)))
	var wg sync.WaitGroup
	var mu sync.Mutex
	next := 0
	const chunk = 16
	for w := 0; w < threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				a := next
				next += chunk
				mu.Unlock()
				if a >= len(texts) {
					return
				}
				for i := a; i < min(a+chunk, len(texts)); i++ {
					out[i], errs[i] = t.Encode(texts[i], addSpecial)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Decode turns ids back into text; skipSpecial drops special added tokens.
func (t *Tokenizer) Decode(ids []int, skipSpecial bool) string {
	toks := make([]string, 0, len(ids))
	for _, id := range ids {
		tok, ok := t.IDToToken(id)
		if !ok {
			continue
		}
		if skipSpecial && t.added.special[tok] {
			continue
		}
		toks = append(toks, tok)
	}
	if t.decoder == nil {
		return strings.Join(toks, " ")
	}
	return strings.Join(t.decoder.decodeChain(toks), "")
}

// charConv converts byte offsets of a text into char offsets, as Hugging
// Face's BytesToCharOffsetConverter does.
type charConv struct {
	text  string
	ascii bool
	idx   []int32 // char index of every byte
}

func newCharConv(text string) *charConv {
	c := &charConv{text: text, ascii: true}
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			c.ascii = false
			break
		}
	}
	if !c.ascii {
		c.idx = make([]int32, len(text))
		k := int32(0)
		for i := 0; i < len(text); {
			_, n := utf8.DecodeRuneInString(text[i:])
			for j := 0; j < n; j++ {
				c.idx[i+j] = k
			}
			k++
			i += n
		}
	}
	return c
}

func (c *charConv) at(b int) (int, bool) {
	if b < 0 || b >= len(c.text) {
		return 0, false
	}
	if c.ascii {
		return b, true
	}
	return int(c.idx[b]), true
}

func (c *charConv) convert(o [2]int) [2]int {
	s, ok := c.at(o[0])
	if !ok {
		return o
	}
	if e, ok := c.at(o[1]); ok {
		return [2]int{s, e}
	}
	last, ok := c.at(o[1] - 1)
	if !ok {
		return [2]int{s, s + 1}
	}
	return [2]int{s, last + 1}
}
