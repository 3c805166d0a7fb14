package seg

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
	"paddle/core/metric/seg"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// runner is the seg kit's workflow.Runner for one resolved config.
type runner struct {
	cfg                   *config.Config
	batchSize, iters      int
	seed                  uint64
	logIters, saveIters   int
	workers               int
	outputDir             string
	train, val            config.Component
	numClasses, ignore    int
	model                 config.Component
	opt                   OptimizerOpts
	lr                    LRSchedulerOpts
	loss                  LossOpts
	test                  TestConfig
	export                ExportOpts
	trainOpts, valOptions DatasetOpts
	draw                  bool // predict: also write colour overlays
}

// build decodes and validates a seg config.
func build(cfg *config.Config) (workflow.Runner, error) {
	if err := cfg.Validate(Schema()); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, batchSize: 8, iters: 1000, seed: 42, logIters: 10, workers: 2, outputDir: "./output/seg", ignore: 255}
	seed := int(r.seed)
	for _, s := range []struct {
		key string
		v   any
	}{
		{"batch_size", &r.batchSize}, {"iters", &r.iters}, {"seed", &seed}, {"log_iters", &r.logIters},
		{"save_interval", &r.saveIters}, {"num_workers", &r.workers}, {"output_dir", &r.outputDir},
		{"train_dataset", &r.train}, {"val_dataset", &r.val}, {"model", &r.model}, {"optimizer", &r.opt},
		{"lr_scheduler", &r.lr}, {"loss", &r.loss}, {"test_config", &r.test}, {"export", &r.export},
	} {
		if !cfg.Has(s.key) {
			continue
		}
		if err := cfg.Decode(s.key, s.v); err != nil {
			return nil, err
		}
	}
	r.seed = uint64(seed)
	if r.model.Name == "" {
		return nil, fmt.Errorf("%s: model (with type:) is required", cfg.File)
	}
	for _, d := range []struct {
		c   config.Component
		dst *DatasetOpts
	}{{r.train, &r.trainOpts}, {r.val, &r.valOptions}} {
		if d.c.Name == "" {
			continue
		}
		if err := decodeDatasetOpts(d.c, d.dst); err != nil {
			return nil, err
		}
		if r.numClasses == 0 {
			r.numClasses = d.dst.NumClasses
			r.ignore = ignoreOr(d.dst.IgnoreIndex, 255)
		}
	}
	if r.numClasses < 2 || r.numClasses > 255 {
		return nil, fmt.Errorf("%s: train_dataset.num_classes (or val_dataset's) must be between 2 and 255, got %d", cfg.File, r.numClasses)
	}
	if r.batchSize < 1 || r.iters < 1 {
		return nil, fmt.Errorf("%s: batch_size %d and iters %d must be positive", cfg.File, r.batchSize, r.iters)
	}
	if len(r.test.CropSize) != len(r.test.Stride) || (r.test.IsSlide && len(r.test.CropSize) != 2) {
		return nil, fmt.Errorf("%s: test_config: is_slide needs crop_size [w, h] and stride [w, h]", cfg.File)
	}
	return r, nil
}

func (r *runner) newModel() (Model, error) {
	return buildModel(r.model, r.numClasses, rand.New(rand.NewPCG(r.seed, 1)))
}

// NewModel is the configured network, untrained (workflow.ModelBuilder,
// for export --format pdparams; only PaddleLiteSeg has PaddleSeg's names).
func (r *runner) NewModel() (nn.Module, error) {
	m, err := r.newModel()
	if err != nil {
		return nil, err
	}
	return m, nil
}

// forward runs m in eval mode on a plain tensor.
func forward(m Model) func(x *tensor.Tensor) *tensor.Tensor {
	return func(x *tensor.Tensor) *tensor.Tensor { return m.Logits(ag.Const(x), false)[0].T }
}

// segMetric accumulates PaddleSeg's confusion areas over an evaluation.
type segMetric struct {
	c              *seg.Confusion
	classes, ign   int
	images         int
	last           seg.Result
	lastImagesSeen int
}

func (m *segMetric) Reset() {
	m.c, _ = seg.NewConfusion(m.classes, m.ign)
	m.images = 0
}

func (m *segMetric) add(logits *tensor.Tensor, labels *tensor.Tensor) error {
	preds := argmax(logits)
	lab := labels.Contiguous().I64()
	hw := len(preds[0])
	for b, p := range preds {
		pv := make([]int64, hw)
		for i, v := range p {
			pv[i] = int64(v)
		}
		if err := seg.Add(m.c, pv, lab[b*hw:(b+1)*hw]); err != nil {
			return err
		}
		m.images++
	}
	return nil
}

func (m *segMetric) Result() metric.Report {
	m.last, m.lastImagesSeen = m.c.Result(), m.images
	return m.last.Report(m.images)
}

