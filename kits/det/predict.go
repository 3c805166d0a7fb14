package det

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"paddle/core/config"
	"paddle/core/runtime"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Prediction is one image's detections (the jsonl line of `det predict`).
// A failed image's record is workflow.Failed: {"image", "error"}.
type Prediction struct {
	Image      string      `json:"image"`
	Detections []Detection `json:"detections"`
}

// Detection is one detected object: box corners in the image's pixels
// (integers), score rounded to 5 decimals.
type Detection struct {
	Label   string  `json:"label"`
	ClassID int     `json:"class_id"`
	Score   float64 `json:"score"`
	BBox    [4]int  `json:"bbox"` // x1, y1, x2, y2
}

// detector runs one collated image batch and returns detections per image
// in original pixels.
type detector func(b Batch) ([][]Det, error)

// Predict detects objects in image files with the checkpoint env.Weights or
// the export directory env.Model; with env.Output set it also draws each
// image's boxes into that folder.
func (r *runner) Predict(ctx context.Context, env workflow.Env, args []string) error {
	if env.Model != "" {
		return r.predictExport(ctx, env, args)
	}
	model, err := r.newModel()
	if err != nil {
		return err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return err
	}
	_, ops, err := r.inputSize()
	if err != nil {
		return err
	}
	p, err := buildPipeline(ReaderOpts{SampleTransforms: ops})
	if err != nil {
		return err
	}
	return predictFiles(ctx, env, args, p, r.labelNames(env.Weights), r.drawThresh, func(b Batch) ([][]Det, error) { return r.predict(model, b), nil })
}

// predictExport runs the export directory env.Model on core/runtime.
func (r *runner) predictExport(ctx context.Context, env workflow.Env, args []string) error {
	pr, cfg, err := workflow.ReadExport(env.Model, inferenceSchema(), runtime.Options{})
	if err != nil {
		return err
	}
	var pre exportPreProcess
	var post exportPostProcess
	if err := cfg.Decode("PreProcess", &pre); err != nil {
		return err
	}
	if err := cfg.Decode("PostProcess", &post); err != nil {
		return err
	}
	nms, err := withNMSDefaults(post.NMSOpts)
	if err != nil {
		return fmt.Errorf("%s: PostProcess.%w", filepath.Join(env.Model, workflow.ExportInferenceFile), err)
	}
	p, err := buildPipeline(ReaderOpts{SampleTransforms: pre.TransformOps})
	if err != nil {
		return err
	}
	in := pr.InputNames()[0]
	thresh := r.drawThresh
	if post.DrawThreshold != nil {
		thresh = *post.DrawThreshold
	}
	return predictFiles(ctx, env, args, p, post.LabelList, thresh, func(b Batch) ([][]Det, error) {
		res, err := pr.Run(map[string]*tensor.Tensor{in: b.X})
		if err != nil {
			return nil, err
		}
		scores, boxes := res["scores"], res["boxes"]
		if scores == nil || boxes == nil {
			return nil, fmt.Errorf("--model %s: the graph needs outputs scores and boxes, has %v", env.Model, pr.OutputNames())
		}
		s := scores.Shape()
		sc, bx := scores.Contiguous().F32(), boxes.Contiguous().F32()
		na, k := s[1], s[2]
		out := make([][]Det, s[0])
		for i := range s[0] {
			d := PostProcess(sc[i*na*k:(i+1)*na*k], bx[i*na*4:(i+1)*na*4], k, nms)
			out[i] = toOriginal(d, b.SX[i], b.SY[i], b.Sizes[i][0], b.Sizes[i][1])
		}
		return out, nil
	})
}

// predictFiles runs p and det on each input and prints a Prediction per
// image with the detections scored above thresh.
func predictFiles(ctx context.Context, env workflow.Env, args []string, p *pipeline, labels []string, thresh float64, det detector) error {
	inputs, err := env.Inputs(args, workflow.ImageExts)
	if err != nil {
		return config.Usage(err)
	}
	stems := workflow.OutputStems(inputs)
	if env.Output != "" {
		if err := os.MkdirAll(env.Output, 0o755); err != nil {
			return err
		}
	}
	name := func(c int) string {
		if c < len(labels) && labels[c] != "" {
			return labels[c]
		}
		return fmt.Sprint(c)
	}
	out := workflow.NewPrinter(env.IO.Out, env.Format, workflow.KeyImage, predictionLine)
	failed, err := workflow.RunOrdered(ctx, inputs, 1, func(_ context.Context, in workflow.Input) ([]Detection, error) {
		s := Sample{Path: in.Path, SX: 1, SY: 1}
		if err := loadSample(&s, p, rand.New(rand.NewPCG(0, 0))); err != nil {
			return nil, err
		}
		b, err := p.collate([]Sample{s})
		if err != nil {
			return nil, err
		}
		ds, err := det(b)
		if err != nil {
			return nil, err
		}
		res := make([]Detection, 0, len(ds[0]))
		for _, d := range ds[0] {
			if d.Score < thresh {
				continue
			}
			res = append(res, Detection{Label: name(d.Class), ClassID: d.Class, Score: math.Round(d.Score*1e5) / 1e5,
				BBox: [4]int{int(math.Round(d.Box[0])), int(math.Round(d.Box[1])), int(math.Round(d.Box[2])), int(math.Round(d.Box[3]))}})
		}
		if env.Output != "" {
			if err := drawFile(in.Path, filepath.Join(env.Output, stems[in.Path]+".png"), res); err != nil {
				return nil, err
			}
		}
		return res, nil
	}, workflow.PrintResults(out, func(res workflow.Result[[]Detection]) Prediction {
		return Prediction{Image: res.Input.Path, Detections: res.Value}
	}))
	return out.Finish(failed, len(inputs), err)
}

// predictionLine is the text form: one line per detection.
func predictionLine(p Prediction) string {
	if len(p.Detections) == 0 {
		return fmt.Sprintf("%s\t(no detections)\n", p.Image)
	}
	var b strings.Builder
	for _, d := range p.Detections {
		fmt.Fprintf(&b, "%s\t%s\t%.5f\t%d %d %d %d\n", p.Image, d.Label, d.Score, d.BBox[0], d.BBox[1], d.BBox[2], d.BBox[3])
	}
	return b.String()
}

// PredictRecord is `det predict`'s record, for --help (docs/formats.md).
const PredictRecord = `  {"image": string, "detections": [{"label": string, "class_id": int, "score": float, "bbox": [x1, y1, x2, y2]}, ...]}
  detections: those scored at least draw_threshold; bbox in the image's pixels (integers); score 5 decimals.
  failed: {"image": string, "error": string}`
