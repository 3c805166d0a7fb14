package metric

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Span-level precision, recall and F1 of sequence labelling, defined as the
// seqeval library (github.com/chakki-works/seqeval, 1.2) defines them:
//
//   - Default mode (conlleval-compatible). A tag is read as prefix = its
//     first character and type = what follows the first "-" after it ("_"
//     when empty). Sentences are joined with an "O" between them and a chunk
//     ends before a tag when the previous tag was E or S; or was B or I and
//     this one is B, S or O; or the previous was not O or "." and the type
//     changes. A chunk starts at B or S; at E or I after E, S or O; and at
//     any tag other than O or "." whose type differs from the previous one.
//     So the rules are lenient: I-PER after O starts a PER chunk, and
//     B-PER I-LOC is two chunks.
//   - Strict mode, for a given scheme (IOB2, IOE2, IOBES, BILOU). A tag is
//     prefix = first character and type = the rest with "-" trimmed from both
//     ends ("_" when empty). A chunk is a start token followed by the longest
//     run of inside tokens, and counts only if it is closed by an end
//     pattern; a prefix the scheme does not allow is an error. So in IOB2 a
//     chunk must begin with B, and in IOBES a B-PER I-PER with no E-PER is no
//     chunk at all.
//
// A predicted chunk is correct when its type, start and end all match a true
// chunk. Per type: precision = tp/predicted, recall = tp/true, F1 =
// 2PR/(P+R), each 0 when its denominator is 0 (seqeval's zero_division
// "warn" or 0). Micro averages pool the counts; macro averages the per-type
// values; weighted averages weighs them by support. Tag suffixes
// (seqeval's suffix=True) are not supported.

// Span is one chunk: its type and token range [Start, End) in a sentence.
type Span struct {
	Type       string
	Start, End int
}

// Spans returns the chunks of one sentence as seqeval's default mode reads
// them (get_entities on a one-sentence list).
func Spans(tags []string) []Span {
	var c chunker
	c.reset()
	return c.sentence(tags, 0)
}

// chunker is the default mode's state, carried across sentences as seqeval
// carries it across its joined list.
type chunker struct {
	prevTag, prevType string
	begin             int
}

func (c *chunker) reset() { c.prevTag, c.prevType, c.begin = "O", "", 0 }

// splitDefault splits a tag as the default mode does.
func splitDefault(chunk string) (tag, typ string) {
	if chunk == "" {
		return "", "_"
	}
	_, n := utf8.DecodeRuneInString(chunk)
	tag, rest := chunk[:n], chunk[n:]
	if i := strings.Index(rest, "-"); i >= 0 {
		rest = rest[i+1:]
	}
	if rest == "" {
		rest = "_"
	}
	return tag, rest
}

// sentence feeds tags and the "O" that follows them; spans are returned
// relative to the sentence start (off is the sentence's offset in the
// joined list, for the chunk positions carried over).
func (c *chunker) sentence(tags []string, off int) []Span {
	var out []Span
	for i := 0; i <= len(tags); i++ {
		chunk := "O"
		if i < len(tags) {
			chunk = tags[i]
		}
		tag, typ := splitDefault(chunk)
		if endOfChunk(c.prevTag, tag, c.prevType, typ) {
			out = append(out, Span{Type: c.prevType, Start: c.begin - off, End: i})
		}
		if startOfChunk(c.prevTag, tag, c.prevType, typ) {
			c.begin = off + i
		}
		c.prevTag, c.prevType = tag, typ
	}
	return out
}

func endOfChunk(prevTag, tag, prevType, typ string) bool {
	switch {
	case prevTag == "E" || prevTag == "S":
		return true
	case (prevTag == "B" || prevTag == "I") && (tag == "B" || tag == "S" || tag == "O"):
		return true
	}
	return prevTag != "O" && prevTag != "." && prevType != typ
}

