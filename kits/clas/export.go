package clas

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/graph/trace"
	"paddle/core/quant"
	"paddle/core/runtime"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Export and predict --model. `paddle clas export` traces the model in
// eval mode with a softmax on top (PaddleClas's exported models output
// probabilities) and a dynamic batch: input "x" (batch, C, H, W) with C, H,
// W from Global.image_shape, output "output" (batch, class_num). Its
// inference.yaml lists the transform ops predict runs, with the ones
// buildTransforms would imply written out (decode, resize to the input size,
// scale to [0, 1], CHW), and Topk with the class names.

// exportPreProcess is inference.yaml's PreProcess section.
type exportPreProcess struct {
	TransformOps []config.Component `yaml:"transform_ops"`
}

// exportPostProcess is inference.yaml's PostProcess section.
type exportPostProcess struct {
	Name      string   `yaml:"name"`
	Topk      int      `yaml:"topk"`
	LabelList []string `yaml:"label_list,omitempty"`
}

// inferenceSchema checks an export's inference.yaml.
func inferenceSchema() *config.Schema {
	return workflow.InferenceSchema((*exportPreProcess)(nil), (*exportPostProcess)(nil), transforms.Options(), "name")
}

var _ workflow.Exporter = (*runner)(nil)

// Export writes the checkpoint env.Weights as an export directory.
func (r *runner) Export(_ context.Context, env workflow.Env, dir string) error {
	model, err := r.newModel()
	if err != nil {
		return err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return err
	}
	c, h, w := r.global.ImageShape[0], r.global.ImageShape[1], r.global.ImageShape[2]
	spec := trace.InputSpec{Name: "x", Shape: []int{-1, c, h, w}, DimNames: []string{"batch"}}
	example := tensor.Rand(rand.New(rand.NewPCG(1, 1)), tensor.Float32, 0, 1, 2, c, h, w) // batch > 1: see trace's doc
	g, err := trace.Func(model, []trace.InputSpec{spec}, []*tensor.Tensor{example}, []string{"output"},
		func(xs []*ag.Var) []*ag.Var { return []*ag.Var{ag.Softmax(model.Forward(xs[0], false), -1)} })
	if err != nil {
		return fmt.Errorf("export %s: %w", r.arch.Name, err)
	}
	inf := &workflow.Inference{
		Global:      workflow.InferenceGlobal{ModelName: r.arch.Name},
		PreProcess:  map[string]any{"transform_ops": r.exportOps()},
		PostProcess: exportPostProcess{Name: "Topk", Topk: max(r.infer.PostProcess.Topk, 1), LabelList: r.labelNames()},
	}
	return workflow.WriteExport(dir, g, inf, r.cfg)
}

// exportOps returns predict's transform ops as inference.yaml lists them:
// the configured ones, with the steps buildTransforms implies added in the
// places it runs them.
func (r *runner) exportOps() []any {
	ops := r.predictOps()
	has := func(names ...string) bool {
		for _, c := range ops {
			for _, n := range names {
				if c.Name == n {
					return true
				}
			}
		}
		return false
	}
	c, h, w := r.global.ImageShape[0], r.global.ImageShape[1], r.global.ImageShape[2]
	var out []any
	if !has("DecodeImage") && c == 3 { // one channel: decoded grey, implied by the input's shape
		out = append(out, map[string]any{"DecodeImage": map[string]any{"to_rgb": true, "channel_first": false}})
	}
	for _, op := range ops {
		out = append(out, map[string]any{op.Name: op.Node})
	}
	if !has("ResizeImage", "CropImage", "RandCropImage") {
		out = append(out, map[string]any{"ResizeImage": map[string]any{"size": []int{w, h}}})
	}
	if !has("NormalizeImage") {
		mean, std := make([]float64, c), make([]float64, c)
		for i := range std {
			std[i] = 1
		}
		out = append(out, map[string]any{"NormalizeImage": map[string]any{"scale": 1.0 / 255, "mean": mean, "std": std, "order": ""}})
	}
	if !has("ToCHWImage") {
		out = append(out, map[string]any{"ToCHWImage": nil})
	}
	return out
}

// loadExport loads the export directory env.Model on core/runtime.
func (r *runner) loadExport(env workflow.Env) (*Classifier, error) {
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
		return nil, fmt.Errorf("%s: Inputs: want one image input (batch, C, H, W), got %v", file, inputs)
	}
	tr, err := buildTransforms(pre.TransformOps, GlobalOpts{ImageShape: inputs[0].Shape[1:]})
	if err != nil {
		return nil, err
	}
	name, out := inputs[0].Name, p.OutputNames()[0]
	return &Classifier{tr: tr, k: max(post.Topk, 1), labels: post.LabelList, input: name, classify: func(x *tensor.Tensor) ([]float32, error) {
		res, err := p.Run(map[string]*tensor.Tensor{name: x})
		if err != nil {
			return nil, err
		}
		return res[out].Contiguous().F32(), nil
	}}, nil
}

// CalibrationFeed is the kit's workflow.Calibrator (`export --quantize`):
// the images of calib (quant.Files), each transformed as predict --model
// dir transforms it.
func (r *runner) CalibrationFeed(dir, calib string, count int) (quant.Feed, int, error) {
	c, err := r.loadExport(workflow.Env{Model: dir})
	if err != nil {
		return nil, 0, err
	}
	return quant.FileFeed(calib, count, func(path string) (map[string]*tensor.Tensor, error) {
		s := Sample{Path: path}
		if err := c.prepare(&s); err != nil {
			return nil, err
		}
		return quant.Batch1(c.input, s.X), nil
	})
}
