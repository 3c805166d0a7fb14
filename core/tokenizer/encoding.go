package tokenizer

import "fmt"

// Encoding is the result of encoding one text: parallel slices, one entry per token.
type Encoding struct {
	IDs               []int
	TypeIDs           []int
	Tokens            []string
	Offsets           [][2]int // in Unicode code points of the input, as Hugging Face reports them
	SpecialTokensMask []int
	AttentionMask     []int
}

func newEncoding(n int) *Encoding {
	return &Encoding{IDs: make([]int, 0, n), TypeIDs: make([]int, 0, n), Tokens: make([]string, 0, n),
		Offsets: make([][2]int, 0, n), SpecialTokensMask: make([]int, 0, n), AttentionMask: make([]int, 0, n)}
}

// Len is the number of tokens.
func (e *Encoding) Len() int { return len(e.IDs) }

func (e *Encoding) push(id int, tok string, off [2]int, typeID, special, attn int) {
	e.IDs = append(e.IDs, id)
	e.Tokens = append(e.Tokens, tok)
	e.Offsets = append(e.Offsets, off)
	e.TypeIDs = append(e.TypeIDs, typeID)
	e.SpecialTokensMask = append(e.SpecialTokensMask, special)
	e.AttentionMask = append(e.AttentionMask, attn)
}

// appendAll appends o's tokens with typeID (-1: o's own type ids).
func (e *Encoding) appendAll(o *Encoding, typeID int) {
	for i := range o.IDs {
		t := typeID
		if t < 0 {
			t = o.TypeIDs[i]
		}
		e.push(o.IDs[i], o.Tokens[i], o.Offsets[i], t, o.SpecialTokensMask[i], o.AttentionMask[i])
	}
}

// truncate keeps at most n tokens, from the right (or the left when left is set).
func (e *Encoding) truncate(n int, left bool) {
	if n >= len(e.IDs) {
		return
	}
	a, b := 0, n
	if left {
		a, b = len(e.IDs)-n, len(e.IDs)
	}
	e.IDs, e.TypeIDs, e.Tokens = e.IDs[a:b], e.TypeIDs[a:b], e.Tokens[a:b]
	e.Offsets, e.SpecialTokensMask, e.AttentionMask = e.Offsets[a:b], e.SpecialTokensMask[a:b], e.AttentionMask[a:b]
}

// Truncation limits encodings to MaxLength tokens, special tokens included.
type Truncation struct {
	MaxLength int
	Left      bool // drop tokens from the start instead of the end
	// Strategy for pairs: "" or "longest_first" (cut the longer one first),
	// "only_first", "only_second".
	Strategy string
}

// apply truncates a single encoding or a pair to n tokens in all, as the
// library's truncate_encodings does.
func (t *Truncation) apply(a, b *Encoding, n int) error {
	total := a.Len()
	if b != nil {
		total += b.Len()
	}
	if total <= n {
		return nil
	}
	remove := total - n
	switch t.Strategy {
	case "", "longest_first", "LongestFirst":
		if b == nil {
			a.truncate(n, t.Left)
			return nil
		}
		n1, n2 := a.Len(), b.Len()
		swap := n1 > n2
		if swap {
			n1, n2 = n2, n1
		}
		if n1 > n {
			n2 = n1
		} else {
			n2 = max(n1, n-n1)
		}
		if n1+n2 > n {
			n1 = n / 2
			n2 = n1 + n%2
		}
		if swap {
			n1, n2 = n2, n1
		}
		a.truncate(n1, t.Left)
		b.truncate(n2, t.Left)
		return nil
	case "only_first", "OnlyFirst", "only_second", "OnlySecond":
		target := a
		if t.Strategy == "only_second" || t.Strategy == "OnlySecond" {
			if b == nil {
				return fmt.Errorf("truncation only_second needs a pair")
			}
			target = b
		}
		if target.Len() <= remove {
			return fmt.Errorf("truncation: sequence too short to remove %d tokens", remove)
		}
		target.truncate(target.Len()-remove, t.Left)
		return nil
	}
	return fmt.Errorf("unknown truncation strategy %q", t.Strategy)
}

// Padding pads encodings to a length: Length if set, else the longest of the batch,
// rounded up to a multiple of PadToMultipleOf when set.
type Padding struct {
	Length          int
	PadToMultipleOf int
	PadID           int
	PadTypeID       int
	PadToken        string
	Left            bool
}

func (p *Padding) pad(e *Encoding, n int) {
	if p.PadToMultipleOf > 0 && n%p.PadToMultipleOf != 0 {
		n += p.PadToMultipleOf - n%p.PadToMultipleOf
	}
	k := n - len(e.IDs)
	if k <= 0 {
		return
	}
	pe := &Encoding{}
	for i := 0; i < k; i++ {
		pe.push(p.PadID, p.PadToken, [2]int{0, 0}, p.PadTypeID, 1, 0)
	}
	if p.Left {
		pe.appendAll(e, -1)
		*e = *pe
		return
	}
	for i := 0; i < k; i++ {
		e.push(p.PadID, p.PadToken, [2]int{0, 0}, p.PadTypeID, 1, 0)
	}
}

