package clas

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"math/rand/v2"
	"sort"
	"sync"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/metric"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// runner is the clas kit's workflow.Runner for one resolved config.
type runner struct {
	cfg    *config.Config
	global GlobalOpts
	arch   config.Component
	loss   CELossOpts
	opt    optim.Config
	loader DataLoaderOpts
	topk   []int
	infer  InferOpts
}

// build decodes and validates a clas config.
func build(cfg *config.Config) (workflow.Runner, error) {
	if err := cfg.Validate(Schema()); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg}
	r.global = GlobalOpts{Epochs: 1, Seed: 42, OutputDir: "./output/clas", PrintBatchStep: 50}
	if err := cfg.Decode("Global", &r.global); err != nil {
		return nil, err
	}
	if err := cfg.Decode("Arch", &r.arch); err != nil {
		return nil, err
	}
	if r.arch.Name == "" {
		return nil, fmt.Errorf("%s: Arch.name is required", cfg.File)
	}
	if r.global.ClassNum <= 0 || len(r.global.ImageShape) != 3 {
		return nil, fmt.Errorf("%s: Global.class_num (> 0) and Global.image_shape ([C, H, W]) are required", cfg.File)
	}
	var losses LossOpts
	if cfg.Has("Loss") {
		if err := cfg.Decode("Loss", &losses); err != nil {
			return nil, err
		}
	}
	r.loss = CELossOpts{Weight: 1}
	for _, l := range losses.Train {
		if err := l.Decode(&r.loss); err != nil {
			return nil, err
		}
	}
	if err := cfg.Decode("Optimizer", &r.opt); err != nil {
		return nil, err
	}
	if err := cfg.Decode("DataLoader", &r.loader); err != nil {
		return nil, err
	}
	r.topk = []int{1, 5}
	var metrics MetricOpts
	if cfg.Has("Metric") {
		if err := cfg.Decode("Metric", &metrics); err != nil {
			return nil, err
		}
		for _, m := range metrics.Eval {
			var o TopkAccOpts
			if err := m.Decode(&o); err != nil {
				return nil, err
			}
			if len(o.Topk) > 0 {
				r.topk = o.Topk
			}
		}
	}
	r.infer = InferOpts{PostProcess: PostProcessOpts{Topk: 5}}
	if cfg.Has("Infer") {
		if err := cfg.Decode("Infer", &r.infer); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *runner) newModel() (nn.Layer, error) {
	return buildModel(r.arch, r.global, rand.New(rand.NewPCG(r.global.Seed, 1)))
}

// NewModel is the configured classifier, untrained (workflow.ModelBuilder,
// for export --format pdparams).
func (r *runner) NewModel() (nn.Module, error) {
	m, err := r.newModel()
	if err != nil {
		return nil, err
	}
	return m, nil
}

// loaderFor builds the loader of one split.
func (r *runner) loaderFor(s *SplitOpts, train bool) (*data.Loader[Sample, Batch], error) {
	if s == nil {
		return nil, fmt.Errorf("%s: DataLoader.%s is missing", r.cfg.File, map[bool]string{true: "Train", false: "Eval"}[train])
	}
	ds, err := buildDataset(s.Dataset, r.global)
	if err != nil {
		return nil, err
	}
	return data.NewLoader[Sample, Batch](ds, data.LoaderOptions{
		BatchSize: max(s.Sampler.BatchSize, 1), DropLast: s.Sampler.DropLast, Shuffle: s.Sampler.Shuffle,
		Workers: s.Loader.NumWorkers, Seed: r.global.Seed,
	}, collate), nil
}

