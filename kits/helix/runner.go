package helix

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
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
)

// runner is the helix kit's workflow.Runner for one resolved config.
type runner struct {
	cfg    *config.Config
	global GlobalOpts
	ds     DatasetOpts
	split  SplitOpts
	model  ModelOpts
	opt    optim.Config
	train  BatchOpts
	eval   BatchOpts
	feat   *Featurizer
	cls    bool

	mols  []Molecule // loaded on first use
	parts [3][]int   // train, valid, test
}

// build decodes and validates a helix config.
func build(cfg *config.Config) (workflow.Runner, error) {
	if err := cfg.Validate(Schema()); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg}
	r.global = GlobalOpts{TaskType: "regression", Epochs: 1, Seed: 42, OutputDir: "./output/helix", PrintBatchStep: 20}
	r.train, r.eval = BatchOpts{BatchSize: 32, Shuffle: true}, BatchOpts{BatchSize: 128}
	for _, s := range []struct {
		key string
		v   any
	}{{"Global", &r.global}, {"Dataset", &r.ds}, {"Split", &r.split}, {"Model", &r.model}, {"Optimizer", &r.opt}, {"Train", &r.train}, {"Eval", &r.eval}} {
		if !cfg.Has(s.key) {
			continue
		}
		if err := cfg.Decode(s.key, s.v); err != nil {
			return nil, err
		}
	}
	switch r.global.TaskType {
	case "regression":
	case "classification":
		r.cls = true
	default:
		return nil, fmt.Errorf("%s: Global.task_type %q: want regression or classification", cfg.File, r.global.TaskType)
	}
	if r.model.Name == "" {
		return nil, fmt.Errorf("%s: Model.name is required", cfg.File)
	}
	if len(r.ds.Tasks) == 0 {
		return nil, fmt.Errorf("%s: Dataset.tasks is required", cfg.File)
	}
	var err error
	if r.feat, err = NewFeaturizer(r.model.AtomNames, r.model.BondNames); err != nil {
		return nil, fmt.Errorf("%s: Model.%w", cfg.File, err)
	}
	return r, nil
}

// load reads the dataset and splits it (once).
func (r *runner) load() error {
	if r.mols != nil {
		return nil
	}
	mols, err := LoadDataset(r.ds)
	if err != nil {
		return err
	}
	if r.cls {
		for _, m := range mols {
			for t, v := range m.Labels {
				if !math.IsNaN(v) && v != 0 && v != 1 {
					return fmt.Errorf("%s: %s: task %s label %v: classification wants 0/1 labels (set Dataset.threshold)", r.cfg.File, m.Where, r.ds.Tasks[t], v)
				}
			}
		}
	}
	a, b, c, err := Split(mols, r.split)
	if err != nil {
		return fmt.Errorf("%s: %w", r.cfg.File, err)
	}
	r.mols, r.parts = mols, [3][]int{a, b, c}
	slog.Info("dataset", "molecules", len(mols), "split", cmpStr(r.split.Name, "random"), "train", len(a), "valid", len(b), "test", len(c))
	return nil
}

func cmpStr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// evalPart is the part training evaluation and `eval` score.
func (r *runner) evalPart() []int {
	if r.split.Eval == "valid" {
		return r.parts[1]
	}
	return r.parts[2]
}

func (r *runner) newModel() (*Model, error) {
	return buildModel(r.model, r.feat, len(r.ds.Tasks), rand.New(rand.NewPCG(r.global.Seed, 7)))
}

// DataFreeModel is the configured network, untrained; its outputs are
// the config's Dataset.tasks, so nothing is read (workflow.DataFreeModel).
// A random forest has no gradients to all-reduce.
func (r *runner) DataFreeModel() (nn.Module, string, error) {
	if r.isForest() {
		return nil, "", fmt.Errorf("%s: Model.name RandomForest has no gradients (it is not trained by steps)", r.cfg.File)
	}
	m, err := r.newModel()
	if err != nil {
		return nil, "", err
	}
	return m, "", nil
}

