package nlp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
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
	if len(args) == 0 {
		args = []string{"-"}
	}
	for _, a := range args {
		var in io.Reader = env.IO.In
		if a != "-" {
			f, err := os.Open(a)
			if err != nil {
				return fmt.Errorf("predict: %w", err)
			}
			defer f.Close()
			in = f
		}
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			text := strings.TrimRight(sc.Text(), "\r")
			toks, offs := tokenizeText(text)
			var tags []string
			if len(toks) > 0 {
				var err error
				if tags, err = tag(toks); err != nil {
					return err
				}
			}
			if err := writeTagLine(env, text, toks, offs, tags, span); err != nil {
				return err
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("predict %s: %w", a, err)
		}
	}
	return nil
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