func (r *runner) task(model nn.Layer, withTrain bool) (*workflow.Task[Batch], error) {
	t := &workflow.Task[Batch]{Model: model, Seed: r.global.Seed}
	top := metric.NewTopK(r.topk...)
	classes := r.global.ClassNum
	t.Metric = top
	t.Evaluate = func(b Batch) error {
		logits := model.Forward(ag.Const(b.X), false)
		top.Update(logits.T.Contiguous().F32(), classes, labelsOf(b))
		return nil
	}
	if r.loader.Eval != nil {
		el, err := r.loaderFor(r.loader.Eval, false)
		if err != nil {
			return nil, err
		}
		t.EvalBatches = func(ctx context.Context) iter.Seq2[Batch, error] { return el.Epoch(ctx, 0) }
	}
	if !withTrain {
		return t, nil
	}
	tl, err := r.loaderFor(r.loader.Train, true)
	if err != nil {
		return nil, err
	}
	if err := workflow.TrainOn(t, tl, r.loader.Train.Sampler.BatchSize, r.cfg.File, "batch_size"); err != nil {
		return nil, err
	}
	ce := nn.DefaultCrossEntropyOptions()
	ce.LabelSmoothing = r.loss.Epsilon
	t.Loss = func(b Batch, _ workflow.StepInfo) (*ag.Var, error) {
		logits := model.Forward(ag.Const(b.X), true)
		l, err := nn.CrossEntropy(logits, b.Labels, ce)
		if err != nil {
			return nil, err
		}
		if r.loss.Weight != 1 && r.loss.Weight != 0 {
			l = ag.MulScalar(l, r.loss.Weight)
		}
		return l, nil
	}
	if err := workflow.BuildOptimizer(t, r.cfg.File, r.opt, r.global.Epochs, t.StepsPerEpoch); err != nil {
		return nil, err
	}
	t.Schedule = workflow.Schedule{
		Epochs: r.global.Epochs, MaxSteps: r.global.MaxSteps, LogEvery: r.global.PrintBatchStep,
		EvalEvery: r.global.EvalInterval, SaveEvery: r.global.SaveInterval,
	}
	return t, nil
}

