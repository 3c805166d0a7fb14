package dettrain

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/quant"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Export and predict. `paddle ocr export` traces the DB network in eval mode
// (input "x" (batch, 3, height, width), all three dynamic, height and width
// multiples of 32 (see traceDynamic); output "output", the probability map
// (batch, 1, height, width)); `paddle ocr predict --det-model DIR` runs it
// with PP-OCR's DetResizeForTest / NormalizeImage preprocessing and DB
// post-process. inference.yaml lists those steps in PaddleX's layout.

// exportPreProcess is inference.yaml's PreProcess section.
type exportPreProcess struct {
	TransformOps []config.Component `yaml:"transform_ops"`
}

// ExportPostProcess is inference.yaml's PostProcess section (PaddleX's DBPostProcess keys).
type ExportPostProcess struct {
	Name          string  `yaml:"name"`
	Thresh        float64 `yaml:"thresh"`
	BoxThresh     float64 `yaml:"box_thresh"`
	MaxCandidates int     `yaml:"max_candidates"`
	UnclipRatio   float64 `yaml:"unclip_ratio"`
	UseDilation   bool    `yaml:"use_dilation"`
	ScoreMode     string  `yaml:"score_mode"`
	BoxType       string  `yaml:"box_type"`
}

var (
	_ workflow.Exporter   = (*runner)(nil)
	_ workflow.Calibrator = (*runner)(nil)
)

// Export writes the checkpoint env.Weights as an export directory.
func (r *runner) Export(_ context.Context, env workflow.Env, dir string) error {
	model, err := r.newModel()
	if err != nil {
		return err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return err
	}
	g, err := traceDynamic(model)
	if err != nil {
		return fmt.Errorf("export DB: %w", err)
	}
	score := "fast"
	if r.post.SlowScore {
		score = "slow"
	}
	inf := &workflow.Inference{
		Global:     workflow.InferenceGlobal{ModelName: "DB"},
		PreProcess: map[string]any{"transform_ops": r.exportOps()},
		PostProcess: ExportPostProcess{Name: "DBPostProcess", Thresh: shortest(r.post.Thresh), BoxThresh: r.post.BoxThresh,
			MaxCandidates: r.post.MaxCandidates, UnclipRatio: r.post.UnclipRatio, UseDilation: r.post.UseDilation,
			ScoreMode: score, BoxType: "quad"},
	}
	return workflow.WriteExport(dir, g, inf, r.cfg)
}

// CalibrationFeed is the detector's workflow.Calibrator (`export
// --quantize`): the images of calib (quant.Files), each run through the
// transform ops of dir's inference.yaml (the Eval split's, which predict
// --weights runs) into a batch of one.
func (r *runner) CalibrationFeed(dir, calib string, count int) (quant.Feed, int, error) {
	cfg, err := workflow.ReadInference(dir, nil)
	if err != nil {
		return nil, 0, err
	}
	var pre exportPreProcess
	var post ExportPostProcess
	inputs, err := workflow.DecodeInference(cfg, &pre, &post)
	if err != nil {
		return nil, 0, err
	}
	if len(inputs) != 1 {
		return nil, 0, fmt.Errorf("%s: Inputs: want one image input, got %v", cfg.File, inputs)
	}
	tr, err := buildTransforms(pre.TransformOps, false)
	if err != nil {
		return nil, 0, err
	}
	return quant.FileFeed(calib, count, func(path string) (map[string]*tensor.Tensor, error) {
		s := Sample{Path: path}
		if _, err := tr.Apply(&s, rand.New(rand.NewPCG(0, 0))); err != nil {
			return nil, err
		}
		b, err := collate([]Sample{s}, false)
		if err != nil {
			return nil, err
		}
		return map[string]*tensor.Tensor{inputs[0].Name: b.X}, nil
	})
}

// evalResize is the Eval split's DetResizeForTest arguments, else
// PaddleOCR's inference default (limit_side_len 960, limit_type max).
func (r *runner) evalResize() map[string]any {
	def := map[string]any{"limit_side_len": 960, "limit_type": "max"}
	if r.eval == nil {
		return def
	}
	var o SimpleDataSetOpts
	if r.eval.Dataset.Decode(&o) != nil {
		return def
	}
	for _, c := range o.Transforms {
		var v map[string]any
		if c.Name == "DetResizeForTest" && c.Decode(&v) == nil && len(v) > 0 {
			return v
		}
	}
	return def
}

