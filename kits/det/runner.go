package det

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/data"
	pio "paddle/core/io"
	"paddle/core/metric"
	"paddle/core/metric/coco"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/workflow"
)

// runner is the det kit's workflow.Runner for one resolved config.
type runner struct {
	cfg        *config.Config
	epochs     int
	maxIters   int
	logIter    int
	saveDir    string
	snapshot   int
	evalEvery  int
	seed       uint64
	workers    int
	numClasses int
	drawThresh float64 // predict prints detections scored at least this
	pretrain   string  // pretrain_weights: a checkpoint folder to start training from
	useEMA     bool    // use_ema: evaluate and save an average of the weights
	emaDecay   float64 // ema_decay (default 0.9998)
	emaType    string  // ema_decay_type: threshold (default) or exponential
	backbone   LCNetOpts
	imported   *PPLCNetV3Opts // backbone PPLCNetV3 (instead of LCNet)
	neck       LCPANOpts
	head       PicoHeadOpts
	loss       lossConfig
	nms        NMSOpts
	lr         LearningRateOpts
	opt        OptimizerBuilderOpts
	train      ReaderOpts
	eval       ReaderOpts
	test       ReaderOpts
	trainDS    config.Component
	evalDS     config.Component
	testDS     config.Component
}

// build decodes and validates a det config.
func build(cfg *config.Config) (workflow.Runner, error) {
	if err := cfg.Validate(Schema()); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, drawThresh: 0.5, epochs: 1, logIter: 20, saveDir: "output/det", seed: 42, snapshot: 1, emaDecay: 0.9998}
	scalars := []struct {
		key string
		v   any
	}{{"epoch", &r.epochs}, {"max_iters", &r.maxIters}, {"log_iter", &r.logIter}, {"save_dir", &r.saveDir},
		{"snapshot_epoch", &r.snapshot}, {"eval_interval", &r.evalEvery}, {"seed", &r.seed}, {"worker_num", &r.workers},
		{"num_classes", &r.numClasses}, {"draw_threshold", &r.drawThresh}, {"use_ema", &r.useEMA}, {"ema_decay", &r.emaDecay},
		{"ema_decay_type", &r.emaType}, {"pretrain_weights", &r.pretrain}, {"LearningRate", &r.lr}, {"OptimizerBuilder", &r.opt},
		{"TrainReader", &r.train}, {"EvalReader", &r.eval}, {"TestReader", &r.test},
		{"TrainDataset", &r.trainDS}, {"EvalDataset", &r.evalDS}, {"TestDataset", &r.testDS}}
	for _, s := range scalars {
		if cfg.Has(s.key) {
			if err := cfg.Decode(s.key, s.v); err != nil {
				return nil, err
			}
		}
	}
	var arch config.Component
	if err := cfg.Decode("architecture", &arch); err != nil {
		return nil, err
	}
	if arch.Name != "PicoDet" {
		return nil, fmt.Errorf("%s: architecture: want PicoDet, got %q", cfg.File, arch.Name)
	}
	var pico PicoDetOpts
	if err := arch.Decode(&pico); err != nil {
		return nil, err
	}
	if (pico.Backbone.Name != "LCNet" && pico.Backbone.Name != "PPLCNetV3") || pico.Neck.Name != "LCPAN" || pico.Head.Name != "PicoHeadV2" {
		return nil, fmt.Errorf("%s: PicoDet: want backbone LCNet or PPLCNetV3, neck LCPAN, head PicoHeadV2", cfg.File)
	}
	r.backbone = LCNetOpts{Scale: 0.75}
	r.neck = LCPANOpts{OutChannels: 96}
	var bb any = &r.backbone
	if pico.Backbone.Name == "PPLCNetV3" {
		r.imported = &PPLCNetV3Opts{}
		bb = r.imported
	}
	for _, p := range []struct {
		c config.Component
		v any
	}{{pico.Backbone, bb}, {pico.Neck, &r.neck}, {pico.Head, &r.head}} {
		if err := p.c.Decode(p.v); err != nil {
			return nil, err
		}
	}
	r.neck.paddle = pico.PaddleLayers
	if r.numClasses <= 0 {
		return nil, fmt.Errorf("%s: num_classes (> 0) is required", cfg.File)
	}
	var err error
	if r.loss, err = newLossConfig(r.head); err != nil {
		return nil, fmt.Errorf("%s: PicoHeadV2.%w", cfg.File, err)
	}
	if r.nms, err = withNMSDefaults(r.head.NMS); err != nil {
		return nil, fmt.Errorf("%s: PicoHeadV2.%w", cfg.File, err)
	}
	m, err := r.newModel()
	if err != nil { // fail early on bad model options
		return nil, fmt.Errorf("%s: %w", cfg.File, err)
	}
	if r.useEMA {
		if _, err := newWeightEMA(m.Params(), r.emaDecay, r.emaType); err != nil {
			return nil, fmt.Errorf("%s: %w", cfg.File, err)
		}
	}
	return r, nil
}