// sample is one featurised molecule.
type sample struct {
	g      *MolGraph
	fp     []float32
	labels []float64
}

// Batch is a collated batch: the graph union or the fingerprints, and the
// labels (B×T, NaN missing).
type Batch struct {
	B      int
	Graph  *GraphBatch
	FP     *tensor.Tensor // (B, bits)
	Labels []float64
}

func (r *runner) isFP() bool { return r.model.Name == "FingerprintMLP" }

// featurize turns molecules into samples.
func (r *runner) featurize(idx []int) []sample {
	out := make([]sample, len(idx))
	for k, i := range idx {
		m := r.mols[i]
		out[k] = r.sampleOf(&m)
	}
	return out
}

func (r *runner) sampleOf(m *Molecule) sample {
	s := sample{labels: m.Labels}
	if r.isFP() {
		s.fp = fingerprint(m, r.model)
	} else {
		s.g = r.feat.Graph(m.Mol)
	}
	return s
}

// fingerprint is the Morgan bit vector as float32 0/1.
func fingerprint(m *Molecule, o ModelOpts) []float32 {
	v := make([]float32, fpBits(o))
	for _, b := range m.Mol.MorganBits(fpRadius(o), fpBits(o)) {
		v[b] = 1
	}
	return v
}

func (r *runner) collate(dense bool) func([]sample) (Batch, error) {
	return func(ss []sample) (Batch, error) {
		b := Batch{B: len(ss)}
		for _, s := range ss {
			b.Labels = append(b.Labels, s.labels...)
		}
		if r.isFP() {
			var fp []float32
			for _, s := range ss {
				fp = append(fp, s.fp...)
			}
			b.FP = tensor.FromSlice(fp, len(ss), fpBits(r.model))
			return b, nil
		}
		gs := make([]*MolGraph, len(ss))
		for i, s := range ss {
			gs[i] = s.g
		}
		b.Graph = r.feat.Batch(gs, dense)
		return b, nil
	}
}

func (r *runner) loader(idx []int, o BatchOpts) *data.Loader[sample, Batch] {
	return data.NewLoader[sample, Batch](data.SliceDataset[sample](r.featurize(idx)), data.LoaderOptions{
		BatchSize: max(o.BatchSize, 1), Shuffle: o.Shuffle, DropLast: o.DropLast, Seed: r.global.Seed,
	}, r.collate(false))
}

// labelScale sets the model's regression scaling from the training labels.
func (r *runner) labelScale(m *Model) {
	if r.cls {
		return
	}
	T := len(r.ds.Tasks)
	mean, std := m.Mean.T.F32(), m.Std.T.F32()
	for t := range T {
		var s, ss, n float64
		for _, i := range r.parts[0] {
			if v := r.mols[i].Labels[t]; !math.IsNaN(v) {
				s, ss, n = s+v, ss+v*v, n+1
			}
		}
		if n == 0 {
			continue
		}
		mu := s / n
		sd := math.Sqrt(math.Max(ss/n-mu*mu, 0))
		if sd < 1e-6 {
			sd = 1
		}
		mean[t], std[t] = float32(mu), float32(sd)
	}
}

// targets returns the batch's labels as the network's targets (scaled for
// regression, 0 where missing) and the mask of present labels.
func (r *runner) targets(m *Model, b Batch) (y, mask *tensor.Tensor, n int) {
	T := len(r.ds.Tasks)
	yv, mv := make([]float32, len(b.Labels)), make([]float32, len(b.Labels))
	mean, std := m.Mean.T.F32(), m.Std.T.F32()
	for i, v := range b.Labels {
		if math.IsNaN(v) {
			continue
		}
		t := i % T
		mv[i] = 1
		n++
		if r.cls {
			yv[i] = float32(v)
		} else {
			yv[i] = (float32(v) - mean[t]) / std[t]
		}
	}
	return tensor.FromSlice(yv, b.B, T), tensor.FromSlice(mv, b.B, T), n
}

