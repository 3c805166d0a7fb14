package speech

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/graph/trace"
	"paddle/core/nn"
	"paddle/core/runtime"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Export and predict --model. `paddle speech export` traces the model in
// eval mode with a softmax on top and a dynamic batch: input "x" (batch, 1,
// T, F) log-mel frames, output "output" (batch, classes). inference.yaml
// says how to make x from audio:
//
//	PreProcess: {transform_ops: [{LoadAudio: {sample_rate, clip_seconds}},
//	                             {KaldiFbank: {num_mel_bins, frame_length, ..., cmn}}]}
//	PostProcess: {name: KWSPostProcess, label_list: [...], window_hop_ms: 100}

// LoadAudioOpts is the export's audio step: mono, resampled, windows of
// clip_seconds (a shorter file centred and zero-padded).
type LoadAudioOpts struct {
	SampleRate  int     `yaml:"sample_rate"`
	ClipSeconds float64 `yaml:"clip_seconds"`
}

type kwsPreProcess struct {
	TransformOps []config.Component `yaml:"transform_ops"`
}

type kwsPostProcess struct {
	Name        string   `yaml:"name"`
	LabelList   []string `yaml:"label_list"`
	WindowHopMs float64  `yaml:"window_hop_ms"`
	// TestWarps and TestCombine are the checkpoint's Infer setting
	// (kws_infer.go), which predict --model and kws --model apply.
	TestWarps   []float64 `yaml:"test_warps,omitempty"`
	TestCombine string    `yaml:"test_combine,omitempty"`
}

func kwsInferenceSchema() *config.Schema {
	return workflow.InferenceSchema((*kwsPreProcess)(nil), (*kwsPostProcess)(nil), clipTransforms(), "name")
}

var _ workflow.Exporter = (*kwsRunner)(nil)

// Export writes the checkpoint env.Weights as an export directory.
func (r *kwsRunner) Export(_ context.Context, env workflow.Env, dir string) error {
	model, err := r.newModel()
	if err != nil {
		return err
	}
	if err := r.loadWeights(env.Weights, model); err != nil {
		return err
	}
	ens, err := r.loadEnsemble()
	if err != nil {
		return err
	}
	models := kwsEnsemble(append([]nn.Layer{model}, ens...))
	if err := checkTestWarps(r.infer.TestWarps, r.infer.TestCombine); err != nil {
		return fmt.Errorf("%s: Infer: %w", r.cfg.File, err)
	}
	z := r.featurizer()
	t, f := z.frames(), r.feat.NumMelBins
	spec := trace.InputSpec{Name: "x", Shape: []int{-1, 1, t, f}, DimNames: []string{"batch"}}
	example := tensor.Rand(rand.New(rand.NewPCG(1, 1)), tensor.Float32, -1, 1, 2, 1, t, f) // batch > 1: see trace's doc
	g, err := trace.Func(models, []trace.InputSpec{spec}, []*tensor.Tensor{example}, []string{"output"},
		func(xs []*ag.Var) []*ag.Var { return []*ag.Var{models.probs(xs[0])} })
	if err != nil {
		return fmt.Errorf("export %s: %w", r.arch.Name, err)
	}
	inf := &workflow.Inference{
		Global: workflow.InferenceGlobal{ModelName: r.arch.Name},
		PreProcess: map[string]any{"transform_ops": []any{
			map[string]any{"LoadAudio": LoadAudioOpts{SampleRate: r.global.SampleRate, ClipSeconds: r.global.ClipSeconds}},
			map[string]any{"KaldiFbank": r.feat},
		}},
		PostProcess: kwsPostProcess{Name: "KWSPostProcess", LabelList: r.classes, WindowHopMs: 100,
			TestWarps: r.infer.TestWarps, TestCombine: r.infer.TestCombine},
	}
	return workflow.WriteExport(dir, g, inf, r.cfg)
}

// kwsEnsemble is --weights' model and the Global.ensemble models as one
// module for export: its output is their mean softmax row. Parameters are
// named m0.<name>, m1.<name>, ... (one model: its own names).
type kwsEnsemble []nn.Layer

func (e kwsEnsemble) parts() []any {
	var out []any
	for i, m := range e {
		out = append(out, fmt.Sprintf("m%d", i), m)
	}
	return out
}

// Params are every model's parameters.
func (e kwsEnsemble) Params() []nn.Param {
	if len(e) == 1 {
		return e[0].Params()
	}
	p := e.parts()
	return nn.Collect(p[0].(string), p[1], p[2:]...)
}

// Buffers are every model's buffers (batch-norm statistics).
func (e kwsEnsemble) Buffers() []nn.Param {
	if len(e) == 1 {
		return nn.Buffers(e[0])
	}
	p := e.parts()
	return nn.CollectBuffers(p[0].(string), p[1], p[2:]...)
}