func (r *runner) newModel() (*PicoDet, error) {
	if r.imported != nil {
		return NewPicoDetImported(*r.imported, r.neck, r.head, r.numClasses, rand.New(rand.NewPCG(r.seed, 1)))
	}
	return NewPicoDet(r.backbone, r.neck, r.head, r.numClasses, rand.New(rand.NewPCG(r.seed, 1)))
}

// lrEnv is what a LearningRate scheduler entry is applied with.
type lrEnv struct {
	baseLR        float64
	stepsPerEpoch int
	epochs        *int // the schedule's length in epochs (CosineDecay's max_epochs sets it)
}

// lrScheduler sets optim's LR config for one LearningRate.schedulers entry.
type lrScheduler func(l *optim.LRConfig, s SchedulerOpts, e lrEnv)

// schedulers are the LearningRate.schedulers kinds.
var schedulers = new(config.Choices[lrScheduler]).
	Add("CosineDecay", func(l *optim.LRConfig, s SchedulerOpts, e lrEnv) {
		l.Name = "Cosine"
		l.EtaMin = e.baseLR * s.MinLRRatio
		if s.MaxEpochs > 0 {
			*e.epochs = s.MaxEpochs
		}
	}).
	Add("PiecewiseDecay", func(l *optim.LRConfig, s SchedulerOpts, _ lrEnv) {
		l.Name = "MultiStepDecay"
		l.Milestones = s.Milestones
		l.Gamma = s.Gamma
	}).
	Add("LinearWarmup", func(l *optim.LRConfig, s SchedulerOpts, e lrEnv) {
		l.WarmupStartLR = e.baseLR * s.StartFactor
		l.WarmupEpoch = s.Epochs
		if s.Steps > 0 {
			l.WarmupEpoch = float64(s.Steps) / float64(max(e.stepsPerEpoch, 1))
		}
	})

// optimConfig maps LearningRate and OptimizerBuilder onto core/optim's
// config: CosineDecay with LinearWarmup, or PiecewiseDecay.
func (r *runner) optimConfig(stepsPerEpoch int) (optim.Config, int, error) {
	c := optim.Config{Name: r.opt.Optimizer.Type, Momentum: r.opt.Optimizer.Momentum, WeightDecay: r.opt.Optimizer.WeightDecay,
		ClipNorm: r.opt.ClipGradByNorm}
	if c.Name == "" {
		c.Name = "Momentum"
	}
	if reg := r.opt.Regularizer; reg != nil {
		c.Regularizer = &optim.Regularizer{Name: reg.Type, Factor: reg.Factor}
	}
	c.LR = optim.LRConfig{Name: "Constant", LearningRate: r.lr.BaseLR}
	epochs := r.epochs
	for _, s := range r.lr.Schedulers {
		apply, ok := schedulers.Get(s.Name)
		if !ok {
			return c, 0, fmt.Errorf("LearningRate.schedulers: %q is not supported (known: %s)", s.Name, schedulers.Known())
		}
		apply(&c.LR, s, lrEnv{baseLR: r.lr.BaseLR, stepsPerEpoch: stepsPerEpoch, epochs: &epochs})
	}
	return c, epochs, nil
}

func (r *runner) loader(dsc config.Component, rd ReaderOpts, train bool) (*data.Loader[Sample, Batch], *Dataset, error) {
	ds, err := openDataset(dsc)
	if err != nil {
		return nil, nil, err
	}
	for _, w := range ds.Warnings {
		slog.Warn("dataset", "skipped", w)
	}
	if len(ds.Classes) != r.numClasses {
		return nil, nil, fmt.Errorf("%s: num_classes is %d but %s has %d classes", r.cfg.File, r.numClasses, dsc.Path, len(ds.Classes))
	}
	p, err := buildPipeline(rd)
	if err != nil {
		return nil, nil, err
	}
	var src data.Dataset[Sample] = &detDataset{ds: ds, p: p}
	if dsc.Name == "SynthDataSet" {
		if !train {
			return nil, nil, fmt.Errorf("%s: %s: SynthDataSet is for training only (evaluate on a set written by det synth)", r.cfg.File, dsc.Path)
		}
		if src, err = newSynthSource(dsc, p); err != nil {
			return nil, nil, err
		}
	}
	l := data.NewLoader[Sample, Batch](src, data.LoaderOptions{
		BatchSize: max(rd.BatchSize, 1), DropLast: train && rd.DropLast, Shuffle: train && rd.Shuffle,
		Workers: r.workers, Seed: r.seed,
	}, p.collate)
	return l, ds, nil
}

