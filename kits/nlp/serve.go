package nlp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/serve"
)

// Serve is the kit's kit.Kit.Serve: `paddle serve nlp --model DIR` serves
// an export (paddle nlp export) on core/runtime, `--weights DIR` a
// training checkpoint (with the config.yaml saved in it, or -c). A request
// body is one text (UTF-8; a trailing newline is dropped), answered with
// predict's object {"text", "label", "score"}.
func Serve(f *cmdutil.Factory, cmd *cobra.Command) func(context.Context) (serve.Predictor, error) {
	m := cmdutil.ServeModelFlags(cmd, "nlp")
	cmd.Example = "  paddle serve nlp --model inference/langid --addr 127.0.0.1:8080\n" +
		"  curl --data-binary 'Das ist ein kleiner Test.' http://127.0.0.1:8080/v1/nlp"
	return func(ctx context.Context) (serve.Predictor, error) {
		if err := m.Check(); err != nil {
			return nil, err
		}
		model, weights := m.Model, m.Weights
		if model != "" {
			s, err := loadExportScorer(model, f.Settings.Threads)
			if err != nil {
				return nil, err
			}
			return &TextPredictor{scorer: s}, nil
		}
		cfg, err := cmdutil.ModelConfig(f, weights, "")
		if err != nil {
			return nil, err
		}
		r, err := build(cfg)
		if err != nil {
			return nil, config.Usage(err)
		}
		s, err := r.(*textRunner).checkpointScorer(weights)
		if err != nil {
			return nil, err
		}
		return &TextPredictor{scorer: s}, nil
	}
}

// TextPredictor serves a text classifier over HTTP (core/serve). It is safe
// for concurrent use.
type TextPredictor struct {
	scorer *textScorer
}

// MaxServeText bounds a served text (bytes); longer ones are a 400, not a
// silent cut (the model reads only its first max_seq_len units anyway).
const MaxServeText = 1 << 20

// Predict classifies the text in in.Body. Invalid UTF-8 or an oversized
// text is the client's error (serve.BadInput).
func (p *TextPredictor) Predict(_ context.Context, in serve.Input) (any, error) {
	if len(in.Body) > MaxServeText {
		return nil, serve.BadInput(fmt.Errorf("text of %d bytes: the server takes at most %d", len(in.Body), MaxServeText))
	}
	if !utf8.Valid(in.Body) {
		return nil, serve.BadInput(errors.New("the body is not UTF-8 text"))
	}
	return p.scorer.Classify(strings.TrimSuffix(strings.TrimSuffix(string(in.Body), "\n"), "\r"))
}
