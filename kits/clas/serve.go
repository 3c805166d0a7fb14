package clas

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/serve"
	"paddle/core/workflow"
)

// Serve is the kit's Serve hook: `paddle serve clas --model DIR` serves an
// export (paddle clas export) on core/runtime, `--weights DIR` a checkpoint
// (with the config.yaml saved in it, or -c). A request is one image,
// answered with predict's record {"image", "topk"}.
func Serve(f *cmdutil.Factory, cmd *cobra.Command) func(context.Context) (serve.Predictor, error) {
	m := cmdutil.ServeModelFlags(cmd, "clas")
	cmd.Example = "  paddle serve clas --model inference/lcnet --addr 127.0.0.1:8080\n" +
		"  curl --data-binary @digit.png http://127.0.0.1:8080/v1/clas"
	return func(context.Context) (serve.Predictor, error) {
		if err := m.Check(); err != nil {
			return nil, err
		}
		cfg, err := m.Config(f)
		if err != nil {
			return nil, err
		}
		w, err := build(cfg)
		if err != nil {
			return nil, config.Usage(err)
		}
		c, err := w.(*runner).loadClassifier(workflow.Env{Weights: m.Weights, Model: m.Model})
		if err != nil {
			return nil, err
		}
		return servePredictor{c}, nil
	}
}

// servePredictor answers one image per request.
type servePredictor struct{ c *Classifier }

// Predict classifies the image in the body; one the decoder refuses
// (unreadable, over --max-pixels) is the client's error.
func (p servePredictor) Predict(_ context.Context, in serve.Input) (any, error) {
	s := Sample{Path: in.Name, File: in.Body}
	if err := p.c.prepare(&s); err != nil {
		return nil, serve.BadInput(fmt.Errorf("image: %w", err))
	}
	top, err := p.c.top(s)
	if err != nil {
		return nil, err
	}
	return Prediction{Image: in.Name, TopK: top}, nil
}

// Describe tells /openapi.json the input and record.
func (servePredictor) Describe() (string, any) { return serve.InputImage, Prediction{} }
