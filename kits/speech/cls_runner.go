package speech

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/metric"
	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// Audio classification (language ID, sound events) uses the keyword
// spotter's config layout (PaddleClas's Global / Feature / Arch / Loss /
// Optimizer / DataLoader / Metric) with its own model (Arch.name: PANNsCNN)
// and dataset (ClsList); the kit's Build picks the runner by Arch.name.

// ClsListOpts read a list file of `<audio><TAB or space><class>` lines
// (what `paddle speech cls-data` writes).
type ClsListOpts struct {
	DataDir  string `yaml:"data_dir"`  // list paths are relative to it (default: the list's folder)
	ListFile string `yaml:"list_file"` // the list
	Limit    int    `yaml:"limit"`     // use an evenly spread subset of this many (0: all)
	// CacheDir keeps the decoded log-mel frames of the list in one file
	// there, keyed by the list's paths and the feature options ("": memory only).
	CacheDir    string           `yaml:"cache_dir"`
	SpecAugment *SpecAugmentOpts `yaml:"spec_augment"`
	// ClassBalance draws each training epoch's clips with probability
	// ∝ (clips of the class)^-class_balance, with replacement: 0 plain
	// shuffling, 1 every class equally often.
	ClassBalance float64 `yaml:"class_balance"`
}

// clsSchema is the audio-classification config schema.
func clsSchema() *config.Schema {
	s := KWSSchema()
	s.Components = map[string]map[string]any{
		"Metric.*.*": {"TopkAcc": (*KWSTopkAccOpts)(nil)},
	}
	s.Kinds = nil
	config.Attach(s, "Arch", clsArchs)
	config.Attach(s, "DataLoader.*.dataset", clsDatasets)
	return s
}

// isClsConfig reports whether cfg describes an audio classifier (its
// Arch.name is a classification model).
func isClsConfig(cfg *config.Config) bool {
	n, ok := cfg.Node("Arch.name")
	return ok && clsArchs.Has(n.Value)
}

// clsRunner is the audio classifier's workflow.Runner.
type clsRunner struct {
	clipConfig
}

// buildCls decodes and validates an audio-classification config.
func buildCls(cfg *config.Config) (workflow.Runner, error) {
	if err := cfg.Validate(clsSchema()); err != nil {
		return nil, err
	}
	c, err := decodeClipConfig(cfg, KWSGlobal{Epochs: 1, Seed: 42, OutputDir: "./output/cls", PrintBatchStep: 50, SampleRate: 16000, ClipSeconds: 2},
		"paddle speech cls-data --task langid --output DIR")
	if err != nil {
		return nil, err
	}
	if c.feat.CepstralSmoothing != 0 {
		return nil, fmt.Errorf("%s: Feature.cepstral_smoothing is not supported by the audio classifier (keyword spotting only)", cfg.File)
	}
	return &clsRunner{c}, nil
}

func (r *clsRunner) newModel() (nn.Layer, error) {
	if err := r.loadClasses(); err != nil {
		return nil, err
	}
	return buildClsModel(r.arch, r.feat.NumMelBins, len(r.classes), rand.New(rand.NewPCG(r.global.Seed, 1)))
}

// DataFreeModel is the configured audio classifier, untrained; its classes
// are read from Global.label_file (workflow.DataFreeModel; assumed says
// so).
func (r *clsRunner) DataFreeModel() (nn.Module, string, error) {
	m, err := r.newModel()
	if err != nil {
		return nil, "", err
	}
	return m, fmt.Sprintf("%d classes from Global.label_file", len(r.classes)), nil
}

func (r *clsRunner) featurizer() clsFeaturizer { return newClsFeaturizer(r.global, r.feat) }

// clsDatasets are the data sets an audio classifier's DataLoader can name.
var clsDatasets = config.NewRegistry[struct{}, ClsListOpts]("dataset")

func init() {
	config.Add(clsDatasets, "ClsList", ClsListOpts{}, func(_ config.Component, o ClsListOpts, _ struct{}) (ClsListOpts, error) { return o, nil })
}

