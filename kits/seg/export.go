package seg

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/graph/trace"
	"paddle/core/quant"
	"paddle/core/runtime"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Export and predict --model. `paddle seg export` traces the model in eval
// mode for a fixed image size (export.input_shape [N, 3, H, W], else the
// val Resize target_size, else test_config.crop_size; a dynamic batch): input
// "x" (batch, 3, H, W), output "output" the logits (batch, classes, H, W).
// inference.yaml lists Resize to that size and the Normalize of the val
// transforms; predict resizes the logits back to each image's size before
// the argmax, as `predict --weights` does.

// exportPreProcess is inference.yaml's PreProcess section.
type exportPreProcess struct {
	TransformOps []config.Component `yaml:"transform_ops"`
}

// exportPostProcess is inference.yaml's PostProcess section.
type exportPostProcess struct {
	Name      string   `yaml:"name"` // SegArgmax
	LabelList []string `yaml:"label_list,omitempty"`
}

// inferenceSchema checks an export's inference.yaml.
func inferenceSchema() *config.Schema {
	return workflow.InferenceSchema((*exportPreProcess)(nil), (*exportPostProcess)(nil), transforms.Options(), "type")
}

var (
	_ workflow.Exporter   = (*runner)(nil)
	_ workflow.Calibrator = (*runner)(nil)
)

// exportSize returns the traced image size (h, w).
func (r *runner) exportSize() (int, int, error) {
	if s := r.export.InputShape; len(s) == 4 && s[2] > 0 && s[3] > 0 {
		return s[2], s[3], nil
	}
	for _, c := range r.valOptions.Transforms {
		if c.Name == "Resize" {
			o := ResizeOpts{TargetSize: []int{512, 512}}
			if err := c.Decode(&o); err == nil && len(o.TargetSize) == 2 {
				return o.TargetSize[1], o.TargetSize[0], nil
			}
		}
	}
	if len(r.test.CropSize) == 2 {
		return r.test.CropSize[1], r.test.CropSize[0], nil
	}
	return 0, 0, fmt.Errorf("%s: export needs an image size: set export.input_shape [-1, 3, H, W] (or a Resize in val_dataset.transforms)", r.cfg.File)
}

// Export writes the checkpoint env.Weights as an export directory.
func (r *runner) Export(_ context.Context, env workflow.Env, dir string) error {
	model, err := r.newModel()
	if err != nil {
		return err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return err
	}
	h, w, err := r.exportSize()
	if err != nil {
		return err
	}
	spec := trace.InputSpec{Name: "x", Shape: []int{-1, 3, h, w}, DimNames: []string{"batch"}}
	example := tensor.Rand(rand.New(rand.NewPCG(1, 1)), tensor.Float32, -1, 1, 2, 3, h, w) // batch > 1: see trace's doc
	g, err := trace.Func(model, []trace.InputSpec{spec}, []*tensor.Tensor{example}, []string{"output"},
		func(xs []*ag.Var) []*ag.Var { return []*ag.Var{model.Logits(xs[0], false)[0]} })
	if err != nil {
		return fmt.Errorf("export %s: %w", r.model.Name, err)
	}
	norm := map[string]any{"type": "Normalize", "mean": []float64{0.5, 0.5, 0.5}, "std": []float64{0.5, 0.5, 0.5}}
	for _, c := range r.valOptions.Transforms {
		if c.Name == "Normalize" {
			o := NormalizeOpts{Mean: []float64{0.5, 0.5, 0.5}, Std: []float64{0.5, 0.5, 0.5}}
			if err := c.Decode(&o); err != nil {
				return err
			}
			norm["mean"], norm["std"] = o.Mean, o.Std
		}
	}
	inf := &workflow.Inference{
		Global: workflow.InferenceGlobal{ModelName: r.model.Name},
		PreProcess: map[string]any{"transform_ops": []any{
			map[string]any{"type": "Resize", "target_size": []int{w, h}}, norm,
		}},
		PostProcess: exportPostProcess{Name: "SegArgmax", LabelList: r.labelNames()},
	}
	return workflow.WriteExport(dir, g, inf, r.cfg)
}

// loadExport loads the export directory env.Model on core/runtime.
func (r *runner) loadExport(env workflow.Env) (*Segmenter, error) {
	p, cfg, err := workflow.ReadExport(env.Model, inferenceSchema(), runtime.Options{})
	if err != nil {
		return nil, err
	}
	var pre exportPreProcess
	var post exportPostProcess
	inputs, err := workflow.DecodeInference(cfg, &pre, &post)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(env.Model, workflow.ExportInferenceFile)
	if len(inputs) != 1 || len(inputs[0].Shape) != 4 {
		return nil, fmt.Errorf("%s: Inputs: want one image input (batch, 3, H, W), got %v", file, inputs)
	}
	tr, err := buildTransforms(pre.TransformOps)
	if err != nil {
		return nil, err
	}
	name, out := inputs[0].Name, p.OutputNames()[0]
	return &Segmenter{tr: tr, labels: post.LabelList, input: name, segment: func(x *tensor.Tensor) (*tensor.Tensor, error) {
		res, err := p.Run(map[string]*tensor.Tensor{name: x})
		if err != nil {
			return nil, err
		}
		return res[out].Cast(tensor.Float32).Contiguous(), nil
	}}, nil
}

// CalibrationFeed is the kit's workflow.Calibrator (`export --quantize`):
// the images of calib (quant.Files), each decoded and transformed as
// predict --model dir does.
func (r *runner) CalibrationFeed(dir, calib string, count int) (quant.Feed, int, error) {
	sg, err := r.loadExport(workflow.Env{Model: dir})
	if err != nil {
		return nil, 0, err
	}
	return quant.FileFeed(calib, count, func(path string) (map[string]*tensor.Tensor, error) {
		img, err := data.DecodeFile(path, data.RGB)
		if err != nil {
			return nil, err
		}
		x, err := sg.prepare(img)
		if err != nil {
			return nil, err
		}
		return map[string]*tensor.Tensor{sg.input: x}, nil
	})
}