// cocoMetric gathers detections of the eval set and scores them as pycocotools.
type cocoMetric struct {
	gt      *coco.Dataset
	ds      *Dataset
	dets    []coco.Detection
	rawDets []coco.Detection // with EMA: the raw (not averaged) weights' detections
	withRaw bool
	n       int
}

func (m *cocoMetric) Reset() { m.dets, m.rawDets, m.n = nil, nil, 0 }

func (m *cocoMetric) add(rec *Record, ds []Det) {
	m.n++
	m.dets = m.appendDets(m.dets, rec, ds)
}

func (m *cocoMetric) appendDets(to []coco.Detection, rec *Record, ds []Det) []coco.Detection {
	for _, d := range ds {
		b := d.Box
		to = append(to, coco.Detection{ImageID: rec.ID, CategoryID: m.ds.CategoryIDs[d.Class],
			BBox: [4]float64{b[0], b[1], b[2] - b[0], b[3] - b[1]}, Score: d.Score})
	}
	return to
}

// Result returns bbox mAP (main), AP50, AP75, APs/m/l and AR@100.
func (m *cocoMetric) Result() metric.Report {
	res, err := coco.Evaluate(m.gt, m.dets, coco.DefaultParams())
	rep := metric.Report{Main: "bbox_mAP", Values: map[string]float64{}, Count: m.n}
	if err != nil {
		slog.Error("coco eval", "err", err)
		return rep
	}
	for i, k := range []string{"bbox_mAP", "AP50", "AP75", "APs", "APm", "APl", "AR1", "AR10", "AR100"} {
		rep.Values[k] = res.Stats[i]
	}
	if m.withRaw { // EMA on: the raw weights' numbers, for comparison
		if raw, err := coco.Evaluate(m.gt, m.rawDets, coco.DefaultParams()); err == nil {
			rep.Values["raw_mAP"], rep.Values["raw_AP50"] = raw.Stats[0], raw.Stats[1]
		}
	}
	return rep
}

// predict runs the model on a batch and returns each image's detections in
// its original pixels.
func (r *runner) predict(model *PicoDet, b Batch) [][]Det {
	var scores, boxes []float32
	s := b.X.Shape()
	anc := model.Head.AnchorsFor(s[2], s[3])
	ag.NoGrad(func() {
		out := model.Run(ag.Const(b.X), false)
		scores = ag.Sigmoid(out.Cls).T.Contiguous().F32()
		boxes = model.Head.Decode(out.Reg, anc).T.Contiguous().F32()
	})
	na, k := anc.Len(), r.numClasses
	res := make([][]Det, s[0])
	for i := range s[0] {
		d := PostProcess(scores[i*na*k:(i+1)*na*k], boxes[i*na*4:(i+1)*na*4], k, r.nms)
		res[i] = toOriginal(d, b.SX[i], b.SY[i], b.Sizes[i][0], b.Sizes[i][1])
	}
	return res
}

func (r *runner) task(model *PicoDet, withTrain bool) (*workflow.Task[Batch], error) {
	t := &workflow.Task[Batch]{Model: model, Seed: r.seed}
	var ema *weightEMA
	if withTrain && r.useEMA {
		var err error
		if ema, err = newWeightEMA(append(model.Params(), model.Buffers()...), r.emaDecay, r.emaType); err != nil {
			return nil, fmt.Errorf("%s: %w", r.cfg.File, err)
		}
	}
	if r.evalDS.Name != "" {
		el, eds, err := r.loader(r.evalDS, r.eval, false)
		if err != nil {
			return nil, err
		}
		m := &cocoMetric{gt: eds.COCO(), ds: eds, withRaw: ema != nil}
		t.Metric = m
		t.EvalBatches = func(ctx context.Context) iter.Seq2[Batch, error] { return el.Epoch(ctx, 0) }
		t.Evaluate = func(b Batch) error {
			if ema != nil { // score the raw weights too, then leave the average in for the checkpoints
				ema.useRaw()
				for i, ds := range r.predict(model, b) {
					m.rawDets = m.appendDets(m.rawDets, b.Recs[i], ds)
				}
				ema.useAverage()
			}
			for i, ds := range r.predict(model, b) {
				m.add(b.Recs[i], ds)
			}
			return nil
		}
	}
	if !withTrain {
		return t, nil
	}
	tl, _, err := r.loader(r.trainDS, r.train, true)
	if err != nil {
		return nil, err
	}
	if err := workflow.TrainOn(t, tl, r.train.BatchSize, r.cfg.File, "batch_size"); err != nil {
		return nil, err
	}
	var parts LossParts
	var nParts int
	t.Loss = func(b Batch, info workflow.StepInfo) (*ag.Var, error) {
		if ema != nil {
			ema.useRaw() // an evaluation left the average in the model
		}
		s := b.X.Shape()
		out := model.Run(ag.Const(b.X), true)
		l, p := model.Head.Loss(out, model.Head.AnchorsFor(s[2], s[3]), b.Boxes, b.Classes, r.loss)
		parts.Cls, parts.Box, parts.DFL, parts.Positives = parts.Cls+p.Cls, parts.Box+p.Box, parts.DFL+p.DFL, parts.Positives+p.Positives
		nParts++
		if nParts == max(r.logIter, 1) {
			f := 1 / float64(nParts)
			slog.Info("loss", "step", info.Step+1, "cls", round5(parts.Cls*f), "giou", round5(parts.Box*f), "dfl", round5(parts.DFL*f),
				"positives/batch", round5(float64(parts.Positives)*f), "size", s[2])
			parts, nParts = LossParts{}, 0
		}
		return l, nil
	}
	oc, epochs, err := r.optimConfig(t.StepsPerEpoch)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.cfg.File, err)
	}
	if err := workflow.BuildOptimizer(t, r.cfg.File, oc, epochs, t.StepsPerEpoch); err != nil {
		return nil, err
	}
	if ema != nil {
		t.Optimizer = &emaOptimizer{Optimizer: t.Optimizer, ema: ema}
	}
	t.Schedule = workflow.Schedule{Epochs: r.epochs, MaxSteps: r.maxIters, LogEvery: r.logIter, EvalEvery: r.evalEvery, SaveEvery: r.snapshot}
	return t, nil
}

