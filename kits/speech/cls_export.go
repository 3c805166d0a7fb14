package speech

import (
	"context"
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/graph/trace"
	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Export of an audio classifier: model.onnx takes "x" (batch, 1, T, F)
// log-mel windows and gives "output" (batch, classes) softmax
// probabilities; inference.yaml says how to get x from audio and how to
// combine the windows of a file:
//
//	PreProcess: {transform_ops: [{LoadAudio: {sample_rate, clip_seconds}},
//	                             {KaldiFbank: {num_mel_bins, frame_length, ..., cmn}}]}
//	PostProcess: {name: ClsPostProcess, label_list: [...], window_hop: 0.5, short_clips: repeat}
//
// The fbank (and CMN) runs over the whole file; windows of clip_seconds are
// cut every window_hop of a window (the last one flush with the end), a
// file shorter than one window is repeated to fill it, and the file's
// probabilities are the mean over its windows.

// clsPostProcessName names the classification post-process in inference.yaml.
const clsPostProcessName = "ClsPostProcess"

type clsPostProcess struct {
	Name       string   `yaml:"name"`
	LabelList  []string `yaml:"label_list"`
	WindowHop  float64  `yaml:"window_hop"`  // windows every window_hop × window (0.5)
	ShortClips string   `yaml:"short_clips"` // "repeat"
}

func clsInferenceSchema() *config.Schema {
	return workflow.InferenceSchema((*kwsPreProcess)(nil), (*clsPostProcess)(nil), clipTransforms(), "name")
}

var _ workflow.Exporter = (*clsRunner)(nil)

// Export writes the checkpoint env.Weights as an export directory.
func (r *clsRunner) Export(_ context.Context, env workflow.Env, dir string) error {
	model, err := r.newModel()
	if err != nil {
		return err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return err
	}
	z := r.featurizer()
	spec := trace.InputSpec{Name: "x", Shape: []int{-1, 1, z.win, z.mels}, DimNames: []string{"batch"}}
	example := tensor.Rand(rand.New(rand.NewPCG(1, 1)), tensor.Float32, -1, 1, 2, 1, z.win, z.mels) // batch > 1: see trace's doc
	g, err := trace.Func(model, []trace.InputSpec{spec}, []*tensor.Tensor{example}, []string{"output"},
		func(xs []*ag.Var) []*ag.Var { return []*ag.Var{ag.Softmax(model.Forward(xs[0], false), -1)} })
	if err != nil {
		return fmt.Errorf("export %s: %w", r.arch.Name, err)
	}
	inf := &workflow.Inference{
		Global: workflow.InferenceGlobal{ModelName: r.arch.Name},
		PreProcess: map[string]any{"transform_ops": []any{
			map[string]any{"LoadAudio": LoadAudioOpts{SampleRate: r.global.SampleRate, ClipSeconds: r.global.ClipSeconds}},
			map[string]any{"KaldiFbank": r.feat},
		}},
		PostProcess: clsPostProcess{Name: clsPostProcessName, LabelList: r.classes, WindowHop: 0.5, ShortClips: "repeat"},
	}
	return workflow.WriteExport(dir, g, inf, r.cfg)
}

// isClsExport reports whether the export directory dir holds an audio
// classifier (its inference.yaml's PostProcess is ClsPostProcess).
func isClsExport(dir string) bool {
	return exportPostProcess(dir) == clsPostProcessName
}

// loadExportClassifier reads an export directory for predict --model.
func loadExportClassifier(dir string) (*audioClassifier, error) {
	var post clsPostProcess
	x, err := readClipExport(dir, clsInferenceSchema(), &post)
	if err != nil {
		return nil, err
	}
	p, file, inputs, load, feat := x.predictor, x.file, x.inputs, x.load, x.feat
	if len(post.LabelList) == 0 {
		return nil, fmt.Errorf("%s: PostProcess.label_list is empty", file)
	}
	if post.WindowHop != 0 && post.WindowHop != 0.5 || post.ShortClips != "" && post.ShortClips != "repeat" {
		return nil, fmt.Errorf("%s: PostProcess: only window_hop 0.5 and short_clips repeat are supported", file)
	}
	z := newClsFeaturizer(KWSGlobal{SampleRate: load.SampleRate, ClipSeconds: load.ClipSeconds}, *feat)
	if inputs[0].Shape[2] != z.win || inputs[0].Shape[3] != z.mels {
		return nil, fmt.Errorf("%s: Inputs %v do not match the PreProcess features (%d frames x %d bins)", file, inputs[0].Shape, z.win, z.mels)
	}
	name, out := inputs[0].Name, p.OutputNames()[0]
	return &audioClassifier{z: z, classes: post.LabelList,
		classify: func(x *tensor.Tensor) ([]float32, error) {
			res, err := p.Run(map[string]*tensor.Tensor{name: x})
			if err != nil {
				return nil, err
			}
			return res[out].Contiguous().F32(), nil
		}}, nil
}

// classifierFor loads the checkpoint or export env names.
func (r *clsRunner) classifierFor(env workflow.Env) (*audioClassifier, error) {
	if env.Model != "" {
		return loadExportClassifier(env.Model)
	}
	model, err := r.newModel()
	if err != nil {
		return nil, err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return nil, err
	}
	return &audioClassifier{z: r.featurizer(), classes: r.classes, classify: eagerClassifier(model)}, nil
}

func eagerClassifier(model nn.Layer) func(*tensor.Tensor) ([]float32, error) {
	return func(x *tensor.Tensor) ([]float32, error) {
		var probs []float32
		ag.NoGrad(func() {
			probs = ag.Softmax(model.Forward(ag.Const(x), false), -1).T.Contiguous().F32()
		})
		return probs, nil
	}
}
