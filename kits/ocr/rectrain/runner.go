package rectrain

import (
	"context"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/metric"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/tensor"
	"paddle/core/workflow"
	"paddle/kits/ocr/internal/train"
)

// runner is the recognition workflow.Runner for one resolved config.
type runner struct {
	cfg    *config.Config
	global GlobalOpts
	arch   ArchOpts
	opt    optim.Config
	dict   *Dict
	metric RecMetricOpts
	train  *SplitOpts
	eval   *SplitOpts
	focal  bool
}

// Build decodes and validates a recognition config (PaddleOCR layout,
// Architecture.model_type rec, algorithm CRNN).
func Build(cfg *config.Config) (workflow.Runner, error) {
	if err := cfg.Validate(Schema()); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg}
	r.global = GlobalOpts{EpochNum: 1, MaxTextLength: 25, Seed: 42, PrintBatchStep: 10, SaveModelDir: "./output/rec"}
	if err := cfg.Decode("Global", &r.global); err != nil {
		return nil, err
	}
	if err := cfg.Decode("Architecture", &r.arch); err != nil {
		return nil, err
	}
	if cfg.Has("Loss") {
		var loss config.Component
		if err := cfg.Decode("Loss", &loss); err != nil {
			return nil, err
		}
		var lo CTCLossOpts
		if err := decodeNamed(loss, "CTCLoss", &lo); err != nil {
			return nil, err
		}
		if lo.UseFocalLoss {
			return nil, loss.Errorf("CTCLoss.use_focal_loss is not implemented")
		}
	}
	if err := cfg.Decode("Optimizer", &r.opt); err != nil {
		return nil, err
	}
	dictPath, space := r.global.CharacterDictPath, r.global.UseSpaceChar
	if cfg.Has("PostProcess") {
		var pp config.Component
		if err := cfg.Decode("PostProcess", &pp); err != nil {
			return nil, err
		}
		var po CTCLabelDecodeOpts
		if err := decodeNamed(pp, "CTCLabelDecode", &po); err != nil {
			return nil, err
		}
		if po.CharacterDictPath != "" {
			dictPath = po.CharacterDictPath
		}
		if po.UseSpaceChar != nil {
			space = *po.UseSpaceChar
		}
	}
	var err error
	if r.dict, err = LoadDict(dictPath, space); err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.File, err)
	}
	if cfg.Has("Metric") {
		var mc config.Component
		if err := cfg.Decode("Metric", &mc); err != nil {
			return nil, err
		}
		if err := decodeNamed(mc, "RecMetric", &r.metric); err != nil {
			return nil, err
		}
	}
	for _, s := range []struct {
		key string
		dst **SplitOpts
	}{{"Train", &r.train}, {"Eval", &r.eval}} {
		if cfg.Has(s.key) {
			*s.dst = &SplitOpts{}
			if err := cfg.Decode(s.key, *s.dst); err != nil {
				return nil, err
			}
		}
	}
	return r, nil
}

func (r *runner) newModel() (Recognizer, error) {
	m, err := buildModel(r.arch, r.dict.NumClasses(), rand.New(rand.NewPCG(r.global.Seed, 1)))
	if err != nil {
		return nil, err
	}
	if h, w, ok := fixedInput(m); ok {
		for _, s := range []*SplitOpts{r.train, r.eval} {
			if s == nil {
				continue
			}
			var o SimpleDataSetOpts
			if err := decodeNamed(s.Dataset, "SimpleDataSet", &o); err != nil {
				return nil, err
			}
			for _, c := range o.Transforms {
				if c.Name != "RecResizeImg" {
					continue
				}
				var ro RecResizeImgOpts
				if err := c.Decode(&ro); err != nil {
					return nil, err
				}
				if len(ro.ImageShape) != 3 || ro.ImageShape[1] != h || ro.ImageShape[2] != w || ro.EvalMode {
					return nil, c.Errorf("RecResizeImg.image_shape %v (eval_mode %v): the backbone takes %d×%d images exactly (its img_size), eval_mode false", ro.ImageShape, ro.EvalMode, h, w)
				}
			}
		}
	}
	return m, nil
}