// probs is the mean of the models' softmax rows.
func (e kwsEnsemble) probs(x *ag.Var) *ag.Var {
	p := ag.Softmax(e[0].Forward(x, false), -1)
	for _, m := range e[1:] {
		p = ag.Add(p, ag.Softmax(m.Forward(x, false), -1))
	}
	if len(e) == 1 {
		return p
	}
	return ag.MulScalar(p, 1/float64(len(e)))
}

// clipTransforms are the PreProcess transforms of a clip classifier's export.
func clipTransforms() map[string]any { return clipPreOps.Options() }

// clipPreOps are the PreProcess ops of a clip classifier's export; each
// records its options in the clipExport being read.
var clipPreOps = newClipPreOps()

func newClipPreOps() *config.Registry[*clipExport, struct{}] {
	r := config.NewRegistry[*clipExport, struct{}]("transform")
	config.Add(r, "LoadAudio", LoadAudioOpts{}, func(_ config.Component, o LoadAudioOpts, x *clipExport) (struct{}, error) {
		x.load = &o
		return struct{}{}, nil
	})
	config.Add(r, "KaldiFbank", defaultFeature(), func(_ config.Component, o FeatureOpts, x *clipExport) (struct{}, error) {
		x.feat = &o
		return struct{}{}, nil
	})
	return r
}

// audioExport is what an audio model's export directory holds: the
// predictor, inference.yaml's path, its Inputs and PreProcess.
type audioExport struct {
	predictor *runtime.Predictor
	file      string
	inputs    []workflow.InferenceInput
	pre       kwsPreProcess
}

// readAudioExport opens an export directory: the graph, and inference.yaml
// checked against schema, its PostProcess decoded into post.
func readAudioExport(dir string, schema *config.Schema, post any) (audioExport, error) {
	p, cfg, err := workflow.ReadExport(dir, schema, runtime.Options{})
	if err != nil {
		return audioExport{}, err
	}
	x := audioExport{predictor: p, file: filepath.Join(dir, workflow.ExportInferenceFile)}
	if x.inputs, err = workflow.DecodeInference(cfg, &x.pre, post); err != nil {
		return audioExport{}, err
	}
	return x, nil
}

// clipExport is the export of a clip classifier (keyword spotter or audio
// classifier): one (batch, 1, T, F) feature input, LoadAudio and KaldiFbank.
type clipExport struct {
	audioExport
	load *LoadAudioOpts
	feat *FeatureOpts
}

// readClipExport reads a clip classifier's export directory.
func readClipExport(dir string, schema *config.Schema, post any) (clipExport, error) {
	a, err := readAudioExport(dir, schema, post)
	if err != nil {
		return clipExport{}, err
	}
	x := clipExport{audioExport: a}
	if len(x.inputs) != 1 || len(x.inputs[0].Shape) != 4 {
		return x, fmt.Errorf("%s: Inputs: want one feature input (batch, 1, T, F), got %v", x.file, x.inputs)
	}
	for _, op := range x.pre.TransformOps {
		if _, err := clipPreOps.Build(op, &x); err != nil {
			return x, err
		}
	}
	if x.load == nil || x.feat == nil || x.load.SampleRate <= 0 || x.load.ClipSeconds <= 0 {
		return x, fmt.Errorf("%s: PreProcess.transform_ops: want LoadAudio (sample_rate, clip_seconds) and KaldiFbank", x.file)
	}
	return x, nil
}

// loadExportSpotter reads an export directory for predict --model.
func loadExportSpotter(dir string) (*spotter, error) {
	var post kwsPostProcess
	x, err := readClipExport(dir, kwsInferenceSchema(), &post)
	if err != nil {
		return nil, err
	}
	p, file, inputs, load, feat := x.predictor, x.file, x.inputs, x.load, x.feat
	if len(post.LabelList) == 0 {
		return nil, fmt.Errorf("%s: PostProcess.label_list is empty", file)
	}
	z := newFeaturizer(KWSGlobal{SampleRate: load.SampleRate, ClipSeconds: load.ClipSeconds}, *feat)
	if t, f := z.frames(), feat.NumMelBins; inputs[0].Shape[2] != t || inputs[0].Shape[3] != f {
		return nil, fmt.Errorf("%s: Inputs %v do not match the PreProcess features (%d frames x %d bins)", file, inputs[0].Shape, t, f)
	}
	hop := post.WindowHopMs
	if hop <= 0 {
		hop = 100
	}
	name, out := inputs[0].Name, p.OutputNames()[0]
	if err := checkTestWarps(post.TestWarps, post.TestCombine); err != nil {
		return nil, fmt.Errorf("%s: PostProcess: %w", file, err)
	}
	return &spotter{z: z, classes: post.LabelList, hop: max(int(hop*float64(load.SampleRate)/1000), 1),
		warps: post.TestWarps, combine: post.TestCombine,
		classify: func(x *tensor.Tensor) ([]float32, error) {
			res, err := p.Run(map[string]*tensor.Tensor{name: x})
			if err != nil {
				return nil, err
			}
			return res[out].Contiguous().F32(), nil
		}}, nil
}
