package helix

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

// Serve is the kit's Serve hook: `paddle serve helix --model DIR` serves an
// export (paddle helix export) on core/runtime, `--weights DIR` a checkpoint
// (with the config.yaml saved in it, or -c). A request is one SMILES (the
// body, or JSON {"text": ...}), answered with predict's record {"smiles",
// "canonical", "predictions"}.
func Serve(f *cmdutil.Factory, cmd *cobra.Command) func(context.Context) (serve.Predictor, error) {
	m := cmdutil.ServeModelFlags(cmd, "helix")
	cmd.Example = "  paddle serve helix --model inference/gin --addr 127.0.0.1:8080\n" +
		"  curl --data-binary 'CCO' http://127.0.0.1:8080/v1/helix"
	return func(context.Context) (serve.Predictor, error) {
		if err := m.Check(); err != nil {
			return nil, err
		}
		if m.Model != "" && f.Settings.Config == "" {
			mp, err := loadExport(m.Model) // the export's inference.yaml says everything
			if err != nil {
				return nil, err
			}
			return servePredictor{mp}, nil
		}
		if m.Model != "" {
			return nil, cmdutil.FlagErrorf("--model %s: an export carries its own inference.yaml; -c goes with --weights", m.Model)
		}
		cfg, err := m.Config(f)
		if err != nil {
			return nil, err
		}
		r, err := build(cfg)
		if err != nil {
			return nil, config.Usage(err)
		}
		mp, err := r.(*runner).loadCheckpoint(m.Weights)
		if err != nil {
			return nil, err
		}
		return servePredictor{mp}, nil
	}
}

// MaxServeSMILES bounds a served SMILES (bytes).
const MaxServeSMILES = 64 << 10

// servePredictor answers one SMILES per request.
type servePredictor struct{ mp *molPredictor }

// Predict parses the SMILES in the body (surrounding white space dropped);
// one that does not parse is the client's error.
func (p servePredictor) Predict(_ context.Context, in serve.Input) (any, error) {
	if len(in.Body) > MaxServeSMILES {
		return nil, serve.BadInput(fmt.Errorf("SMILES of %d bytes: the server takes at most %d", len(in.Body), MaxServeSMILES))
	}
	if !utf8.Valid(in.Body) {
		return nil, serve.BadInput(errors.New("the body is not UTF-8 text"))
	}
	s := strings.TrimSpace(string(in.Body))
	if s == "" {
		return nil, serve.BadInput(errors.New("empty SMILES"))
	}
	rec, parseErr, err := p.mp.predictOne(s)
	if parseErr != nil {
		return nil, serve.BadInput(fmt.Errorf("SMILES %q: %w", s, parseErr))
	}
	return rec, err
}

// Describe tells /openapi.json the input and record.
func (servePredictor) Describe() (string, any) { return serve.InputSMILES, Prediction{} }