// fixedInput is the one input size (height, width) m takes, if it has one
// (PaddleOCR's SVTRNet without a Transform: its position embedding and
// Local masks).
func fixedInput(m Recognizer) (h, w int, ok bool) {
	if c, isCRNN := m.(*PaddleCRNN); isCRNN && c.Transform == nil { // STN_ON rectifies any size to img_size
		if b, fixed := c.Backbone.(*PaddleSVTRNet); fixed {
			return b.imgSize[0], b.imgSize[1], true
		}
	}
	return 0, 0, false
}

func (r *runner) newMetric() *RecMetric {
	ignore := r.metric.IgnoreSpace == nil || *r.metric.IgnoreSpace
	return &RecMetric{IgnoreSpace: ignore, IsFilter: r.metric.IsFilter, Main: r.metric.MainIndicator}
}

// dataset builds a split's SimpleDataSet with its transforms.
func (r *runner) dataset(s *SplitOpts, withLabels bool) (data.RandDataset[Sample], error) {
	var o SimpleDataSetOpts
	if err := decodeNamed(s.Dataset, "SimpleDataSet", &o); err != nil {
		return nil, err
	}
	rs, err := ratios(o.RatioList)
	if err != nil {
		return nil, s.Dataset.Errorf("%v", err)
	}
	lines, err := ReadLabelLines(o.LabelFileList, rs, r.global.Seed)
	if err != nil {
		return nil, s.Dataset.Errorf("%v", err)
	}
	items := make([]RecItem, len(lines))
	for i, l := range lines {
		if items[i], err = ParseRecLine(l, o.DataDir, o.Delimiter); err != nil {
			return nil, s.Dataset.Errorf("%v", err)
		}
	}
	if len(items) == 0 {
		return nil, s.Dataset.Errorf("the label files have no lines")
	}
	t, _, err := buildTransforms(o.Transforms, r.global, withLabels)
	if err != nil {
		return nil, err
	}
	base := data.FuncDataset[Sample]{N: len(items), F: func(i int) (Sample, error) {
		return Sample{Path: items[i].Path, Text: items[i].Text}, nil
	}}
	return data.WithTransform[Sample](base, t), nil
}

func (r *runner) loader(s *SplitOpts) (*data.Loader[Sample, Batch], error) {
	ds, err := r.dataset(s, true)
	if err != nil {
		return nil, err
	}
	return data.NewLoader[Sample, Batch](ds, data.LoaderOptions{
		BatchSize: max(s.Loader.BatchSizePerCard, 1), DropLast: s.Loader.DropLast, Shuffle: s.Loader.Shuffle,
		Workers: s.Loader.NumWorkers, Seed: r.global.Seed,
	}, r.collate), nil
}

// Batch is a collated batch of lines.
type Batch struct {
	X          *tensor.Tensor // (N, C, H, W) float32, right-padded to the widest line
	Targets    *tensor.Tensor // (N, S) int64 classes, 0-padded
	TargetLens *tensor.Tensor // (N) int64
	Texts      []string       // the targets as text (after encoding: unknown characters dropped)
	Paths      []string
}