func startOfChunk(prevTag, tag, prevType, typ string) bool {
	switch {
	case tag == "B" || tag == "S":
		return true
	case (tag == "E" || tag == "I") && (prevTag == "E" || prevTag == "S" || prevTag == "O"):
		return true
	}
	return tag != "O" && tag != "." && prevType != typ
}

// Scheme is a tagging scheme for strict mode.
type Scheme int

// The schemes strict mode knows.
const (
	IOB2 Scheme = iota + 1
	IOE2
	IOBES
	BILOU
)

// ParseScheme reads a scheme name (IOB2, IOE2, IOBES, BIOES, BILOU; any case).
func ParseScheme(s string) (Scheme, error) {
	switch strings.ToUpper(s) {
	case "IOB2", "BIO":
		return IOB2, nil
	case "IOE2":
		return IOE2, nil
	case "IOBES", "BIOES":
		return IOBES, nil
	case "BILOU":
		return BILOU, nil
	}
	return 0, fmt.Errorf("unknown tagging scheme %q (want IOB2, IOE2, IOBES or BILOU)", s)
}

func (s Scheme) String() string {
	return map[Scheme]string{IOB2: "IOB2", IOE2: "IOE2", IOBES: "IOBES", BILOU: "BILOU"}[s]
}

// Prefix bits for the strict patterns.
const (
	pI = 1 << iota
	pO
	pB
	pE
	pS
	pU
	pL
	pAny = pI | pO | pB | pE | pS | pU | pL
)

// A rule matches a (previous, current) token pair: prefix sets and whether
// the types must be the same (+1), differ (-1) or either (0).
type rule struct{ prev, cur, typ int }

type schemeRules struct {
	allowed             int
	start, inside, stop []rule
}

var strictRules = map[Scheme]schemeRules{
	IOB2: {allowed: pI | pO | pB,
		start:  []rule{{pAny, pB, 0}},
		inside: []rule{{pB, pI, 1}, {pI, pI, 1}},
		stop:   []rule{{pI, pO, 0}, {pI, pI, -1}, {pI, pB, 0}, {pB, pO, 0}, {pB, pI, -1}, {pB, pB, 0}}},
	IOE2: {allowed: pI | pO | pE,
		start:  []rule{{pO, pI, 0}, {pO, pE, 0}, {pE, pI, 0}, {pE, pE, 0}, {pI, pI, -1}, {pI, pE, -1}},
		inside: []rule{{pI, pE, 1}, {pI, pI, 1}},
		stop:   []rule{{pE, pAny, 0}}},
	IOBES: {allowed: pI | pO | pB | pE | pS,
		start:  []rule{{pAny, pB, 0}, {pAny, pS, 0}},
		inside: []rule{{pB, pI, 1}, {pB, pE, 1}, {pI, pI, 1}, {pI, pE, 1}},
		stop:   []rule{{pS, pAny, 0}, {pE, pAny, 0}}},
	BILOU: {allowed: pB | pI | pL | pO | pU,
		start:  []rule{{pAny, pB, 0}, {pAny, pU, 0}},
		inside: []rule{{pB, pI, 1}, {pB, pL, 1}, {pI, pI, 1}, {pI, pL, 1}},
		stop:   []rule{{pU, pAny, 0}, {pL, pAny, 0}}},
}

type strictToken struct {
	prefix int
	typ    string
}

func matches(rules []rule, prev, cur strictToken) bool {
	for _, r := range rules {
		if prev.prefix&r.prev == 0 || cur.prefix&r.cur == 0 {
			continue
		}
		if r.typ == 0 || (r.typ > 0) == (prev.typ == cur.typ) {
			return true
		}
	}
	return false
}

