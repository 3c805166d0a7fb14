package speech

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/metric"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/tensor"
	"paddle/core/workflow"
	"paddle/kits/speech/synth"
)

// clipConfig is what the keyword spotter's and the audio classifier's
// configs share (PaddleClas's layout plus Feature): both classify clips.
type clipConfig struct {
	cfg     *config.Config
	global  KWSGlobal
	feat    FeatureOpts
	arch    config.Component
	loss    KWSLossOpts
	opt     optim.Config
	loader  KWSDataLoader
	topk    []int
	classes []string
	// labelsHint is the command that writes Global.label_file.
	labelsHint string
}

// decodeClipConfig decodes a validated clip-classifier config over the
// defaults in global.
func decodeClipConfig(cfg *config.Config, global KWSGlobal, labelsHint string) (clipConfig, error) {
	r := clipConfig{cfg: cfg, global: global, feat: defaultFeature(), topk: []int{1, 5}, labelsHint: labelsHint}
	for _, s := range []struct {
		key string
		v   any
	}{{"Global", &r.global}, {"Arch", &r.arch}, {"Optimizer", &r.opt}, {"DataLoader", &r.loader}} {
		if err := cfg.Decode(s.key, s.v); err != nil {
			return r, err
		}
	}
	for _, s := range []struct {
		key string
		v   any
	}{{"Feature", &r.feat}, {"Loss", &r.loss}} {
		if cfg.Has(s.key) {
			if err := cfg.Decode(s.key, s.v); err != nil {
				return r, err
			}
		}
	}
	if cfg.Has("Metric") {
		var m KWSMetricOpts
		if err := cfg.Decode("Metric", &m); err != nil {
			return r, err
		}
		for _, c := range m.Eval {
			var o KWSTopkAccOpts
			if err := c.Decode(&o); err != nil {
				return r, err
			}
			if len(o.Topk) > 0 {
				r.topk = o.Topk
			}
		}
	}
	if r.global.SampleRate <= 0 || r.global.ClipSeconds <= 0 {
		return r, fmt.Errorf("%s: Global.sample_rate and Global.clip_seconds must be positive", cfg.File)
	}
	if r.global.LabelFile == "" {
		return r, fmt.Errorf("%s: Global.label_file is required (one class per line; `%s` writes labels.txt)", cfg.File, labelsHint)
	}
	return r, nil
}

// loadClasses reads Global.label_file (not needed by predict --model,
// whose inference.yaml lists the classes).
func (r *clipConfig) loadClasses() error {
	if r.classes != nil {
		return nil
	}
	c, err := readLabels(r.global.LabelFile)
	if err != nil {
		return fmt.Errorf("%s: Global.label_file: %w\nhint: run `%s` or set -o Global.label_file=DIR/labels.txt", r.cfg.File, err, r.labelsHint)
	}
	r.classes = c
	return nil
}

// finishClipTask completes a clip classifier's task: eval batches from
// DataLoader.Eval and, for training, DataLoader.Train with cross-entropy
// (label smoothing Loss.epsilon) on xy's inputs and labels, the optimizer
// and the Global schedule.
func finishClipTask[S, B any](c *clipConfig, t *workflow.Task[B], model nn.Layer, withTrain bool,
	loaderFor func(*KWSSplit, bool) (*data.Loader[S, B], error), xy func(B) (*tensor.Tensor, *tensor.Tensor)) (*workflow.Task[B], error) {
	if c.loader.Eval != nil {
		el, err := loaderFor(c.loader.Eval, false)
		if err != nil {
			return nil, err
		}
		t.EvalBatches = func(ctx context.Context) iter.Seq2[B, error] { return el.Epoch(ctx, 0) }
	}
	if !withTrain {
		return t, nil
	}
	tl, err := loaderFor(c.loader.Train, true)
	if err != nil {
		return nil, err
	}
	if err := workflow.TrainOn(t, tl, c.loader.Train.Sampler.BatchSize, c.cfg.File, "batch_size"); err != nil {
		return nil, err
	}
	ce := nn.DefaultCrossEntropyOptions()
	ce.LabelSmoothing = c.loss.Epsilon
	t.Loss = func(b B, info workflow.StepInfo) (*ag.Var, error) {
		x, y := xy(b)
		o := ce
		if info.Comm != nil { // the mean over all ranks' rows: a cls batch has a row per window, clips differ in windows
			o.Across = info.Comm
		}
		return nn.CrossEntropy(model.Forward(ag.Const(x), true), y, o)
	}
	if err := workflow.BuildOptimizer(t, c.cfg.File, c.opt, c.global.Epochs, t.StepsPerEpoch); err != nil {
		return nil, err
	}
	t.Schedule = c.global.schedule()
	return t, nil
}

