package rectrain

import (
	"context"
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/graph"
	"paddle/core/graph/trace"
	"paddle/core/quant"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Export. `paddle ocr export` traces the recogniser in eval mode with a
// softmax over the classes, transposed to PP-OCR's output layout: input "x"
// (batch, C, H, width) with C and H from RecResizeImg's image_shape and the
// batch and width dynamic, output "softmax" (batch, T, classes), T = the
// time steps the width gives. An imported network (Backbone ONNXModel) is
// written as the graph it was imported from, with the trained weights. The inference.yaml follows PaddleX's
// inference.yml for text recognition: the decode/resize/normalise steps as
// transform ops, CTCLabelDecode with the dictionary as character_dict (the
// blank is implied, a space class follows when use_space_char), so that
// `paddle ocr predict --rec-model DIR` runs it like PP-OCRv4's rec model.

// ExportPostProcess is the PostProcess section of a rec export's inference.yaml.
type ExportPostProcess struct {
	Name          string   `yaml:"name"`           // CTCLabelDecode
	CharacterDict []string `yaml:"character_dict"` // the dictionary, without blank and space
	UseSpaceChar  bool     `yaml:"use_space_char"` // a " " class after the dictionary (PaddleX: always)
}

// ExportResize is the RecResizeImg transform op of a rec export.
type ExportResize struct {
	ImageShape []int `yaml:"image_shape,flow"` // [C, H, W]: height H, batches at least W wide
}

// ExportOutput is the name of the exported graph's output.
const ExportOutput = "softmax"

var (
	_ workflow.Exporter   = (*runner)(nil)
	_ workflow.Calibrator = (*runner)(nil)
)

// exportPreProcess is the PreProcess section of a rec export's inference.yaml.
type exportPreProcess struct {
	TransformOps []config.Component `yaml:"transform_ops"`
}

// CalibrationFeed is the recogniser's workflow.Calibrator (`export
// --quantize`): the line images of calib (quant.Files), each run through
// the transform ops of dir's inference.yaml (decode, RecResizeImg: the
// Eval split's, which predict --weights runs) into a batch of one.
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
	tr, _, err := buildTransforms(pre.TransformOps, r.global, false)
	if err != nil {
		return nil, 0, err
	}
	return quant.FileFeed(calib, count, func(path string) (map[string]*tensor.Tensor, error) {
		s := Sample{Path: path}
		if _, err := tr.Apply(&s, rand.New(rand.NewPCG(0, 0))); err != nil {
			return nil, err
		}
		return quant.Batch1(inputs[0].Name, s.X), nil
	})
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
	shape, err := r.inputShape()
	if err != nil {
		return err
	}
	c, h, w := shape[0], shape[1], shape[2]
	var g *graph.Graph
	if im, ok := model.(*importedRec); ok {
		// the imported graph itself, with the trained weights
		if g, err = im.exportGraph(); err != nil {
			return err
		}
	} else {
		spec := trace.InputSpec{Name: "x", Shape: []int{-1, c, h, -1}, DimNames: []string{"batch", "", "", "width"}}
		// batch and width > 1 and not the trained width, so baked-in sizes fail the dynamic check
		ew := w + w/2
		if _, _, fixed := fixedInput(model); fixed {
			spec.Shape[3], spec.DimNames[3], ew = w, "", w
		}
		example := tensor.Rand(rand.New(rand.NewPCG(1, 1)), tensor.Float32, -1, 1, 2, c, h, ew)
		g, err = trace.Func(model, []trace.InputSpec{spec}, []*tensor.Tensor{example}, []string{ExportOutput},
			func(xs []*ag.Var) []*ag.Var { return []*ag.Var{exportHead(model.Forward(xs[0], false))} })
		if err != nil {
			return fmt.Errorf("export %s: %w", r.algorithm(), err)
		}
	}
	chars := r.dict.Chars[1:]
	space := len(chars) > 0 && chars[len(chars)-1] == " "
	if space {
		chars = chars[:len(chars)-1]
	}
	inf := &workflow.Inference{
		Global: workflow.InferenceGlobal{ModelName: r.algorithm()},
		PreProcess: map[string]any{"transform_ops": []any{
			map[string]any{"DecodeImage": map[string]any{"img_mode": "BGR", "channel_first": false}},
			map[string]any{"RecResizeImg": ExportResize{ImageShape: []int{c, h, w}}},
			map[string]any{"KeepKeys": map[string]any{"keep_keys": []string{"image"}}},
		}},
		PostProcess: ExportPostProcess{Name: "CTCLabelDecode", CharacterDict: chars, UseSpaceChar: space},
	}
	return workflow.WriteExport(dir, g, inf, r.cfg)
}

// exportHead turns logits (T, N, K) into class probabilities (N, T, K), the
// output PP-OCR's rec models give.
func exportHead(logits *ag.Var) *ag.Var {
	return ag.Transpose(ag.Softmax(logits, -1), 1, 0, 2)
}

// inputShape is the [C, H, W] the Eval (else Train) split's RecResizeImg makes.
func (r *runner) inputShape() ([]int, error) {
	for _, s := range []*SplitOpts{r.eval, r.train} {
		if s == nil {
			continue
		}
		var o SimpleDataSetOpts
		if err := decodeNamed(s.Dataset, "SimpleDataSet", &o); err != nil {
			return nil, err
		}
		_, shape, err := buildTransforms(o.Transforms, r.global, false)
		if err != nil {
			return nil, err
		}
		if len(shape) == 3 {
			if shape[0] != 3 {
				return nil, fmt.Errorf("%s: export: RecResizeImg image_shape %v: only 3-channel (BGR) models export", r.cfg.File, shape)
			}
			return shape, nil
		}
	}
	return nil, fmt.Errorf("%s: export: no RecResizeImg with an image_shape in Eval or Train transforms", r.cfg.File)
}

// algorithm is Architecture.algorithm (CRNN by default).
func (r *runner) algorithm() string {
	if r.arch.Algorithm == "" {
		return "CRNN"
	}
	return r.arch.Algorithm
}