func labelsOf(b Batch) []int {
	v := b.Labels.I64()
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// Train trains the model the config describes.
func (r *runner) Train(ctx context.Context, env workflow.Env) error {
	model, err := r.newModel()
	if err != nil {
		return err
	}
	return workflow.Start[nn.Layer, Batch]{Config: r.cfg, Output: r.global.OutputDir, Attrs: []any{"arch", r.arch.Name},
		Task: func(m nn.Layer) (*workflow.Task[Batch], error) { return r.task(m, true) }}.Run(ctx, env, model)
}

// Eval evaluates the checkpoint env.Weights on the eval split.
func (r *runner) Eval(ctx context.Context, env workflow.Env) (metric.Report, error) {
	if r.loader.Eval == nil {
		return metric.Report{}, fmt.Errorf("%s: DataLoader.Eval is missing", r.cfg.File)
	}
	model, err := r.newModel()
	if err != nil {
		return metric.Report{}, err
	}
	return workflow.EvalCheckpoint(ctx, env.Weights, model, func() (*workflow.Task[Batch], error) { return r.task(model, false) })
}

// Prediction is one image's top-k classes (the jsonl line of `clas predict`).
// A failed image's record is workflow.Failed: {"image", "error"}.
type Prediction struct {
	Image string      `json:"image"`
	TopK  []ClassProb `json:"topk"`
}

// ClassProb is one of the top classes.
type ClassProb struct {
	ClassID int     `json:"class_id"`
	Label   string  `json:"label"`
	Score   float64 `json:"score"`
}

// Predict classifies image files with the checkpoint env.Weights, or with
// the export directory env.Model (export.go).
func (r *runner) Predict(ctx context.Context, env workflow.Env, args []string) error {
	c, err := r.loadClassifier(env)
	if err != nil {
		return err
	}
	return predictFiles(ctx, env, args, c)
}

// Classifier is a loaded model that classifies one image at a time:
// predict's per-image step and `paddle serve clas`'s predictor. It is safe
// for concurrent use.
type Classifier struct {
	tr     data.Transform[Sample]
	k      int // classes reported
	labels []string
	// classify maps one image (1, C, H, W) to class probabilities.
	classify func(x *tensor.Tensor) ([]float32, error)
	input    string // the export's input name ("" for a checkpoint)
}

// loadClassifier loads the export env.Model, else the checkpoint env.Weights.
func (r *runner) loadClassifier(env workflow.Env) (*Classifier, error) {
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
	tr, err := buildTransforms(r.predictOps(), r.global)
	if err != nil {
		return nil, err
	}
	// The autograd model was not written for concurrent forwards: one at a time.
	var mu sync.Mutex
	return &Classifier{tr: tr, k: max(r.infer.PostProcess.Topk, 1), labels: r.labelNames(), classify: func(x *tensor.Tensor) ([]float32, error) {
		mu.Lock()
		defer mu.Unlock()
		var probs []float32
		ag.NoGrad(func() {
			probs = ag.Softmax(model.Forward(ag.Const(x), false), -1).T.Contiguous().F32()
		})
		return probs, nil
	}}, nil
}

// Classify returns the top classes of the image of s (its Path or File).
func (c *Classifier) Classify(s Sample) ([]ClassProb, error) {
	if err := c.prepare(&s); err != nil {
		return nil, err
	}
	return c.top(s)
}

// prepare decodes and transforms s's image into s.X: an error here is the
// input's.
func (c *Classifier) prepare(s *Sample) error {
	s.Label = -1
	_, err := c.tr.Apply(s, rand.New(rand.NewPCG(0, 0)))
	return err
}

// top runs the model on a prepared sample.
func (c *Classifier) top(s Sample) ([]ClassProb, error) {
	probs, err := c.classify(s.X.Reshape(append([]int{1}, s.X.Shape()...)...))
	if err != nil {
		return nil, err
	}
	return topClasses(probs, c.k, c.labels), nil
}

// predictOps are the transform ops of predict: Infer.transforms, else the
// eval dataset's.
func (r *runner) predictOps() []config.Component {
	ops := r.infer.Transforms
	if len(ops) == 0 && r.loader.Eval != nil {
		ops = evalTransformOps(r.loader.Eval.Dataset)
	}
	return ops
}

// predictFiles classifies each input file and writes the top k in env.Format.
func predictFiles(ctx context.Context, env workflow.Env, args []string, c *Classifier) error {
	inputs, err := env.Inputs(args, workflow.ImageExts)
	if err != nil {
		return config.Usage(err)
	}
	out := workflow.NewPrinter(env.IO.Out, env.Format, workflow.KeyImage, predictionLine)
	failed, err := workflow.RunOrdered(ctx, inputs, 1, func(_ context.Context, in workflow.Input) ([]ClassProb, error) {
		return c.Classify(Sample{Path: in.Path})
	}, workflow.PrintResults(out, func(res workflow.Result[[]ClassProb]) Prediction {
		return Prediction{Image: res.Input.Path, TopK: res.Value}
	}))
	return out.Finish(failed, len(inputs), err)
}

// predictionLine is the text form of a prediction: path, top label, score.
func predictionLine(p Prediction) string {
	return fmt.Sprintf("%s\t%s\t%.5f\n", p.Image, p.TopK[0].Label, p.TopK[0].Score)
}

// evalTransformOps returns the transform ops a file dataset lists, if any.
func evalTransformOps(c config.Component) []config.Component {
	switch c.Name {
	case "ImageNetDataset":
		var o ImageNetDatasetOpts
		if c.Decode(&o) == nil {
			return o.TransformOps
		}
	case "ClassFolder":
		var o ClassFolderOpts
		if c.Decode(&o) == nil {
			return o.TransformOps
		}
	}
	return nil
}

func (r *runner) labelNames() []string {
	if f := r.infer.PostProcess.ClassIDMapFile; f != "" {
		if names, err := ReadLabelMap(f); err == nil {
			return names
		} else {
			slog.Warn("class_id_map_file", "file", f, "err", err)
		}
	}
	return nil
}

func topClasses(probs []float32, k int, labels []string) []ClassProb {
	idx := make([]int, len(probs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return probs[idx[a]] > probs[idx[b]] })
	k = min(k, len(idx))
	out := make([]ClassProb, k)
	for i := range k {
		c := idx[i]
		name := fmt.Sprint(c)
		if c < len(labels) && labels[c] != "" {
			name = labels[c]
		}
		out[i] = ClassProb{ClassID: c, Label: name, Score: float64(int64(float64(probs[c])*1e5+0.5)) / 1e5}
	}
	return out
}

// PredictRecord is `clas predict`'s record, for --help (docs/formats.md).
const PredictRecord = `  {"image": string, "topk": [{"class_id": int, "label": string, "score": float}, ...]}
  topk: the Infer.PostProcess.topk best classes, best first; score: softmax probability, 5 decimals.
  failed: {"image": string, "error": string}`
