package det

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/graph/trace"
	"paddle/core/quant"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Export and predict --model. `paddle det export` traces the model in eval
// mode for the TestReader's input size with a dynamic batch: input "image"
// (batch, 3, H, W), outputs "scores" (batch, A, K) (sigmoid class scores)
// and "boxes" (batch, A, 4) (x1, y1, x2, y2 in input pixels), A the anchor
// points of the three levels. Post-processing (threshold, NMS, top-k) stays
// out of the graph, in Go, with its settings in inference.yaml; so ONNX
// Runtime users get the same raw outputs and apply their own NMS.

// exportPreProcess is inference.yaml's PreProcess section.
type exportPreProcess struct {
	TransformOps []config.Component `yaml:"transform_ops"`
}

// exportPostProcess is inference.yaml's PostProcess section: the NMS
// settings and the class names.
type exportPostProcess struct {
	NMSOpts       `yaml:",inline"`
	DrawThreshold *float64 `yaml:"draw_threshold"` // predictions below it are not printed
	LabelList     []string `yaml:"label_list"`
}

// inferenceSchema checks an export's inference.yaml.
func inferenceSchema() *config.Schema {
	return workflow.InferenceSchema((*exportPreProcess)(nil), (*exportPostProcess)(nil), transforms.Options(), "name")
}

var (
	_ workflow.Exporter   = (*runner)(nil)
	_ workflow.Calibrator = (*runner)(nil)
)

// inputSize returns the (h, w) predict resizes to: TestReader's Resize,
// else EvalReader's.
func (r *runner) inputSize() ([2]int, []config.Component, error) {
	for _, rd := range []ReaderOpts{r.test, r.eval} {
		if len(rd.SampleTransforms) == 0 {
			continue
		}
		p, err := buildPipeline(rd)
		if err != nil {
			return [2]int{}, nil, err
		}
		if p.fixed[0] > 0 {
			return p.fixed, rd.SampleTransforms, nil
		}
	}
	return [2]int{}, nil, fmt.Errorf("%s: TestReader (or EvalReader) needs a Resize with target_size for predict and export", r.cfg.File)
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
	size, ops, err := r.inputSize()
	if err != nil {
		return err
	}
	h, w := size[0], size[1]
	anc := model.Head.AnchorsFor(h, w)
	spec := trace.InputSpec{Name: "image", Shape: []int{-1, 3, h, w}, DimNames: []string{"batch"}}
	example := tensor.Rand(rand.New(rand.NewPCG(1, 1)), tensor.Float32, -1, 1, 2, 3, h, w) // batch > 1: see trace's doc
	g, err := trace.Func(model, []trace.InputSpec{spec}, []*tensor.Tensor{example}, []string{"scores", "boxes"},
		func(xs []*ag.Var) []*ag.Var {
			out := model.Run(xs[0], false)
			return []*ag.Var{ag.Sigmoid(out.Cls), model.Head.Decode(out.Reg, anc)}
		})
	if err != nil {
		return fmt.Errorf("export PicoDet: %w", err)
	}
	var tops []any
	for _, c := range ops {
		tops = append(tops, map[string]any{c.Name: c.Node})
	}
	inf := &workflow.Inference{
		Global:      workflow.InferenceGlobal{ModelName: "PicoDet"},
		PreProcess:  map[string]any{"transform_ops": tops},
		PostProcess: exportPostProcess{NMSOpts: r.nms, DrawThreshold: &r.drawThresh, LabelList: r.labelNames(env.Weights)},
	}
	return workflow.WriteExport(dir, g, inf, r.cfg)
}

// labelNames returns the class names of TestDataset, EvalDataset or
// TrainDataset, whichever can be read first, else those that training
// saved beside the checkpoint weights (label_list.txt in its parent
// folder); nil when none.
func (r *runner) labelNames(weights string) []string {
	for _, c := range []config.Component{r.testDS, r.evalDS, r.trainDS} {
		if c.Name == "" {
			continue
		}
		if ds, err := openDataset(c); err == nil && len(ds.Classes) == r.numClasses {
			return ds.Classes
		}
	}
	if weights == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(filepath.Clean(weights)), labelListFile))
	if err != nil {
		return nil
	}
	names := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(names) != r.numClasses {
		return nil
	}
	return names
}

// labelListFile holds the class names, one a line, in a training output
// folder, so checkpoints name their classes when the data is not at hand.
const labelListFile = "label_list.txt"

// CalibrationFeed is the kit's workflow.Calibrator (`export --quantize`):
// the images of calib (quant.Files), each decoded and transformed as
// predict --model dir does.
func (r *runner) CalibrationFeed(dir, calib string, count int) (quant.Feed, int, error) {
	d, err := r.loadExport(workflow.Env{Model: dir})
	if err != nil {
		return nil, 0, err
	}
	return quant.FileFeed(calib, count, func(path string) (map[string]*tensor.Tensor, error) {
		img, err := data.DecodeFile(path, data.RGB)
		if err != nil {
			return nil, err
		}
		b, err := d.prepare(img)
		if err != nil {
			return nil, err
		}
		return map[string]*tensor.Tensor{d.input: b.X}, nil
	})
}