// intLabels returns an int64 label tensor's values as ints.
func intLabels(labels *tensor.Tensor) []int {
	v := labels.I64()
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// kwsRunner is the keyword spotter's workflow.Runner for one resolved config.
type kwsRunner struct {
	clipConfig
	combine string // how test-time warps' answers merge (kws_tta.go)
	// groups names the eval clips' test_groups groups (combine "group").
	groups []string
	warps  []float64
	// ensemble are the Global.ensemble models (eval; kws_group.go).
	ensemble []nn.Layer
	// infer is the Infer section: predict's test-time setting (kws_infer.go).
	infer KWSInferOpts
	// saved collects the eval clips' probabilities for Global.save_probs.
	saved *probDump
}

// buildKWS decodes and validates a keyword-spotting config.
func buildKWS(cfg *config.Config) (workflow.Runner, error) {
	if err := cfg.Validate(KWSSchema()); err != nil {
		return nil, err
	}
	c, err := decodeClipConfig(cfg, KWSGlobal{Epochs: 1, Seed: 42, OutputDir: "./output/kws", PrintBatchStep: 50, SampleRate: 16000, ClipSeconds: 1},
		"paddle speech synth --output DIR")
	if err != nil {
		return nil, err
	}
	if c.arch.Name == "" {
		return nil, fmt.Errorf("%s: Arch.name is required", cfg.File)
	}
	k := &kwsRunner{clipConfig: c}
	if cfg.Has("Infer") {
		if err := cfg.Decode("Infer", &k.infer); err != nil {
			return nil, err
		}
	}
	return k, nil
}

func (r *kwsRunner) newModel() (nn.Layer, error) {
	if err := r.loadClasses(); err != nil {
		return nil, err
	}
	return buildModel(r.arch, r.feat.NumMelBins, len(r.classes), rand.New(rand.NewPCG(r.global.Seed, 1)))
}

// DataFreeModel is the configured keyword spotter, untrained; its classes
// are read from Global.label_file (workflow.DataFreeModel; assumed says
// so).
func (r *kwsRunner) DataFreeModel() (nn.Module, string, error) {
	m, err := r.newModel()
	if err != nil {
		return nil, "", err
	}
	return m, fmt.Sprintf("%d classes from Global.label_file", len(r.classes)), nil
}

func (r *kwsRunner) featurizer() featurizer { return newFeaturizer(r.global, r.feat) }

// kwsDatasets are the data sets a spotter's DataLoader can name.
var kwsDatasets = config.NewRegistry[struct{}, KWSListOpts]("dataset")

func init() {
	config.Add(kwsDatasets, "KWSList", KWSListOpts{}, func(_ config.Component, o KWSListOpts, _ struct{}) (KWSListOpts, error) { return o, nil })
}

// loaderFor builds the loader of one split.
func (r *kwsRunner) loaderFor(s *KWSSplit, train bool) (*data.Loader[KWSSample, KWSBatch], error) {
	name := map[bool]string{true: "Train", false: "Eval"}[train]
	if s == nil {
		return nil, fmt.Errorf("%s: DataLoader.%s is missing", r.cfg.File, name)
	}
	o, err := kwsDatasets.Build(s.Dataset, struct{}{})
	if err != nil {
		return nil, err
	}
	items, err := readKWSList(o.ListFile, o.DataDir, r.classes)
	if err != nil {
		return nil, s.Dataset.Errorf("%v\nhint: run `paddle speech synth --output DIR` or set -o DataLoader.%s.dataset.list_file=...", err, name)
	}
	ds := &kwsDataset{items: spread(items, o.Limit), z: r.featurizer(), train: train,
		shift: int(o.TimeShiftMs * float64(r.global.SampleRate) / 1000), warp: o.FreqWarp}
	if o.SpecAugment != nil {
		sa := o.SpecAugment.options()
		ds.spec = &sa
	}
	if o.Noise != nil && train {
		ds.noise = &noiseBank{o: *o.Noise, z: ds.z}
	}
	if !train && len(o.TestWarps) > 0 {
		if err := checkTestWarps(o.TestWarps, o.TestCombine); err != nil {
			return nil, s.Dataset.Errorf("%v", err)
		}
		ds.testWarps = o.TestWarps
		r.combine, r.warps = o.TestCombine, o.TestWarps
		if o.TestCombine == "group" {
			if o.TestGroups == "" {
				return nil, s.Dataset.Errorf("test_combine: group needs test_groups (a file of `<path> <group>` lines)")
			}
			g, err := assignGroups(ds.items, o.TestGroups)
			if err != nil {
				return nil, s.Dataset.Errorf("%v", err)
			}
			r.groups = g
		}
	} else if !train && o.TestCombine == "group" {
		return nil, s.Dataset.Errorf("test_combine: group needs test_warps")
	}
	return data.NewLoader[KWSSample, KWSBatch](ds, data.LoaderOptions{
		BatchSize: max(s.Sampler.BatchSize, 1), DropLast: s.Sampler.DropLast, Shuffle: s.Sampler.Shuffle,
		Workers: s.Loader.NumWorkers, Seed: r.global.Seed,
	}, collateKWS), nil
}

func (r *kwsRunner) task(model nn.Layer, withTrain bool) (*workflow.Task[KWSBatch], error) {
	t := &workflow.Task[KWSBatch]{Model: model, Seed: r.global.Seed}
	m := newKWSMetric(r.classes, r.topk)
	t.Metric = m
	gm := &groupWarpMetric{inner: m}
	t.Evaluate = func(b KWSBatch) error {
		if b.X.Shape()[1] == 1 && len(r.ensemble) == 0 && r.combine != "group" && r.saved == nil {
			logits := model.Forward(ag.Const(b.X), false)
			m.Update(logits.T.Contiguous().F32(), intLabels(b.Labels))
			return nil
		}
		// test-time warps and/or an ensemble (kws_tta.go, kws_group.go)
		p, err := clipProbs(append([]nn.Layer{model}, r.ensemble...), b.X)
		if err != nil {
			return err
		}
		r.saved.add(p, b.Paths, intLabels(b.Labels), b.Groups)
		if r.combine == "group" {
			gm.add(p, intLabels(b.Labels), b.Groups)
			return nil
		}
		var scores []float32
		for _, rows := range p {
			scores = append(scores, combineProbs(rows, r.combine)...)
		}
		m.Update(scores, intLabels(b.Labels))
		return nil
	}
	t, err := finishClipTask(&r.clipConfig, t, model, withTrain, r.loaderFor, func(b KWSBatch) (*tensor.Tensor, *tensor.Tensor) { return b.X, b.Labels })
	if err == nil && r.combine == "group" {
		gm.names, gm.warps = r.groups, r.warps
		t.Metric = gm
	}
	return t, err
}

// Train trains the model the config describes.
func (r *kwsRunner) Train(ctx context.Context, env workflow.Env) error {
	model, err := r.newModel()
	if err != nil {
		return err
	}
	return workflow.Start[nn.Layer, KWSBatch]{Config: r.cfg, Output: r.global.OutputDir,
		Attrs: []any{"arch", r.arch.Name}, Sizes: []any{"classes", len(r.classes)},
		Pretrained: func(m nn.Layer, env workflow.Env) error {
			return loadInitWeights(m, r.global.PretrainedModel, env, r.cfg.File, "Global.pretrained_model", "pretrained_model")
		},
		Task: func(m nn.Layer) (*workflow.Task[KWSBatch], error) { return r.task(m, true) }}.Run(ctx, env, model)
}

// loadInitWeights loads the checkpoint folder dir (the config's key) into
// m when a run starts fresh (not on --resume, whose checkpoint has its own
// weights), logging it under msg.
func loadInitWeights(m nn.Module, dir string, env workflow.Env, file, key, msg string) error {
	if dir == "" || env.Resume != "" {
		return nil
	}
	if _, err := workflow.LoadCheckpoint(dir, m, nil); err != nil {
		return fmt.Errorf("%s: %s: %w", file, key, err)
	}
	slog.Info(msg, "weights", dir)
	return nil
}

// Eval evaluates the checkpoint env.Weights on the eval list.
func (r *kwsRunner) Eval(ctx context.Context, env workflow.Env) (metric.Report, error) {
	if r.loader.Eval == nil {
		return metric.Report{}, fmt.Errorf("%s: DataLoader.Eval is missing", r.cfg.File)
	}
	model, err := r.newModel()
	if err != nil {
		return metric.Report{}, err
	}
	if err := r.loadWeights(env.Weights, model); err != nil {
		return metric.Report{}, err
	}
	if r.ensemble, err = r.loadEnsemble(); err != nil {
		return metric.Report{}, err
	}
	if r.global.SaveProbs != "" {
		r.saved = &probDump{}
	}
	t, err := r.task(model, false)
	if err != nil {
		return metric.Report{}, err
	}
	rep, err := t.Eval(ctx)
	if err == nil && r.saved != nil {
		err = r.saved.write(r.global.SaveProbs, r.warps, r.groups)
	}
	return rep, err
}

// kwsMetric is top-k accuracy over all clips plus top-1 accuracy over the
// clips whose class is a keyword (not _unknown_ or _silence_).
type kwsMetric struct {
	top         *metric.TopK
	classes     []string
	kwN, kwHits int
}

func newKWSMetric(classes []string, ks []int) *kwsMetric {
	return &kwsMetric{top: metric.NewTopK(ks...), classes: classes}
}

func isKeyword(c string) bool { return c != synth.Unknown && c != synth.Silence }

func (m *kwsMetric) Update(scores []float32, labels []int) {
	m.top.Update(scores, len(m.classes), labels)
	k := len(m.classes)
	for i, l := range labels {
		if !isKeyword(m.classes[l]) {
			continue
		}
		row := scores[i*k : (i+1)*k]
		m.kwN++
		if argmax(row) == l {
			m.kwHits++
		}
	}
}

func (m *kwsMetric) Reset() { m.top.Reset(); m.kwN, m.kwHits = 0, 0 }

func (m *kwsMetric) Result() metric.Report {
	r := m.top.Result()
	if m.kwN > 0 {
		r.Values["keyword_top1"] = float64(m.kwHits) / float64(m.kwN)
		r.Values["keyword_clips"] = float64(m.kwN)
	}
	return r
}

// argmax is the index of v's largest value (the first of ties).
func argmax[T float32 | float64](v []T) int {
	best := 0
	for i, x := range v {
		if x > v[best] {
			best = i
		}
	}
	return best
}