// loaderFor builds the loader of one split.
func (r *runner) loaderFor(c config.Component, train bool) (*data.Loader[item, Batch], error) {
	var ds data.RandDataset[item]
	if c.Name == "SynthDataset" {
		s, err := newSynthSet(c, r.numClasses)
		if err != nil {
			return nil, err
		}
		ds = s
	} else {
		d, err := loadSplit(c, !train, r.numClasses, r.ignore)
		if err != nil {
			return nil, err
		}
		tr, err := buildTransforms(d.opts.Transforms)
		if err != nil {
			return nil, err
		}
		ds = d.dataset(tr)
	}
	bs := 1 // evaluation: whole images, which may differ in size
	if train {
		bs = r.batchSize
	}
	return data.NewLoader[item, Batch](ds, data.LoaderOptions{
		BatchSize: bs, DropLast: train, Shuffle: train, Workers: r.workers, Seed: r.seed,
	}, collate), nil
}

func (r *runner) task(model Model, withTrain bool) (*workflow.Task[Batch], *segMetric, error) {
	t := &workflow.Task[Batch]{Model: model, Seed: r.seed}
	m := &segMetric{classes: r.numClasses, ign: r.ignore}
	m.Reset()
	t.Metric = m
	fw := forward(model)
	t.Evaluate = func(b Batch) error { return m.add(infer(fw, b.X, r.test), b.Y) }
	if r.val.Name != "" {
		el, err := r.loaderFor(r.val, false)
		if err != nil {
			return nil, nil, err
		}
		t.EvalBatches = func(ctx context.Context) iter.Seq2[Batch, error] { return el.Epoch(ctx, 0) }
	}
	if !withTrain {
		return t, m, nil
	}
	if r.train.Name == "" {
		return nil, nil, fmt.Errorf("%s: train_dataset is missing", r.cfg.File)
	}
	tl, err := r.loaderFor(r.train, true)
	if err != nil {
		return nil, nil, err
	}
	if err := workflow.TrainOn(t, tl, r.batchSize, r.cfg.File, "batch_size"); err != nil { // ranks split it in a distributed run
		return nil, nil, err
	}
	losses, coef, err := buildLosses(r.loss, r.ignore)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", r.cfg.File, err)
	}
	t.Loss = func(b Batch, info workflow.StepInfo) (*ag.Var, error) {
		var across nn.Reducer // the global batch's loss over several ranks
		if info.Comm != nil {
			across = info.Comm
		}
		outs := model.Logits(ag.Const(b.X), true)
		if len(outs) != len(coef) {
			return nil, fmt.Errorf("loss.coef has %d entries but model %s gives %d outputs in training", len(coef), r.model.Name, len(outs))
		}
		var sum *ag.Var
		for i, lg := range outs {
			l, err := losses[i](lg, b.Y, across)
			if err != nil {
				return nil, err
			}
			l = ag.MulScalar(l, coef[i])
			if sum == nil {
				sum = l
			} else {
				sum = ag.Add(sum, l)
			}
		}
		return sum, nil
	}
	oc, err := r.optimConfig()
	if err != nil {
		return nil, nil, err
	}
	if err := workflow.BuildOptimizer(t, r.cfg.File, oc, 1, r.iters); err != nil {
		return nil, nil, err
	}
	epochs := (r.iters + t.StepsPerEpoch - 1) / t.StepsPerEpoch
	evalEvery := 0
	if r.saveIters > 0 {
		evalEvery = max(1, (r.saveIters+t.StepsPerEpoch/2)/t.StepsPerEpoch)
	}
	t.Schedule = workflow.Schedule{Epochs: epochs, MaxSteps: r.iters, LogEvery: r.logIters, EvalEvery: evalEvery, SaveEvery: 0, ClipNorm: r.opt.GradClip}
	return t, m, nil
}

