package dettrain

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/imgproc"
	"paddle/core/metric"
	"paddle/core/optim"
	"paddle/core/tensor"
	"paddle/core/workflow"
	"paddle/kits/ocr/internal/train"
	"paddle/kits/ocr/rectrain"
)

// runner is the detection workflow.Runner for one resolved config.
type runner struct {
	cfg    *config.Config
	global GlobalOpts
	arch   ArchOpts
	opt    optim.Config
	loss   DBLoss
	post   DBPost
	metric DetMetricOpts
	train  *SplitOpts
	eval   *SplitOpts
}

// mainLosses are the Loss.main_loss_type values (loss.go; default DiceLoss).
var mainLosses = config.NameSet("DiceLoss", "BCELoss")

// boxTypes are the PostProcess.box_type values.
var boxTypes = config.NameSet("quad")

// Build decodes and validates a detection config (PaddleOCR layout,
// Architecture.model_type det, algorithm DB).
func Build(cfg *config.Config) (workflow.Runner, error) {
	if err := cfg.Validate(Schema()); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg}
	r.global = GlobalOpts{EpochNum: 1, Seed: 42, PrintBatchStep: 10, SaveModelDir: "./output/det"}
	if err := cfg.Decode("Global", &r.global); err != nil {
		return nil, err
	}
	if err := cfg.Decode("Architecture", &r.arch); err != nil {
		return nil, err
	}
	var lo DBLossOpts
	if err := decodeSection(cfg, "Loss", "DBLoss", &lo); err != nil {
		return nil, err
	}
	if _, ok := mainLosses.Get(lo.MainLossType); lo.MainLossType != "" && !ok {
		return nil, fmt.Errorf("%s: Loss.main_loss_type %q is not implemented (known: %s)", cfg.File, lo.MainLossType, mainLosses.Known())
	}
	r.loss = newDBLoss(lo)
	if cfg.Has("Optimizer") {
		if err := cfg.Decode("Optimizer", &r.opt); err != nil {
			return nil, err
		}
	}
	var po DBPostProcessOpts
	if err := decodeSection(cfg, "PostProcess", "DBPostProcess", &po); err != nil {
		return nil, err
	}
	if _, ok := boxTypes.Get(po.BoxType); po.BoxType != "" && !ok {
		return nil, fmt.Errorf("%s: PostProcess.box_type %q is not implemented (known: %s)", cfg.File, po.BoxType, boxTypes.Known())
	}
	r.post = newDBPost(po)
	if err := decodeSection(cfg, "Metric", "DetMetric", &r.metric); err != nil {
		return nil, err
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
	if _, err := buildModel(r.arch, rand.New(rand.NewPCG(1, 1))); err != nil {
		return nil, err
	}
	return r, nil
}

// decodeSection decodes an optional component section named want.
func decodeSection(cfg *config.Config, key, want string, v any) error {
	if !cfg.Has(key) {
		return nil
	}
	var c config.Component
	if err := cfg.Decode(key, &c); err != nil {
		return err
	}
	return decodeNamed(c, want, v)
}

func (r *runner) newModel() (*DBNet, error) {
	return buildModel(r.arch, rand.New(rand.NewPCG(r.global.Seed, 1)))
}

// dataset builds a split's SimpleDataSet with its transforms.
func (r *runner) dataset(s *SplitOpts, withLabels bool) (data.RandDataset[Sample], error) {
	var o SimpleDataSetOpts
	if err := decodeNamed(s.Dataset, "SimpleDataSet", &o); err != nil {
		return nil, err
	}
	rs, err := ratioList(o.RatioList)
	if err != nil {
		return nil, s.Dataset.Errorf("%v", err)
	}
	lines, err := rectrain.ReadLabelLines(o.LabelFileList, rs, r.global.Seed)
	if err != nil {
		return nil, s.Dataset.Errorf("%v", err)
	}
	items := make([]rectrain.DetItem, len(lines))
	for i, l := range lines {
		if items[i], err = rectrain.ParseDetLine(l, o.DataDir, o.Delimiter); err != nil {
			return nil, s.Dataset.Errorf("%v", err)
		}
	}
	if len(items) == 0 {
		return nil, s.Dataset.Errorf("the label files have no lines")
	}
	t, err := buildTransforms(o.Transforms, withLabels)
	if err != nil {
		return nil, err
	}
	base := data.FuncDataset[Sample]{N: len(items), F: func(i int) (Sample, error) {
		s := Sample{Path: items[i].Path}
		for _, b := range items[i].Boxes {
			p := make([]imgproc.Point, len(b.Points))
			for j, q := range b.Points {
				p[j] = imgproc.Point{X: q[0], Y: q[1]}
			}
			s.Polys = append(s.Polys, p)
			s.Ignore = append(s.Ignore, b.Ignore)
		}
		return s, nil
	}}
	return data.WithTransform[Sample](base, t), nil
}

// ratioList reads ratio_list: nil, a number, or a list of numbers.
func ratioList(v any) ([]float64, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		out := make([]float64, len(x))
		for i, e := range x {
			f, err := number(e, 0)
			if err != nil {
				return nil, fmt.Errorf("ratio_list[%d]: %w", i, err)
			}
			out[i] = f
		}
		return out, nil
	}
	f, err := number(v, 1)
	if err != nil {
		return nil, fmt.Errorf("ratio_list: %w", err)
	}
	return []float64{f}, nil
}

func (r *runner) loader(s *SplitOpts, training bool) (*data.Loader[Sample, Batch], error) {
	ds, err := r.dataset(s, training)
	if err != nil {
		return nil, err
	}
	return data.NewLoader[Sample, Batch](ds, data.LoaderOptions{
		BatchSize: max(s.Loader.BatchSizePerCard, 1), DropLast: s.Loader.DropLast, Shuffle: s.Loader.Shuffle,
		Workers: s.Loader.NumWorkers, Seed: r.global.Seed,
	}, func(ss []Sample) (Batch, error) { return collate(ss, training) }), nil
}