// loaderFor builds the loader of one split.
func (r *clsRunner) loaderFor(s *KWSSplit, train bool) (*data.Loader[ClsSample, ClsBatch], error) {
	name := map[bool]string{true: "Train", false: "Eval"}[train]
	if s == nil {
		return nil, fmt.Errorf("%s: DataLoader.%s is missing", r.cfg.File, name)
	}
	o, err := clsDatasets.Build(s.Dataset, struct{}{})
	if err != nil {
		return nil, err
	}
	items, err := readClsList(o.ListFile, o.DataDir, r.classes)
	if err != nil {
		return nil, s.Dataset.Errorf("%v\nhint: run `paddle speech cls-data --output DIR` or set -o DataLoader.%s.dataset.list_file=...", err, name)
	}
	if o.Limit > 0 && o.Limit < len(items) {
		sub := make([]clsItem, o.Limit)
		for i := range sub {
			sub[i] = items[i*len(items)/o.Limit]
		}
		items = sub
	}
	z := r.featurizer()
	store, err := loadClsFeatures(items, z, o.CacheDir)
	if err != nil {
		return nil, s.Dataset.Errorf("%v", err)
	}
	ds := &clsDataset{items: items, store: store, z: z, train: train}
	if o.SpecAugment != nil {
		sa := o.SpecAugment.options()
		ds.spec = &sa
	}
	lo := data.LoaderOptions{BatchSize: max(s.Sampler.BatchSize, 1), DropLast: s.Sampler.DropLast, Shuffle: s.Sampler.Shuffle,
		Workers: s.Loader.NumWorkers, Seed: r.global.Seed}
	if train && o.ClassBalance > 0 {
		count := make([]float64, len(r.classes))
		for _, it := range items {
			count[it.Label]++
		}
		w := make([]float64, len(items))
		for i, it := range items {
			w[i] = math.Pow(count[it.Label], -o.ClassBalance)
		}
		if lo.Sampler, err = data.NewWeightedRandom(w, len(items), true, r.global.Seed); err != nil {
			return nil, s.Dataset.Errorf("%v", err)
		}
	}
	return data.NewLoader[ClsSample, ClsBatch](ds, lo, collateCls), nil
}

func (r *clsRunner) task(model nn.Layer, withTrain bool) (*workflow.Task[ClsBatch], error) {
	t := &workflow.Task[ClsBatch]{Model: model, Seed: r.global.Seed}
	m := newClsMetric(r.classes, r.topk)
	t.Metric = m
	t.Evaluate = func(b ClsBatch) error {
		var probs []float32
		ag.NoGrad(func() {
			probs = ag.Softmax(model.Forward(ag.Const(b.X), false), -1).T.Contiguous().F32()
		})
		m.Update(clipMeans(probs, b.Owner, len(b.Paths), len(r.classes)), intLabels(b.Labels))
		return nil
	}
	return finishClipTask(&r.clipConfig, t, model, withTrain, r.loaderFor, func(b ClsBatch) (*tensor.Tensor, *tensor.Tensor) { return b.X, b.Labels })
}

// Train trains the model the config describes.
func (r *clsRunner) Train(ctx context.Context, env workflow.Env) error {
	model, err := r.newModel()
	if err != nil {
		return err
	}
	return workflow.Start[nn.Layer, ClsBatch]{Config: r.cfg, Output: r.global.OutputDir,
		Attrs: []any{"arch", r.arch.Name}, Sizes: []any{"classes", len(r.classes)},
		Task: func(m nn.Layer) (*workflow.Task[ClsBatch], error) { return r.task(m, true) }}.Run(ctx, env, model)
}

// Eval evaluates the checkpoint env.Weights on the eval list.
func (r *clsRunner) Eval(ctx context.Context, env workflow.Env) (metric.Report, error) {
	if r.loader.Eval == nil {
		return metric.Report{}, fmt.Errorf("%s: DataLoader.Eval is missing", r.cfg.File)
	}
	model, err := r.newModel()
	if err != nil {
		return metric.Report{}, err
	}
	return workflow.EvalCheckpoint(ctx, env.Weights, model, func() (*workflow.Task[ClsBatch], error) { return r.task(model, false) })
}