func (r *runner) collate(ss []Sample) (Batch, error) {
	c, h := ss[0].X.Dim(0), ss[0].X.Dim(1)
	w, s := 0, 1
	for _, x := range ss {
		if x.X.Dim(0) != c || x.X.Dim(1) != h {
			return Batch{}, fmt.Errorf("%s: image tensor %v does not match %v", x.Path, x.X.Shape(), ss[0].X.Shape())
		}
		w, s = max(w, x.X.Dim(2)), max(s, len(x.Label))
	}
	n := len(ss)
	b := Batch{X: tensor.New(tensor.Float32, n, c, h, w), Targets: tensor.New(tensor.Int64, n, s), TargetLens: tensor.New(tensor.Int64, n)}
	xv, tv, lv := b.X.F32(), b.Targets.I64(), b.TargetLens.I64()
	for i, x := range ss {
		src, sw := x.X.F32(), x.X.Dim(2)
		for row := range c * h {
			copy(xv[(i*c*h+row)*w:], src[row*sw:(row+1)*sw])
		}
		for j, l := range x.Label {
			tv[i*s+j] = int64(l)
		}
		lv[i] = int64(len(x.Label))
		b.Texts = append(b.Texts, r.dict.Text(x.Label))
		b.Paths = append(b.Paths, x.Path)
	}
	return b, nil
}

// ctcLoss is PaddleOCR's CTCLoss: the mean over the batch of each line's
// −log p(target) (not divided by the target length). Lines too long for
// the model's time steps contribute 0 instead of +Inf.
func ctcLoss(logits *ag.Var, b Batch) *ag.Var {
	t, n := logits.Shape()[0], logits.Shape()[1]
	il := tensor.Full(tensor.Int64, float64(t), n)
	nll := nn.CTCLoss(ag.LogSoftmax(logits, -1), b.Targets, il, b.TargetLens, nn.CTCOptions{Reduction: nn.ReduceNone, ZeroInfinity: true})
	return ag.Mean(nll, nil, false)
}

// decodeBatch turns logits (T, N, K) into texts and confidences (mean
// softmax probability of the kept steps).
func decodeBatch(d *Dict, logits *tensor.Tensor) ([]string, []float64) {
	t, n, k := logits.Dim(0), logits.Dim(1), logits.Dim(2)
	lv := logits.Contiguous().F32()
	texts, confs := make([]string, n), make([]float64, n)
	seq := make([]float32, t*k)
	for i := range n {
		for tt := range t {
			copy(seq[tt*k:(tt+1)*k], lv[(tt*n+i)*k:(tt*n+i+1)*k])
		}
		text, kept := d.Decode(seq, t, k)
		texts[i] = text
		var sum float64
		for _, kc := range kept {
			row := seq[kc[1]*k : (kc[1]+1)*k]
			mx := float64(row[kc[0]])
			var z float64
			for _, v := range row {
				z += math.Exp(float64(v) - mx)
			}
			sum += 1 / z
		}
		if len(kept) > 0 {
			confs[i] = sum / float64(len(kept))
		}
	}
	return texts, confs
}

func (r *runner) task(model Recognizer, withTrain bool) (*workflow.Task[Batch], error) {
	t := &workflow.Task[Batch]{Model: model, Seed: r.global.Seed}
	m := r.newMetric()
	t.Metric = m
	t.Evaluate = func(b Batch) error {
		texts, _ := decodeBatch(r.dict, model.Forward(ag.Const(b.X), false).T)
		m.Update(texts, b.Texts)
		return nil
	}
	if r.eval != nil {
		el, err := r.loader(r.eval)
		if err != nil {
			return nil, err
		}
		t.EvalBatches = func(ctx context.Context) iter.Seq2[Batch, error] { return el.Epoch(ctx, 0) }
	}
	if !withTrain {
		return t, nil
	}
	if r.train == nil {
		return nil, fmt.Errorf("%s: the Train section is missing", r.cfg.File)
	}
	tl, err := r.loader(r.train)
	if err != nil {
		return nil, err
	}
	if err := workflow.TrainOn(t, tl, r.train.Loader.BatchSizePerCard, r.cfg.File, "batch_size_per_card"); err != nil {
		return nil, err
	}
	t.Loss = func(b Batch, _ workflow.StepInfo) (*ag.Var, error) {
		return ctcLoss(model.Forward(ag.Const(b.X), true), b), nil
	}
	if err := train.Optimize(t, r.cfg.File, r.opt, r.global.Steps()); err != nil {
		return nil, err
	}
	return t, nil
}