// StrictSpans returns the chunks of one sentence as seqeval's strict mode
// reads them under scheme, or an error for a tag whose prefix the scheme
// does not allow.
func StrictSpans(tags []string, scheme Scheme) ([]Span, error) {
	rs, ok := strictRules[scheme]
	if !ok {
		return nil, fmt.Errorf("unknown tagging scheme %d", scheme)
	}
	prefixes := map[byte]int{'I': pI, 'O': pO, 'B': pB, 'E': pE, 'S': pS, 'U': pU, 'L': pL}
	toks := make([]strictToken, len(tags)+1)
	for i, t := range tags {
		if t == "" {
			return nil, fmt.Errorf("tag %d is empty", i)
		}
		p := prefixes[t[0]]
		if p == 0 {
			return nil, fmt.Errorf("tag %d %q: prefix %q is not one of I O B E S U L", i, t, t[:1])
		}
		typ := strings.Trim(t[1:], "-")
		if typ == "" {
			typ = "_"
		}
		toks[i] = strictToken{p, typ}
	}
	outside := strictToken{pO, "_"}
	toks[len(tags)] = outside
	var out []Span
	prev := outside
	for i := 0; i < len(toks); {
		tok := toks[i]
		if tok.prefix&rs.allowed == 0 {
			return nil, fmt.Errorf("tag %d %q: prefix not allowed in %v", i, tags[i], scheme)
		}
		if matches(rs.start, prev, tok) {
			end := i + 1
			for p := tok; end < len(toks) && matches(rs.inside, p, toks[end]); end++ {
				p = toks[end]
			}
			if matches(rs.stop, toks[end-1], toks[min(end, len(toks)-1)]) {
				out = append(out, Span{Type: tok.typ, Start: i, End: end})
			}
			i = end
		} else {
			i++
		}
		prev = toks[i-1]
	}
	return out, nil
}

// SeqEval accumulates span counts per type and token accuracy over
// sentences, in seqeval's default mode or, with Strict set, its strict mode
// under Scheme.
type SeqEval struct {
	Strict bool
	Scheme Scheme

	tp, pred, gold   map[string]int
	correct, tokens  int
	chTrue, chPred   chunker
	offset, nSamples int
}

// NewSeqEval returns an empty accumulator; strict selects strict mode under scheme.
func NewSeqEval(strict bool, scheme Scheme) *SeqEval {
	m := &SeqEval{Strict: strict, Scheme: scheme}
	m.Reset()
	return m
}

// Reset clears the counts.
func (m *SeqEval) Reset() {
	m.tp, m.pred, m.gold = map[string]int{}, map[string]int{}, map[string]int{}
	m.correct, m.tokens, m.offset, m.nSamples = 0, 0, 0, 0
	m.chTrue.reset()
	m.chPred.reset()
}

// Add counts one sentence's true and predicted tags (same length).
func (m *SeqEval) Add(truth, pred []string) error {
	if len(truth) != len(pred) {
		return fmt.Errorf("seqeval: sentence %d: %d true tags but %d predicted", m.nSamples, len(truth), len(pred))
	}
	var ts, ps []Span
	if m.Strict {
		var err error
		if ts, err = StrictSpans(truth, m.Scheme); err != nil {
			return fmt.Errorf("seqeval: sentence %d: true tags: %w", m.nSamples, err)
		}
		if ps, err = StrictSpans(pred, m.Scheme); err != nil {
			return fmt.Errorf("seqeval: sentence %d: predicted tags: %w", m.nSamples, err)
		}
	} else {
		ts = m.chTrue.sentence(truth, m.offset)
		ps = m.chPred.sentence(pred, m.offset)
	}
	m.offset += len(truth) + 1
	m.nSamples++
	gold := map[Span]bool{}
	for _, s := range ts {
		if !gold[s] { // a set, as seqeval's
			gold[s] = true
			m.gold[s.Type]++
		}
	}
	seen := map[Span]bool{}
	for _, s := range ps {
		if seen[s] {
			continue
		}
		seen[s] = true
		m.pred[s.Type]++
		if gold[s] {
			m.tp[s.Type]++
		}
	}
	for i := range truth {
		if truth[i] == pred[i] {
			m.correct++
		}
	}
	m.tokens += len(truth)
	return nil
}

// SpanScore is one row of the report.
type SpanScore struct {
	Type                  string  `json:"type"`
	Precision, Recall, F1 float64 `json:"-"`
	Support               int     `json:"support"`
	Predicted, Correct    int     `json:"-"`
}