// loss is the masked mean of MSE (regression, on scaled labels) or binary
// cross-entropy (classification) over the present labels.
func (r *runner) loss(m *Model, b Batch, rng *rand.Rand) *ag.Var {
	out := m.Raw(inputsOf(&b), true, rng)
	y, mask, n := r.targets(m, b)
	var l *ag.Var
	if r.cls {
		l = nn.BCEWithLogits(out, ag.Const(y), nn.BCEOptions{Weight: ag.Const(mask), Reduction: nn.ReduceSum})
	} else {
		d := ag.Mul(ag.Sub(out, ag.Const(y)), ag.Const(mask))
		l = ag.Sum(ag.Mul(d, d), nil, false)
	}
	return ag.MulScalar(l, 1/float64(max(n, 1)))
}

func (r *runner) task(model *Model, withTrain bool) (*workflow.Task[Batch], error) {
	if err := r.load(); err != nil {
		return nil, err
	}
	t := &workflow.Task[Batch]{Model: model, Seed: r.global.Seed}
	mp := metric.NewMolProp(r.ds.Tasks, r.cls)
	t.Metric = mp
	t.Evaluate = func(b Batch) error {
		pred := model.Predict(inputsOf(&b), r.cls).T.Contiguous().Float64s()
		mp.Update(pred, b.Labels)
		return nil
	}
	if part := r.evalPart(); len(part) > 0 {
		el := r.loader(part, BatchOpts{BatchSize: r.eval.BatchSize})
		t.EvalBatches = func(ctx context.Context) iter.Seq2[Batch, error] { return el.Epoch(ctx, 0) }
	}
	if !withTrain {
		return t, nil
	}
	tl := r.loader(r.parts[0], r.train)
	if err := workflow.TrainOn(t, tl, r.train.BatchSize, r.cfg.File, "batch_size"); err != nil { // ranks split it in a distributed run
		return nil, err
	}
	t.Loss = func(b Batch, info workflow.StepInfo) (*ag.Var, error) { return r.loss(model, b, info.Rand), nil }
	if err := workflow.BuildOptimizer(t, r.cfg.File, r.opt, r.global.Epochs, t.StepsPerEpoch); err != nil {
		return nil, err
	}
	t.Schedule = workflow.Schedule{
		Epochs: r.global.Epochs, MaxSteps: r.global.MaxSteps, LogEvery: r.global.PrintBatchStep,
		EvalEvery: r.global.EvalInterval, SaveEvery: r.global.SaveInterval,
	}
	return t, nil
}

// Train trains the model the config describes.
func (r *runner) Train(ctx context.Context, env workflow.Env) error {
	if env.Output == "" {
		env.Output = r.global.OutputDir
	}
	if r.isForest() {
		return r.trainForest(env.Output)
	}
	model, err := r.newModel()
	if err != nil {
		return err
	}
	return workflow.Start[*Model, Batch]{Config: r.cfg, Output: r.global.OutputDir, Attrs: []any{"model", r.model.Name},
		Task: func(m *Model) (*workflow.Task[Batch], error) {
			t, err := r.task(m, true)
			if err == nil {
				r.labelScale(m)
			}
			return t, err
		}}.Run(ctx, env, model)
}

// Eval evaluates the checkpoint env.Weights on the evaluation part.
func (r *runner) Eval(ctx context.Context, env workflow.Env) (metric.Report, error) {
	if r.isForest() {
		fs, err := loadForests(env.Weights)
		if err != nil {
			return metric.Report{}, err
		}
		if err := r.load(); err != nil {
			return metric.Report{}, err
		}
		return r.evalForest(fs), nil
	}
	model, err := r.newModel()
	if err != nil {
		return metric.Report{}, err
	}
	return workflow.EvalCheckpoint(ctx, env.Weights, model, func() (*workflow.Task[Batch], error) { return r.task(model, false) })
}