// A PostProcessor adds special tokens around one encoding or a pair and fixes
// offsets; it returns encodings that the tokenizer concatenates.
type PostProcessor interface {
	// added is the number of tokens process adds to a single sequence or a pair.
	added(pair bool) int
	process(encs []*Encoding, addSpecial bool) []*Encoding
}

func concat(encs []*Encoding) *Encoding {
	if len(encs) == 1 {
		return encs[0]
	}
	n := 0
	for _, e := range encs {
		n += e.Len()
	}
	out := newEncoding(n)
	for _, e := range encs {
		out.appendAll(e, -1)
	}
	return out
}

// templatePiece is one item of a template: a special token or a sequence.
type templatePiece struct {
	special string // "" for a sequence
	seq     int    // 0 for A, 1 for B
	typeID  int
}

// templateProc is TemplateProcessing.
type templateProc struct {
	single, pair []templatePiece
	special      map[string]struct {
		ids  []int
		toks []string
	}
}

func (t *templateProc) added(pair bool) int {
	tpl := t.single
	if pair {
		tpl = t.pair
	}
	n := 0
	for _, p := range tpl {
		if p.special != "" {
			n += len(t.special[p.special].ids)
		}
	}
	return n
}

func (t *templateProc) process(encs []*Encoding, addSpecial bool) []*Encoding {
	tpl := t.single
	if len(encs) == 2 {
		tpl = t.pair
	}
	n := 0
	for _, e := range encs {
		n += e.Len()
	}
	out := newEncoding(n + t.added(len(encs) == 2))
	for _, p := range tpl {
		if p.special == "" {
			if p.seq < len(encs) {
				out.appendAll(encs[p.seq], p.typeID)
			}
			continue
		}
		if !addSpecial {
			continue
		}
		st := t.special[p.special]
		for i, id := range st.ids {
			out.push(id, st.toks[i], [2]int{0, 0}, p.typeID, 1, 1)
		}
	}
	return []*Encoding{out}
}

// byteLevelProc is the ByteLevel post-processor: trims whitespace off offsets.
type byteLevelProc struct{ trim, addPrefixSpace bool }

func (byteLevelProc) added(bool) int { return 0 }

func (b byteLevelProc) process(encs []*Encoding, _ bool) []*Encoding {
	if b.trim {
		for _, e := range encs {
			trimOffsets(e, b.addPrefixSpace)
		}
	}
	return encs
}

func isBLSpace(r rune) bool { return r == 'Ġ' || isWhitespace(r) }

func trimOffsets(e *Encoding, addPrefixSpace bool) {
	for i, tok := range e.Tokens {
		rs := []rune(tok)
		lead := 0
		for lead < len(rs) && isBLSpace(rs[lead]) {
			lead++
		}
		trail := 0
		for trail < len(rs) && isBLSpace(rs[len(rs)-1-trail]) {
			trail++
		}
		o := &e.Offsets[i]
		if lead > 0 {
			if (i == 0 || o[0] == 0) && addPrefixSpace && lead == 1 {
				lead = 0
			}
			o[0] = min(o[0]+lead, o[1])
		}
		if trail > 0 && o[1] >= trail {
			o[1] = max(o[1]-trail, o[0])
		}
	}
}

// bertProc is BertProcessing ([CLS] A [SEP] B [SEP]) or RobertaProcessing
// (<s> A </s> </s> B </s>, offsets trimmed, type ids all 0).
type bertProc struct {
	cls, sep       string
	clsID, sepID   int
	roberta, trim  bool
	addPrefixSpace bool
}

func (b bertProc) added(pair bool) int {
	switch {
	case !pair:
		return 2
	case b.roberta:
		return 4
	}
	return 3
}

func (b bertProc) process(encs []*Encoding, addSpecial bool) []*Encoding {
	if b.roberta {
		for _, e := range encs {
			if b.trim {
				trimOffsets(e, b.addPrefixSpace)
			}
			for i := range e.TypeIDs {
				e.TypeIDs[i] = 0
			}
		}
	}
	if !addSpecial {
		return encs
	}
	out := make([]*Encoding, len(encs))
	for i, e := range encs {
		o := newEncoding(e.Len() + 2)
		if i == 0 || b.roberta {
			tok, id := b.cls, b.clsID
			if i == 1 {
				tok, id = b.sep, b.sepID // roberta: </s> </s> B </s>
			}
			o.push(id, tok, [2]int{0, 0}, 0, 1, 1)
		}
		o.appendAll(e, -1)
		t := 0
		if i == 1 && !b.roberta {
			t = 1
		}
		o.push(b.sepID, b.sep, [2]int{0, 0}, t, 1, 1)
		out[i] = o
	}
	return out
}

// seqProc runs post-processors in order.
type seqProc []PostProcessor

func (q seqProc) added(pair bool) int {
	n := 0
	for _, p := range q {
		n += p.added(pair)
	}
	return n
}

func (q seqProc) process(encs []*Encoding, addSpecial bool) []*Encoding {
	for _, p := range q {
		encs = p.process(encs, addSpecial)
	}
	return encs
}
