package seg

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image/png"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/serve"
	"paddle/core/workflow"
)

// Serve is the kit's Serve hook: `paddle serve seg --model DIR` serves an
// export (paddle seg export) on core/runtime, `--weights DIR` a checkpoint
// (with the config.yaml saved in it, or -c). A request is one image,
// answered with predict's record, whose label_map is the palette PNG itself
// as a data: URL (predict writes it to a file).
func Serve(f *cmdutil.Factory, cmd *cobra.Command) func(context.Context) (serve.Predictor, error) {
	m := cmdutil.ServeModelFlags(cmd, "seg")
	cmd.Example = "  paddle serve seg --model inference/unet --addr 127.0.0.1:8080\n" +
		"  curl --data-binary @scene.png http://127.0.0.1:8080/v1/seg"
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
		sg, err := w.(*runner).loadSegmenter(workflow.Env{Weights: m.Weights, Model: m.Model})
		if err != nil {
			return nil, err
		}
		return servePredictor{sg}, nil
	}
}

// servePredictor answers one image per request.
type servePredictor struct{ sg *Segmenter }

// Predict decodes the image (an unreadable one, or one over --max-pixels,
// is the client's error) and segments it.
func (p servePredictor) Predict(_ context.Context, in serve.Input) (any, error) {
	img, err := data.Decode(in.Body, data.RGB)
	if err != nil {
		return nil, serve.BadInput(fmt.Errorf("image: %w", err))
	}
	pred, classes, err := p.sg.Segment(img)
	if err != nil {
		return nil, err
	}
	rec, lm := summarize(img, pred, classes, p.sg.labels)
	rec.Image = in.Name
	var b bytes.Buffer
	if err := png.Encode(&b, lm); err != nil {
		return nil, fmt.Errorf("encode label map: %w", err)
	}
	rec.LabelMap = "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
	return rec, nil
}

// Describe tells /openapi.json the input and record.
func (servePredictor) Describe() (string, any) { return serve.InputImage, Prediction{} }