// SpanReport is seqeval's classification report plus token accuracy.
type SpanReport struct {
	Types                  []SpanScore // sorted by type name
	Micro, Macro, Weighted SpanScore
	Accuracy               float64 // token accuracy (seqeval's accuracy_score)
	Tokens, Sentences      int
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

// Result computes the report.
func (m *SeqEval) Result() SpanReport {
	names := map[string]bool{}
	for _, mp := range []map[string]int{m.gold, m.pred} {
		for k := range mp {
			names[k] = true
		}
	}
	var rep SpanReport
	for k := range names {
		p, r := ratio(m.tp[k], m.pred[k]), ratio(m.tp[k], m.gold[k])
		rep.Types = append(rep.Types, SpanScore{Type: k, Precision: p, Recall: r, F1: f1(p, r), Support: m.gold[k], Predicted: m.pred[k], Correct: m.tp[k]})
	}
	sort.Slice(rep.Types, func(i, j int) bool { return rep.Types[i].Type < rep.Types[j].Type })
	var tp, pred, gold int
	for _, s := range rep.Types {
		tp, pred, gold = tp+s.Correct, pred+s.Predicted, gold+s.Support
	}
	p, r := ratio(tp, pred), ratio(tp, gold)
	rep.Micro = SpanScore{Type: "micro avg", Precision: p, Recall: r, F1: f1(p, r), Support: gold, Predicted: pred, Correct: tp}
	rep.Macro = SpanScore{Type: "macro avg", Support: gold, Predicted: pred, Correct: tp}
	rep.Weighted = SpanScore{Type: "weighted avg", Support: gold, Predicted: pred, Correct: tp}
	if n := len(rep.Types); n > 0 {
		for _, s := range rep.Types {
			rep.Macro.Precision += s.Precision / float64(n)
			rep.Macro.Recall += s.Recall / float64(n)
			rep.Macro.F1 += s.F1 / float64(n)
			if gold > 0 {
				w := float64(s.Support) / float64(gold)
				rep.Weighted.Precision += w * s.Precision
				rep.Weighted.Recall += w * s.Recall
				rep.Weighted.F1 += w * s.F1
			}
		}
	}
	rep.Accuracy = ratio(m.correct, m.tokens)
	rep.Tokens, rep.Sentences = m.tokens, m.nSamples
	return rep
}

// Report returns the report as a metric.Report: f1 (micro, the main value),
// precision, recall, accuracy, macro_f1, weighted_f1, and f1_/precision_/
// recall_<type> per type.
func (r SpanReport) Report() Report {
	out := Report{Main: "f1", Count: r.Sentences, Values: map[string]float64{
		"f1": r.Micro.F1, "precision": r.Micro.Precision, "recall": r.Micro.Recall, "accuracy": r.Accuracy,
		"macro_f1": r.Macro.F1, "weighted_f1": r.Weighted.F1,
	}}
	for _, s := range r.Types {
		out.Values["f1_"+s.Type], out.Values["precision_"+s.Type], out.Values["recall_"+s.Type] = s.F1, s.Precision, s.Recall
	}
	return out
}

// Table formats the report as seqeval's classification_report does, with
// digits after the point (Python's rounding: ties to even, as Go's fmt).
func (r SpanReport) Table(digits int) string {
	width := max(len("weighted avg"), digits)
	for _, s := range r.Types {
		width = max(width, len(s.Type))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%*s  %9s %9s %9s %9s\n\n", width, "", "precision", "recall", "f1-score", "support")
	row := func(s SpanScore) {
		fmt.Fprintf(&b, "%*s  %9.*f %9.*f %9.*f %9d\n", width, s.Type, digits, s.Precision, digits, s.Recall, digits, s.F1, s.Support)
	}
	for _, s := range r.Types {
		row(s)
	}
	b.WriteString("\n")
	row(r.Micro)
	row(r.Macro)
	row(r.Weighted)
	return b.String()
}