// optimConfig maps PaddleSeg's optimizer and lr_scheduler onto optim's
// config: SGD is momentum SGD with L2 weight decay (Paddle's coupled
// regularizer), AdamW's weight_decay is decoupled; PolynomialDecay decays
// over iters.
func (r *runner) optimConfig() (optim.Config, error) {
	c := optim.Config{Momentum: r.opt.Momentum, Beta1: r.opt.Beta1, Beta2: r.opt.Beta2}
	o, ok := lookupType(optimizers, r.opt.Type, map[string]string{"": "SGD", "sgd": "SGD"})
	if !ok {
		return c, fmt.Errorf("%s: optimizer.type %q is not supported (known: %s)", r.cfg.File, r.opt.Type, optimizers.Known())
	}
	c.Name = o.name
	switch {
	case o.decoupled:
		c.WeightDecay = r.opt.WeightDecay
	case r.opt.WeightDecay > 0:
		c.Regularizer = &optim.Regularizer{Name: "L2", Coeff: r.opt.WeightDecay}
	}
	l := optim.LRConfig{LearningRate: r.lr.LearningRate, EndLR: r.lr.EndLR, Power: r.lr.Power, EtaMin: r.lr.EtaMin, WarmupStartLR: r.lr.WarmupStartLR}
	if l.LearningRate == 0 {
		l.LearningRate = 0.01
	}
	s, ok := lookupType(schedulers, r.lr.Type, map[string]string{"": "PolynomialDecay", "ConstantLR": "Constant"})
	if !ok {
		return c, fmt.Errorf("%s: lr_scheduler.type %q is not supported (known: %s)", r.cfg.File, r.lr.Type, schedulers.Known())
	}
	l.Name = s.name
	if l.Power == 0 {
		l.Power = s.power
	}
	if r.lr.WarmupIters > 0 {
		l.WarmupEpoch = float64(r.lr.WarmupIters) / float64(r.iters)
	}
	c.LR = l
	return c, nil
}

// segType is what one PaddleSeg optimizer or lr_scheduler type maps onto.
type segType struct {
	name      string  // optim's name
	decoupled bool    // an optimizer whose weight_decay is decoupled (AdamW), not an L2 regularizer
	power     float64 // a scheduler's default power (PolynomialDecay: 0.9)
}

// optimizers are the optimizer.type values ("" and sgd are SGD): SGD is
// momentum SGD with L2 weight decay (Paddle's coupled regularizer), AdamW's
// weight_decay is decoupled.
var optimizers = new(config.Choices[segType]).
	Add("SGD", segType{name: "Momentum"}).
	Add("Momentum", segType{name: "Momentum"}).
	Add("Adam", segType{name: "Adam"}).
	Add("AdamW", segType{name: "AdamW", decoupled: true})

// schedulers are the lr_scheduler.type values ("" is PolynomialDecay,
// ConstantLR Constant); PolynomialDecay decays over iters.
var schedulers = new(config.Choices[segType]).
	Add("PolynomialDecay", segType{name: "Polynomial", power: 0.9}).
	Add("CosineAnnealingDecay", segType{name: "Cosine"}).
	Add("Constant", segType{name: "Const"})

// lookupType finds typ, or what aliases map it to, among ts.
func lookupType(ts *config.Choices[segType], typ string, aliases map[string]string) (segType, bool) {
	if a, ok := aliases[typ]; ok {
		typ = a
	}
	return ts.Get(typ)
}

// Train trains the model the config describes. Over several ranks the
// batch norms are synchronised unless use_sync_bn: false says otherwise, as
// PaddleSeg's SyncBatchNorm layers are on several cards.
func (r *runner) Train(ctx context.Context, env workflow.Env) error {
	if !r.cfg.Has("use_sync_bn") {
		env.SyncBN = true
	}
	model, err := r.newModel()
	if err != nil {
		return err
	}
	return workflow.Start[Model, Batch]{
		Config: r.cfg, Output: r.outputDir, Attrs: []any{"model", r.model.Name}, Sizes: []any{"iters", r.iters},
		Pretrained: func(m Model, env workflow.Env) error {
			if env.Resume == "" {
				return r.loadPretrained(m)
			}
			if bb, whole, err := r.pretrainedSources(); err == nil && bb+whole != "" {
				slog.Info("resuming: model.pretrained / model.backbone.pretrained are not loaded", "resume", env.Resume)
			}
			return nil
		},
		Task: func(m Model) (*workflow.Task[Batch], error) {
			t, _, err := r.task(m, true)
			return t, err
		},
	}.Run(ctx, env, model)
}

// evalResult evaluates checkpoint dir on the val split and returns
// PaddleSeg's metrics and the number of images.
func (r *runner) evalResult(ctx context.Context, dir string) (seg.Result, int, error) {
	if r.val.Name == "" {
		return seg.Result{}, 0, fmt.Errorf("%s: val_dataset is missing", r.cfg.File)
	}
	model, err := r.newModel()
	if err != nil {
		return seg.Result{}, 0, err
	}
	var m *segMetric
	_, err = workflow.EvalCheckpoint(ctx, dir, model, func() (*workflow.Task[Batch], error) {
		t, mm, err := r.task(model, false)
		m = mm
		return t, err
	})
	if err != nil {
		return seg.Result{}, 0, err
	}
	return m.last, m.lastImagesSeen, nil
}

// Eval evaluates the checkpoint env.Weights on the val split.
func (r *runner) Eval(ctx context.Context, env workflow.Env) (metric.Report, error) {
	res, n, err := r.evalResult(ctx, env.Weights)
	if err != nil {
		return metric.Report{}, err
	}
	return res.Report(n), nil
}