// Train trains the model the config describes.
func (r *runner) Train(ctx context.Context, env workflow.Env) error {
	model, err := r.newModel()
	if err != nil {
		return err
	}
	return train.Start(ctx, env, r.cfg, &r.global, model,
		func(m Recognizer) (*workflow.Task[Batch], error) { return r.task(m, true) },
		"algorithm", r.algorithm(), "classes", r.dict.NumClasses())
}

// Eval evaluates the checkpoint env.Weights on the Eval split. With Backbone
// ONNXModel, env.Weights may name the model file itself (as model_file or as
// a path) to evaluate the imported weights before any fine-tuning.
func (r *runner) Eval(ctx context.Context, env workflow.Env) (metric.Report, error) {
	if r.eval == nil {
		return metric.Report{}, fmt.Errorf("%s: the Eval section is missing", r.cfg.File)
	}
	model, err := r.newModel()
	if err != nil {
		return metric.Report{}, err
	}
	if im, ok := model.(*importedRec); ok && im.isSource(env.Weights) {
		// --weights names the imported model itself: evaluate its own weights
		t, err := r.task(model, false)
		if err != nil {
			return metric.Report{}, err
		}
		return t.Eval(ctx)
	}
	return workflow.EvalCheckpoint(ctx, env.Weights, model, func() (*workflow.Task[Batch], error) { return r.task(model, false) })
}

// Prediction is one line image's recognised text; a failed image's
// record is workflow.Failed: {"image", "error"}.
type Prediction struct {
	Image string  `json:"image"`
	Text  string  `json:"text"`
	Score float64 `json:"score"`
}

// Predict recognises line images with the checkpoint env.Weights, using the
// Eval split's image transforms.
func (r *runner) Predict(ctx context.Context, env workflow.Env, args []string) error {
	model, err := r.newModel()
	if err != nil {
		return err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return err
	}
	split := r.eval
	if split == nil {
		split = r.train
	}
	if split == nil {
		return fmt.Errorf("%s: no Eval or Train transforms to preprocess with", r.cfg.File)
	}
	var o SimpleDataSetOpts
	if err := split.Dataset.Decode(&o); err != nil {
		return err
	}
	tr, _, err := buildTransforms(o.Transforms, r.global, false)
	if err != nil {
		return err
	}
	inputs, err := env.Inputs(args, workflow.ImageExts)
	if err != nil {
		return config.Usage(err)
	}
	out := workflow.NewPrinter(env.IO.Out, env.Format, workflow.KeyImage, func(p Prediction) string {
		return fmt.Sprintf("%s\t%s\t%.5f\n", p.Image, p.Text, p.Score)
	})
	failed, err := workflow.RunOrdered(ctx, inputs, 1, func(_ context.Context, in workflow.Input) (Prediction, error) {
		s := Sample{Path: in.Path}
		if _, err := tr.Apply(&s, rand.New(rand.NewPCG(0, 0))); err != nil {
			return Prediction{}, err
		}
		var texts []string
		var confs []float64
		ag.NoGrad(func() {
			x := ag.Const(s.X.Reshape(append([]int{1}, s.X.Shape()...)...))
			texts, confs = decodeBatch(r.dict, model.Forward(x, false).T)
		})
		return Prediction{Text: texts[0], Score: math.Round(confs[0]*1e5) / 1e5}, nil
	}, workflow.PrintResults(out, func(res workflow.Result[Prediction]) Prediction {
		p := res.Value
		p.Image = res.Input.Path
		return p
	}))
	return out.Finish(failed, len(inputs), err)
}

// DataFreeModel is the configured recognizer, untrained; its classes are
// the config's character dictionary's (workflow.DataFreeModel).
func (r *runner) DataFreeModel() (nn.Module, string, error) {
	m, err := r.newModel()
	if err != nil {
		return nil, "", err
	}
	return m, "", nil
}
