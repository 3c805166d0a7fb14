package det

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/data"
	"paddle/core/serve"
	"paddle/core/workflow"
)

// Serve is the kit's Serve hook: `paddle serve det --model DIR` serves an
// export (paddle det export) on core/runtime, `--weights DIR` a checkpoint
// (with the config.yaml saved in it, or -c). A request is one image,
// answered with predict's record {"image", "detections"}.
func Serve(f *cmdutil.Factory, cmd *cobra.Command) func(context.Context) (serve.Predictor, error) {
	m := cmdutil.ServeModelFlags(cmd, "det")
	cmd.Example = "  paddle serve det --model inference/picodet --addr 127.0.0.1:8080\n" +
		"  curl --data-binary @street.jpg http://127.0.0.1:8080/v1/det"
	return func(context.Context) (serve.Predictor, error) {
		if err := m.Check(); err != nil {
			return nil, err
		}
		r, _, err := runnerFor(f, m.Weights, m.Model)
		if err != nil {
			return nil, err
		}
		d, err := r.loadDetector(workflow.Env{Weights: m.Weights, Model: m.Model})
		if err != nil {
			return nil, err
		}
		return servePredictor{d}, nil
	}
}

// servePredictor answers one image per request with predict's record.
type servePredictor struct{ d *Detector }

// Predict decodes the image (an unreadable one, or one over --max-pixels,
// is the client's error) and detects its objects.
func (p servePredictor) Predict(_ context.Context, in serve.Input) (any, error) {
	img, err := data.Decode(in.Body, data.RGB)
	if err != nil {
		return nil, serve.BadInput(fmt.Errorf("image: %w", err))
	}
	if img.C != 3 {
		return nil, serve.BadInput(fmt.Errorf("image: want a colour image, got %d channel(s)", img.C))
	}
	res, err := p.d.Detect(img)
	if err != nil {
		return nil, err
	}
	return Prediction{Image: in.Name, Detections: res}, nil
}

// Describe tells /openapi.json the input and record.
func (servePredictor) Describe() (string, any) { return serve.InputImage, Prediction{} }