// Batch is a collated batch of pages.
type Batch struct {
	X      *tensor.Tensor // (N, 3, H, W) float32
	Labels Labels         // training targets (N, H, W); nil tensors in evaluation
	Polys  [][][]imgproc.Point
	Ignore [][]bool
	SrcH   []int
	SrcW   []int
	Paths  []string
}

func collate(ss []Sample, training bool) (Batch, error) {
	n := len(ss)
	h, w := ss[0].Image.H, ss[0].Image.W
	for _, s := range ss {
		if s.X == nil {
			return Batch{}, fmt.Errorf("%s: no NormalizeImage in the transforms", s.Path)
		}
		if s.X.Dim(1) != h || s.X.Dim(2) != w || s.X.Dim(1) != s.Image.H || s.X.Dim(2) != s.Image.W {
			return Batch{}, fmt.Errorf("%s: image %dx%d differs from the batch's %dx%d (use batch_size_per_card 1 or a fixed size)", s.Path, s.X.Dim(2), s.X.Dim(1), w, h)
		}
		if h%32 != 0 || w%32 != 0 {
			return Batch{}, fmt.Errorf("%s: image %dx%d: the DB network needs sides that are multiples of 32", s.Path, w, h)
		}
	}
	b := Batch{X: tensor.New(tensor.Float32, n, 3, h, w)}
	xv := b.X.F32()
	for i, s := range ss {
		copy(xv[i*3*h*w:], s.X.F32())
		b.Polys = append(b.Polys, s.Polys)
		b.Ignore = append(b.Ignore, s.Ignore)
		b.SrcH, b.SrcW = append(b.SrcH, s.SrcH), append(b.SrcW, s.SrcW)
		b.Paths = append(b.Paths, s.Path)
	}
	if !training {
		return b, nil
	}
	maps := [4]*tensor.Tensor{}
	for k := range maps {
		maps[k] = tensor.New(tensor.Float32, n, h, w)
	}
	for i, s := range ss {
		if s.ShrinkMap == nil || s.ThreshMap == nil {
			return Batch{}, fmt.Errorf("%s: the Train transforms need MakeBorderMap and MakeShrinkMap", s.Path)
		}
		for k, src := range [][]float32{s.ShrinkMap, s.ShrinkMask, s.ThreshMap, s.ThreshMask} {
			copy(maps[k].F32()[i*h*w:], src)
		}
	}
	b.Labels = Labels{ShrinkMap: maps[0], ShrinkMask: maps[1], ThreshMap: maps[2], ThreshMask: maps[3]}
	return b, nil
}

// decode runs the post-process on probability maps (N, 1, H, W).
func (r *runner) decode(prob *tensor.Tensor, b Batch) [][][4]imgproc.Point {
	n, h, w := prob.Dim(0), prob.Dim(2), prob.Dim(3)
	pv := prob.Contiguous().F32()
	out := make([][][4]imgproc.Point, n)
	for i := range n {
		pred := imgproc.MatF{H: h, W: w, Pix: pv[i*h*w : (i+1)*h*w]}
		out[i], _ = r.post.Boxes(pred, b.SrcW[i], b.SrcH[i])
	}
	return out
}

func (r *runner) task(model *DBNet, withTrain bool) (*workflow.Task[Batch], error) {
	t := &workflow.Task[Batch]{Model: model, Seed: r.global.Seed}
	m := &DetMetric{Main: r.metric.MainIndicator}
	t.Metric = m
	t.Evaluate = func(b Batch) error {
		boxes := r.decode(model.Forward(ag.Const(b.X), false).T, b)
		for i := range boxes {
			det := make([][]imgproc.Point, len(boxes[i]))
			for j := range boxes[i] {
				det[j] = boxes[i][j][:]
			}
			m.Update(b.Polys[i], b.Ignore[i], det)
		}
		return nil
	}
	if r.eval != nil {
		el, err := r.loader(r.eval, false)
		if err != nil {
			return nil, err
		}
		t.EvalBatches = func(ctx context.Context) iter.Seq2[Batch, error] { return el.Epoch(ctx, 0) }
	}
	if !withTrain {
		return t, nil
	}
	if r.train == nil || !r.cfg.Has("Optimizer") {
		return nil, fmt.Errorf("%s: training needs the Train and Optimizer sections", r.cfg.File)
	}
	tl, err := r.loader(r.train, true)
	if err != nil {
		return nil, err
	}
	if err := workflow.TrainOn(t, tl, r.train.Loader.BatchSizePerCard, r.cfg.File, "batch_size_per_card"); err != nil {
		return nil, err
	}
	t.Loss = func(b Batch, _ workflow.StepInfo) (*ag.Var, error) {
		loss, _ := r.loss.Loss(model.Forward(ag.Const(b.X), true), b.Labels)
		return loss, nil
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
		func(m *DBNet) (*workflow.Task[Batch], error) { return r.task(m, true) }, "algorithm", "DB")
}

// Eval evaluates the checkpoint env.Weights on the Eval split: precision, recall, hmean.
func (r *runner) Eval(ctx context.Context, env workflow.Env) (metric.Report, error) {
	if r.eval == nil {
		return metric.Report{}, fmt.Errorf("%s: the Eval section is missing", r.cfg.File)
	}
	model, err := r.newModel()
	if err != nil {
		return metric.Report{}, err
	}
	return workflow.EvalCheckpoint(ctx, env.Weights, model, func() (*workflow.Task[Batch], error) { return r.task(model, false) })
}
