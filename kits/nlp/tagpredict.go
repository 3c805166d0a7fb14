package nlp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
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
type SpanPrediction struct {
	Text     string   `json:"text"`
	Entities []Entity `json:"entities"`
}

// TagPrediction is a line of `nlp predict` for a tagging task (POS).
type TagPrediction struct {
	Text   string   `json:"text"`
	Tokens []string `json:"tokens"`
	Tags   []string `json:"tags"`
}

// tagLines tags each line of the files in args (stdin for "-" or none):
// the line is tokenised (tokenizeText), tag(tokens) gives the tags, and
// one jsonl object is written per line — entities for span tags (read as
// seqeval's default mode reads them), tokens and tags otherwise. --format
// text writes `token/TAG ...`, or `label<TAB>text` per entity.
func tagLines(ctx context.Context, env workflow.Env, args []string, span bool, tag func([]string) ([]string, error)) error {
	return eachLine(ctx, env.IO.In, args, func(text string) error {
		toks, offs := tokenizeText(text)
		var tags []string
		if len(toks) > 0 {
			var err error
			if tags, err = tag(toks); err != nil {
				return err
			}
		}
		return writeTagLine(env, text, toks, offs, tags, span)
	})
}

func writeTagLine(env workflow.Env, text string, toks []string, offs [][2]int, tags []string, span bool) error {
	var v any
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
		v = p
	} else {
		if toks == nil {
			toks, tags = []string{}, []string{}
		}
		v = TagPrediction{Text: text, Tokens: toks, Tags: tags}
		for i, t := range toks {
			if i > 0 {
				plain.WriteByte(' ')
			}
			plain.WriteString(t + "/" + tags[i])
		}
		plain.WriteByte('\n')
	}
	if env.Format == "text" {
		_, err := io.WriteString(env.IO.Out, plain.String())
		return err
	}
	j, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = env.IO.Out.Write(append(j, '\n'))
	return err
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
