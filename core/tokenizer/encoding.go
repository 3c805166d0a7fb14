package tokenizer

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

func (e *Encoding) appendAll(o *Encoding, typeID int) {
	for i := range o.IDs {
		e.push(o.IDs[i], o.Tokens[i], o.Offsets[i], typeID, o.SpecialTokensMask[i], o.AttentionMask[i])
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
		// keep the original type ids
		copy(pe.TypeIDs[k:], e.TypeIDs)
		*e = *pe
		return
	}
	for i := 0; i < k; i++ {
		e.push(p.PadID, p.PadToken, [2]int{0, 0}, p.PadTypeID, 1, 0)
	}
}

// A PostProcessor adds special tokens around an encoding and fixes offsets.
type PostProcessor interface {
	// added is the number of tokens process adds to a single sequence.
	added() int
	process(e *Encoding, addSpecial bool) *Encoding
}

// templatePiece is one item of a template: a special token or the sequence.
type templatePiece struct {
	special string // "" for the sequence
	typeID  int
}

// templateProc is TemplateProcessing (single-sequence template).
type templateProc struct {
	single  []templatePiece
	special map[string]struct {
		ids  []int
		toks []string
	}
}

func (t *templateProc) added() int {
	n := 0
	for _, p := range t.single {
		if p.special != "" {
			n += len(t.special[p.special].ids)
		}
	}
	return n
}

func (t *templateProc) process(e *Encoding, addSpecial bool) *Encoding {
	if !addSpecial {
		return e
	}
	out := newEncoding(e.Len() + t.added())
	for _, p := range t.single {
		if p.special == "" {
			out.appendAll(e, p.typeID)
			continue
		}
		st := t.special[p.special]
		for i, id := range st.ids {
			out.push(id, st.toks[i], [2]int{0, 0}, p.typeID, 1, 1)
		}
	}
	return out
}

// byteLevelProc is the ByteLevel post-processor: trims whitespace off offsets.
type byteLevelProc struct{ trim, addPrefixSpace bool }

func (byteLevelProc) added() int { return 0 }

func (b byteLevelProc) process(e *Encoding, _ bool) *Encoding {
	if b.trim {
		trimOffsets(e, b.addPrefixSpace)
	}
	return e
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

// bertProc is BertProcessing / RobertaProcessing: cls A sep.
type bertProc struct {
	cls, sep       string
	clsID, sepID   int
	roberta, trim  bool
	addPrefixSpace bool
}

func (bertProc) added() int { return 2 }

func (b bertProc) process(e *Encoding, addSpecial bool) *Encoding {
	if b.roberta && b.trim {
		trimOffsets(e, b.addPrefixSpace)
	}
	if !addSpecial {
		return e
	}
	out := newEncoding(e.Len() + 2)
	out.push(b.clsID, b.cls, [2]int{0, 0}, 0, 1, 1)
	out.appendAll(e, 0)
	out.push(b.sepID, b.sep, [2]int{0, 0}, 0, 1, 1)
	return out
}

// seqProc runs post-processors in order.
type seqProc []PostProcessor

func (q seqProc) added() int {
	n := 0
	for _, p := range q {
		n += p.added()
	}
	return n
}

func (q seqProc) process(e *Encoding, addSpecial bool) *Encoding {
	for _, p := range q {
		e = p.process(e, addSpecial)
	}
	return e
}
