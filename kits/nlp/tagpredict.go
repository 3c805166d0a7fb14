package nlp

import (
	"context"
	"fmt"
	"strings"

	"paddle/core/ag"
	"paddle/core/metric"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Entity is one labelled span of a predicted line; Start and End are code
// point offsets into the text ([Start, End)).
type Entity struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Label string `json:"label"`
	Text  string `json:"text"`
}

// SpanPrediction is a line of `nlp predict` for a span task (BIO tags).
// A line that failed is workflow.Failed: {"text", "error"}.
type SpanPrediction struct {
	Text     string   `json:"text"`
	Entities []Entity `json:"entities"`
	plain    string   // --format text: `label<TAB>text` per entity
}

// TagPrediction is a line of `nlp predict` for a tagging task (POS).
// A line that failed is workflow.Failed: {"text", "error"}.
type TagPrediction struct {
	Text   string   `json:"text"`
	Tokens []string `json:"tokens"`
	Tags   []string `json:"tags"`
	plain  string   // --format text: `token/TAG ...`
}

// tagRecord is a SpanPrediction or a TagPrediction.
type tagRecord interface{ text() string }

func (p SpanPrediction) text() string { return p.plain }
func (p TagPrediction) text() string  { return p.plain }

// tagLines tags each line of the files in args (stdin for "-" or none):
// the line is tokenised (tokenizeText), tag(tokens) gives the tags, and
// one jsonl object is written per line — entities for span tags (read as
// seqeval's default mode reads them), tokens and tags otherwise. --format
// text writes `token/TAG ...`, or `label<TAB>text` per entity.
func tagLines(ctx context.Context, env workflow.Env, args []string, span bool, tag func([]string) ([]string, error)) error {
	return predictLines(ctx, env, args, tagRecord.text, func(text string) (tagRecord, error) {
		toks, offs := tokenizeText(text)
		var tags []string
		if len(toks) > 0 {
			var err error
			if tags, err = tag(toks); err != nil {
				return nil, err
			}
		}
		return tagLine(text, toks, offs, tags, span), nil
	})
}

// tagLine is the record of one tagged line.
func tagLine(text string, toks []string, offs [][2]int, tags []string, span bool) tagRecord {
	var plain strings.Builder
	if span {
		runes := []rune(text)
		p := SpanPrediction{Text: text, Entities: []Entity{}}
		for _, s := range metric.Spans(tags) {
			st, en := offs[s.Start][0], offs[s.End-1][1]
			e := Entity{Start: st, End: en, Label: s.Type, Text: string(runes[st:en])}
			p.Entities = append(p.Entities, e)
			fmt.Fprintf(&plain, "%s\t%s\n", e.Label, e.Text)
		}
		p.plain = plain.String()
		return p
	}
	if toks == nil {
		toks, tags = []string{}, []string{}
	}
	for i, t := range toks {
		if i > 0 {
			plain.WriteByte(' ')
		}
		plain.WriteString(t + "/" + tags[i])
	}
	plain.WriteByte('\n')
	return TagPrediction{Text: text, Tokens: toks, Tags: tags, plain: plain.String()}
}

// Predict tags text lines with the checkpoint env.Weights, or with the
// export directory env.Model.
func (r *tagRunner) Predict(ctx context.Context, env workflow.Env, args []string) error {
	if env.Model != "" {
		return predictTagExport(ctx, env, args)
	}
	model, err := r.newModel(env.Weights)
	if err != nil {
		return err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return err
	}
	return tagLines(ctx, env, args, r.span, func(toks []string) ([]string, error) {
		b, err := r.enc.batch([]TagSentence{{Tokens: toks}})
		if err != nil {
			return nil, err
		}
		var em *tensor.Tensor
		ag.NoGrad(func() { em = model.Emissions(ag.Const(b.Words), constOrNil(b.Chars), nil, false).T })
		return r.names(model.Decode(em, b.Lengths)[0]), nil
	})
}

// PredictRecord is `nlp predict`'s record, for --help (docs/formats.md):
// one per input line, by the model's task.
const PredictRecord = `  classifier:   {"text": string, "label": string, "score": float}
  span tagger:  {"text": string, "entities": [{"start": int, "end": int, "label": string, "text": string}, ...]}
  tagger (POS): {"text": string, "tokens": [string, ...], "tags": [string, ...]}
  start, end: code point offsets into text ([start, end)); score: softmax probability, 5 decimals.
  failed line: {"text": string, "error": string}; unreadable file: {"text": null, "error": string}`