// exportOps lists the Eval split's image transforms (label steps left out;
// a DetResizeForTest added when the split has none), or PaddleOCR's
// inference defaults when there is no Eval section.
func (r *runner) exportOps() []map[string]any {
	resize := map[string]any{"DetResizeForTest": r.evalResize()}
	ops := []map[string]any{
		{"DecodeImage": map[string]any{"img_mode": "BGR", "channel_first": false}},
		resize,
		{"NormalizeImage": map[string]any{"scale": "1./255.", "mean": []float64{0.485, 0.456, 0.406}, "std": []float64{0.229, 0.224, 0.225}, "order": "hwc"}},
		{"ToCHWImage": nil},
		{"KeepKeys": map[string]any{"keep_keys": []string{"image", "shape"}}},
	}
	if r.eval == nil {
		return ops
	}
	var o SimpleDataSetOpts
	if r.eval.Dataset.Decode(&o) != nil {
		return ops
	}
	var out []map[string]any
	resized := false
	for _, c := range o.Transforms {
		if _, ok := trainingOnly.Get(c.Name); ok {
			continue
		}
		if c.Name == "DetResizeForTest" {
			resized = true
		} else if c.Name == "NormalizeImage" && !resized {
			out, resized = append(out, resize), true
		}
		var v map[string]any
		if c.Decode(&v) != nil {
			v = nil
		}
		out = append(out, map[string]any{c.Name: v})
	}
	return append(out, map[string]any{"KeepKeys": map[string]any{"keep_keys": []string{"image", "shape"}}})
}

// trainingOnly are the eval transforms an export's PreProcess leaves out:
// label making and augmentation (and KeepKeys, which it writes itself).
var trainingOnly = config.NameSet("DetLabelEncode", "MakeBorderMap", "MakeShrinkMap", "IaaAugment", "EastRandomCropData", "KeepKeys")

// Prediction is one image's detected boxes; a failed image's record is
// workflow.Failed: {"image", "error"}.
type Prediction struct {
	Image string      `json:"image"`
	Boxes []Detection `json:"boxes"`
}

// Detection is one text quad (integer pixel corners) and its score.
type Detection struct {
	Points [4][2]int `json:"points"`
	Score  float64   `json:"score"`
}

// Predict detects text in images with the checkpoint env.Weights, using the
// Eval split's image transforms.
func (r *runner) Predict(ctx context.Context, env workflow.Env, args []string) error {
	model, err := r.newModel()
	if err != nil {
		return err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return err
	}
	split := r.eval
	if split == nil {
		return fmt.Errorf("%s: no Eval transforms to preprocess with", r.cfg.File)
	}
	var o SimpleDataSetOpts
	if err := split.Dataset.Decode(&o); err != nil {
		return err
	}
	tr, err := buildTransforms(o.Transforms, false)
	if err != nil {
		return err
	}
	inputs, err := env.Inputs(args, workflow.ImageExts)
	if err != nil {
		return config.Usage(err)
	}
	out := workflow.NewPrinter(env.IO.Out, env.Format, workflow.KeyImage, func(p Prediction) string {
		return fmt.Sprintf("%s\t%d boxes\t%v\n", p.Image, len(p.Boxes), p.Boxes)
	})
	failed, err := workflow.RunOrdered(ctx, inputs, 1, func(_ context.Context, in workflow.Input) (Prediction, error) {
		s := Sample{Path: in.Path}
		if _, err := tr.Apply(&s, rand.New(rand.NewPCG(0, 0))); err != nil {
			return Prediction{}, err
		}
		b, err := collate([]Sample{s}, false)
		if err != nil {
			return Prediction{}, err
		}
		var p Prediction
		ag.NoGrad(func() {
			prob := model.Forward(ag.Const(b.X), false).T
			pv := prob.Contiguous().F32()
			h, w := prob.Dim(2), prob.Dim(3)
			boxes, scores := r.post.Boxes(matF(pv, h, w), b.SrcW[0], b.SrcH[0])
			for i, bx := range boxes {
				var d Detection
				for k, q := range bx {
					d.Points[k] = [2]int{int(q.X), int(q.Y)}
				}
				d.Score = math.Round(scores[i]*1e5) / 1e5
				p.Boxes = append(p.Boxes, d)
			}
		})
		return p, nil
	}, workflow.PrintResults(out, func(res workflow.Result[Prediction]) Prediction {
		p := res.Value
		p.Image = res.Input.Path
		if p.Boxes == nil {
			p.Boxes = []Detection{}
		}
		return p
	}))
	return out.Finish(failed, len(inputs), err)
}

// shortest is x as the float64 with the shortest decimal form that rounds to
// it (0.3, not 0.30000001192092896), for inference.yaml.
func shortest(x float32) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
	return v
}