func round5(v float64) float64 { return float64(int64(v*1e5+0.5)) / 1e5 }

// Train trains the model the config describes.
func (r *runner) Train(ctx context.Context, env workflow.Env) error {
	model, err := r.newModel()
	if err != nil {
		return err
	}
	names := r.labelNames("")
	return workflow.Start[*PicoDet, Batch]{
		Config: r.cfg, Output: r.saveDir, Attrs: []any{"arch", "PicoDet"},
		Pretrained: func(m *PicoDet, env workflow.Env) error {
			if env.Resume != "" { // a resumed run has its own weights
				return nil
			}
			return r.loadPretrained(m)
		},
		// after loading: the EMA starts from the loaded weights
		Task: func(m *PicoDet) (*workflow.Task[Batch], error) { return r.task(m, true) },
		Prepare: func(env workflow.Env) error {
			if names == nil {
				return nil
			}
			return pio.WriteFileAtomic(filepath.Join(env.Output, labelListFile), []byte(strings.Join(names, "\n")+"\n"), 0o644)
		},
	}.Run(ctx, env, model)
}

// loadPretrained starts model from pretrain_weights, when the config sets
// it, as PaddleDetection does: every tensor whose name and shape match is
// copied; the others (a class head for another number of classes) keep
// their initial values and are logged. Only training reads it (not eval or
// predict, whose checkpoints hold all weights), and only when not resuming.
func (r *runner) loadPretrained(model *PicoDet) error {
	if r.pretrain == "" {
		return nil
	}
	bad := func(err error) error { return &config.Error{File: r.cfg.File, Path: "pretrain_weights", Err: err} }
	skipped, err := workflow.LoadPretrained(r.pretrain, model)
	if err != nil {
		return bad(err)
	}
	workflow.LogPretrained("pretrain_weights", r.pretrain, model, skipped)
	return nil
}

// Eval evaluates the checkpoint env.Weights on EvalDataset (COCO bbox mAP).
func (r *runner) Eval(ctx context.Context, env workflow.Env) (metric.Report, error) {
	if r.evalDS.Name == "" {
		return metric.Report{}, fmt.Errorf("%s: EvalDataset is missing", r.cfg.File)
	}
	model, err := r.newModel()
	if err != nil {
		return metric.Report{}, err
	}
	return workflow.EvalCheckpoint(ctx, env.Weights, model, func() (*workflow.Task[Batch], error) { return r.task(model, false) })
}

// evalCOCO runs the checkpoint env.Weights over EvalDataset and returns the
// ground truth and the detections.
func (r *runner) evalCOCO(ctx context.Context, env workflow.Env) (*coco.Dataset, []coco.Detection, error) {
	if r.evalDS.Name == "" {
		return nil, nil, fmt.Errorf("%s: EvalDataset is missing", r.cfg.File)
	}
	model, err := r.newModel()
	if err != nil {
		return nil, nil, err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return nil, nil, err
	}
	t, err := r.task(model, false)
	if err != nil {
		return nil, nil, err
	}
	if _, err := t.Eval(ctx); err != nil {
		return nil, nil, err
	}
	m := t.Metric.(*cocoMetric)
	return m.gt, m.dets, nil
}

// DataFreeModel is the configured PicoDet, untrained; its class count is
// the config's (workflow.DataFreeModel).
func (r *runner) DataFreeModel() (nn.Module, string, error) {
	m, err := r.newModel()
	if err != nil {
		return nil, "", err
	}
	return m, "", nil
}
