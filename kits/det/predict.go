package det

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/runtime"
	"paddle/core/tensor"
	"paddle/core/vis"
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

// Detector is a loaded model that detects the objects of one image at a
// time: predict's per-image step and `paddle serve det`'s predictor. It is
// safe for concurrent use.
type Detector struct {
	p      *pipeline
	labels []string
	thresh float64
	det    detector
	input  string // the model input's name (an export's; "image" for a checkpoint)
}

// Predict detects objects in image files with the checkpoint env.Weights or
// the export directory env.Model; with env.Output set it also draws each
// image's boxes into that folder.
func (r *runner) Predict(ctx context.Context, env workflow.Env, args []string) error {
	d, err := r.loadDetector(env)
	if err != nil {
		return err
	}
	return predictFiles(ctx, env, args, d)
}

// loadDetector loads the export env.Model, else the checkpoint env.Weights.
func (r *runner) loadDetector(env workflow.Env) (*Detector, error) {
	if env.Model != "" {
		return r.loadExport(env)
	}
	model, err := r.newModel()
	if err != nil {
		return nil, err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return nil, err
	}
	_, ops, err := r.inputSize()
	if err != nil {
		return nil, err
	}
	p, err := buildPipeline(ReaderOpts{SampleTransforms: ops})
	if err != nil {
		return nil, err
	}
	// The autograd model keeps no per-call state it shares, but it was not
	// written for concurrent forwards: one at a time.
	var mu sync.Mutex
	return &Detector{p: p, labels: r.labelNames(env.Weights), thresh: r.drawThresh, input: "image", det: func(b Batch) ([][]Det, error) {
		mu.Lock()
		defer mu.Unlock()
		return r.predict(model, b), nil
	}}, nil
}

// loadExport loads the export directory env.Model on core/runtime.
func (r *runner) loadExport(env workflow.Env) (*Detector, error) {
	pr, cfg, err := workflow.ReadExport(env.Model, inferenceSchema(), runtime.Options{})
	if err != nil {
		return nil, err
	}
	var pre exportPreProcess
	var post exportPostProcess
	if err := cfg.Decode("PreProcess", &pre); err != nil {
		return nil, err
	}
	if err := cfg.Decode("PostProcess", &post); err != nil {
		return nil, err
	}
	nms, err := withNMSDefaults(post.NMSOpts)
	if err != nil {
		return nil, fmt.Errorf("%s: PostProcess.%w", filepath.Join(env.Model, workflow.ExportInferenceFile), err)
	}
	p, err := buildPipeline(ReaderOpts{SampleTransforms: pre.TransformOps})
	if err != nil {
		return nil, err
	}
	in := pr.InputNames()[0]
	thresh := r.drawThresh
	if post.DrawThreshold != nil {
		thresh = *post.DrawThreshold
	}
	return &Detector{p: p, labels: post.LabelList, thresh: thresh, input: in, det: func(b Batch) ([][]Det, error) {
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
	}}, nil
}

// Detect returns the detections scored at least the draw threshold in img
// (RGB, 3 channels), in its pixels.
func (d *Detector) Detect(img *data.Image) ([]Detection, error) {
	if img.C != 3 {
		return nil, fmt.Errorf("want a colour image, got %d channel(s)", img.C)
	}
	b, err := d.prepare(img)
	if err != nil {
		return nil, err
	}
	ds, err := d.det(b)
	if err != nil {
		return nil, err
	}
	name := func(c int) string {
		if c < len(d.labels) && d.labels[c] != "" {
			return d.labels[c]
		}
		return fmt.Sprint(c)
	}
	res := make([]Detection, 0, len(ds[0]))
	for _, x := range ds[0] {
		if x.Score < d.thresh {
			continue
		}
		res = append(res, Detection{Label: name(x.Class), ClassID: x.Class, Score: math.Round(x.Score*1e5) / 1e5,
			BBox: [4]int{int(math.Round(x.Box[0])), int(math.Round(x.Box[1])), int(math.Round(x.Box[2])), int(math.Round(x.Box[3]))}})
	}
	return res, nil
}

// prepare transforms img into a batch of one, the model's input.
func (d *Detector) prepare(img *data.Image) (Batch, error) {
	s := Sample{Img: img, SX: 1, SY: 1}
	if err := d.p.apply(&s, rand.New(rand.NewPCG(0, 0))); err != nil {
		return Batch{}, err
	}
	return d.p.collate([]Sample{s})
}

// predictFiles runs d on each input and prints a Prediction per image.
func predictFiles(ctx context.Context, env workflow.Env, args []string, d *Detector) error {
	inputs, err := env.Inputs(args, workflow.ImageExts)
	if err != nil {
		return config.Usage(err)
	}
	stems := workflow.OutputStems(inputs)
	var font *vis.Font
	if env.Output != "" {
		if err := os.MkdirAll(env.Output, 0o755); err != nil {
			return err
		}
		var warn string
		if font, warn = vis.LoadFont(""); warn != "" {
			slog.Warn("draw: " + warn)
		}
	}
	out := workflow.NewPrinter(env.IO.Out, env.Format, workflow.KeyImage, predictionLine)
	failed, err := workflow.RunOrdered(ctx, inputs, 1, func(_ context.Context, in workflow.Input) ([]Detection, error) {
		img, err := data.DecodeFile(in.Path, data.RGB)
		if err != nil {
			return nil, err
		}
		res, err := d.Detect(img)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.Path, err)
		}
		if env.Output != "" {
			if err := drawFile(in.Path, filepath.Join(env.Output, stems[in.Path]+".png"), res, font); err != nil {
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
