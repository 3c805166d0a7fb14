package nlp

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"
	"os"
	"path/filepath"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/metric"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// tagRunner is the sequence-labelling workflow.Runner of one config.
type tagRunner struct {
	cfg    *config.Config
	global TextGlobalOpts
	model  config.Component
	opt    optim.Config
	loader TextDataLoaderOpts

	// filled by prepare
	train  *tagSplit
	enc    *tagEncoder
	labels *LabelMap
	span   bool // BIO-style tags: span F1 is the main metric
}

// buildTagging decodes and validates a tagging config.
func buildTagging(cfg *config.Config) (workflow.Runner, error) {
	if err := cfg.Validate(KitSchema()); err != nil {
		return nil, err
	}
	r := &tagRunner{cfg: cfg}
	r.global = TextGlobalOpts{Epochs: 1, Seed: 42, OutputDir: "./output/nlp_tagger", PrintBatchStep: 50, MaxSeqLen: 256, VocabSize: 50000, MinFreq: 2}
	for _, s := range []struct {
		key string
		v   any
	}{{"Global", &r.global}, {"Model", &r.model}, {"Optimizer", &r.opt}, {"DataLoader", &r.loader}} {
		if s.key == "Global" && !cfg.Has("Global") {
			continue // all defaults
		}
		if err := cfg.Decode(s.key, s.v); err != nil {
			return nil, err
		}
	}
	if r.loader.Train == nil {
		return nil, fmt.Errorf("%s: DataLoader.Train is required (its sentences give the vocabulary and tags)", cfg.File)
	}
	return r, nil
}

// runDirOf returns the folder holding label.txt next to a checkpoint
// (weights itself or its parent), or "".
func runDirOf(weights string) string {
	if weights == "" {
		return ""
	}
	for _, d := range []string{weights, filepath.Dir(filepath.Clean(weights))} {
		if _, err := os.Stat(filepath.Join(d, "label.txt")); err == nil {
			return d
		}
	}
	return ""
}

// prepare sets the vocabularies and tags: from the files a training run
// wrote beside the checkpoint (vocab.txt, chars.txt, label.txt), else from
// the training split.
func (r *tagRunner) prepare(weights string) error {
	if r.enc != nil {
		return nil
	}
	runDir := runDirOf(weights)
	enc := &tagEncoder{}
	if runDir != "" {
		var err error
		if enc.words, err = readTagVocab(filepath.Join(runDir, "vocab.txt")); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(runDir, "chars.txt")); err == nil {
			if enc.chars, err = readTagVocab(filepath.Join(runDir, "chars.txt")); err != nil {
				return err
			}
		}
	} else {
		if err := r.readTrain(); err != nil {
			return err
		}
		enc.words, enc.chars = buildTagVocabs(r.train.sents, r.global.VocabSize, max(r.global.MinFreq, 1))
	}
	var train []TagSentence
	if runDir == "" {
		train = r.train.sents
	}
	labels, err := tagLabels(runDir, r.global.LabelFile, train)
	if err != nil {
		return err
	}
	enc.labels, r.labels = labels, labels
	r.span = isSpanTags(labels.Names)
	r.enc = enc
	return nil
}

func (r *tagRunner) readTrain() error {
	if r.train != nil {
		return nil
	}
	s, err := readTagSplit(r.loader.Train.Dataset)
	if err != nil {
		return err
	}
	if m := r.global.MaxSeqLen; m > 0 {
		for i, x := range s.sents {
			if len(x.Tokens) > m {
				x.Tokens, x.Tags = x.Tokens[:m], x.Tags[:m]
				s.sents[i] = x
			}
		}
	}
	r.train = &s
	return nil
}

func (r *tagRunner) newModel(weights string) (*Tagger, error) {
	if err := r.prepare(weights); err != nil {
		return nil, err
	}
	chars := 2
	if r.enc.chars != nil {
		chars = len(r.enc.chars.Items)
	}
	m, err := buildTagger(r.model, len(r.enc.words.Items), chars, len(r.labels.Names), rand.New(rand.NewPCG(r.global.Seed, 1)))
	if err != nil {
		return nil, err
	}
	if m.UsesChars() {
		r.enc.wordLen = m.wordLen
		if r.enc.chars == nil {
			return nil, fmt.Errorf("%s: the model reads chars but the run folder has no chars.txt", r.cfg.File)
		}
	} else {
		r.enc.chars = nil
	}
	return m, nil
}

// DataFreeModel is the configured tagger, untrained, sized as `train`
// sizes it: words and characters from the training split, tags from
// Global.label_file or the training split (workflow.DataFreeModel; assumed
// says which were read).
func (r *tagRunner) DataFreeModel() (nn.Module, string, error) {
	m, err := r.newModel("")
	if err != nil {
		return nil, "", err
	}
	labels := "the training split"
	if r.global.LabelFile != "" {
		labels = "Global.label_file"
	}
	chars := ""
	if r.enc.chars != nil {
		chars = fmt.Sprintf(", %d characters", len(r.enc.chars.Items))
	}
	return m, fmt.Sprintf("%d words%s from the training split, %d tags from %s", len(r.enc.words.Items), chars, len(r.labels.Names), labels), nil
}

// TagMetric scores predicted tag sequences: token accuracy, and for span
// tags seqeval's span precision/recall/F1 (main) per type.
type TagMetric struct {
	seq  *metric.SeqEval
	span bool
}

// Reset clears the counts.
func (m *TagMetric) Reset() { m.seq.Reset() }

// Add scores one sentence.
func (m *TagMetric) Add(truth, pred []string) error { return m.seq.Add(truth, pred) }

// Result reports accuracy (main without span tags) or seqeval's f1 (main),
// precision, recall, per-type f1 and accuracy.
func (m *TagMetric) Result() metric.Report {
	rep := m.seq.Result()
	if m.span {
		return rep.Report()
	}
	return metric.Report{Main: "accuracy", Count: rep.Sentences, Values: map[string]float64{"accuracy": rep.Accuracy, "tokens": float64(rep.Tokens)}}
}

func (r *tagRunner) newMetric(ev *tagSplit) (*TagMetric, error) {
	scheme := metric.IOB2
	if ev != nil && ev.strict {
		var err error
		if scheme, err = metric.ParseScheme(ev.scheme); err != nil {
			return nil, err
		}
	}
	return &TagMetric{seq: metric.NewSeqEval(ev != nil && ev.strict, scheme), span: r.span}, nil
}

func (r *tagRunner) names(path []int) []string {
	out := make([]string, len(path))
	for i, c := range path {
		out[i] = r.labels.Names[c]
	}
	return out
}

func (r *tagRunner) task(model *Tagger, withTrain bool) (*workflow.Task[TagBatch], error) {
	t := &workflow.Task[TagBatch]{Model: model, Seed: r.global.Seed}
	var ev *tagSplit
	if r.loader.Eval != nil {
		s, err := readTagSplit(r.loader.Eval.Dataset)
		if err != nil {
			return nil, err
		}
		ev = &s
		bs := max(r.loader.Eval.Sampler.BatchSize, 1)
		t.EvalBatches = func(ctx context.Context) iter.Seq2[TagBatch, error] {
			return r.enc.lengthBatches(ev.sents, bs, false, 0)(ctx, 0, 0)
		}
	}
	m, err := r.newMetric(ev)
	if err != nil {
		return nil, err
	}
	t.Metric = m
	t.Evaluate = func(b TagBatch) error {
		var em *tensor.Tensor
		ag.NoGrad(func() { em = model.Emissions(ag.Const(b.Words), constOrNil(b.Chars), b.Lengths, false).T })
		for i, p := range model.Decode(em, b.Lengths) {
			if err := m.Add(b.Sents[i].Tags, r.names(p)); err != nil {
				return err
			}
		}
		return nil
	}
	if !withTrain {
		return t, nil
	}
	if err := r.readTrain(); err != nil {
		return nil, err
	}
	bs := max(r.loader.Train.Sampler.BatchSize, 1)
	groups := func(epoch, size int) [][]int {
		return lengthGroups(r.train.sents, size, r.loader.Train.Sampler.Shuffle, r.global.Seed, epoch)
	}
	batch := func(_ context.Context, _ int, g []int) (TagBatch, error) { return r.enc.groupBatch(r.train.sents, g) }
	if err := workflow.TrainGroups(t, bs, groups, batch, r.cfg.File, "batch_size"); err != nil { // ranks split it in a distributed run
		return nil, err
	}
	t.Loss = func(b TagBatch, info workflow.StepInfo) (*ag.Var, error) {
		var across nn.Reducer
		if info.Comm != nil {
			across = info.Comm
		}
		return tagLoss(model, b, across)
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

func constOrNil(t *tensor.Tensor) *ag.Var {
	if t == nil {
		return nil
	}
	return ag.Const(t)
}

// tagLoss is the CRF negative log-likelihood summed over the batch and
// divided by its token count (token cross-entropy without a CRF); with the
// ranks of a data-parallel run in across (nil alone), summed and counted
// over all ranks' batches (nn.SumAcross), so the ranks' averaged gradients
// are one process's at the global batch.
func tagLoss(model *Tagger, b TagBatch, across nn.Reducer) (*ag.Var, error) {
	em := model.Emissions(ag.Const(b.Words), constOrNil(b.Chars), b.Lengths, true)
	tokens := 0
	for _, l := range b.Lengths {
		tokens += l
	}
	if model.CRF != nil {
		nll := model.CRF.NLL(em, b.Tags, b.Lengths)
		g := nn.SumAcross(across, ag.Sum(nll, nil, false), ag.Scalar(em, float64(tokens))) // all ranks' tokens
		return ag.MulScalar(g[0], 1/max(g[1].Item(), 1)), nil
	}
	// padding positions get the ignored label
	n, t := b.Tags.Dims2()
	y := b.Tags.Clone()
	yv := y.I64()
	for i, l := range b.Lengths {
		for j := l; j < t; j++ {
			yv[i*t+j] = nn.DefaultIgnoreIndex
		}
	}
	k := em.Shape()[2]
	o := nn.DefaultCrossEntropyOptions()
	o.Across = across // the mean over all ranks' tokens
	return nn.CrossEntropy(ag.Reshape(em, n*t, k), y.Reshape(n*t), o)
}

// Train trains the tagger; vocab.txt, chars.txt (with char features) and
// label.txt go to the output folder, where eval and predict find them.
func (r *tagRunner) Train(ctx context.Context, env workflow.Env) error {
	model, err := r.newModel("")
	if err != nil {
		return err
	}
	return workflow.Start[*Tagger, TagBatch]{
		Config: r.cfg, Output: r.global.OutputDir, Attrs: []any{"model", r.model.Name},
		Sizes: []any{"words", len(r.enc.words.Items), "tags", len(r.labels.Names), "sentences", len(r.train.sents)},
		Task:  func(m *Tagger) (*workflow.Task[TagBatch], error) { return r.task(m, true) },
		Prepare: func(env workflow.Env) error {
			if err := writeLines(filepath.Join(env.Output, "label.txt"), r.labels.Names); err != nil {
				return err
			}
			if err := writeTagVocab(filepath.Join(env.Output, "vocab.txt"), r.enc.words); err != nil {
				return err
			}
			if r.enc.chars != nil {
				return writeTagVocab(filepath.Join(env.Output, "chars.txt"), r.enc.chars)
			}
			return nil
		},
	}.Run(ctx, env, model)
}

// Eval evaluates the checkpoint env.Weights on DataLoader.Eval.
func (r *tagRunner) Eval(ctx context.Context, env workflow.Env) (metric.Report, error) {
	if r.loader.Eval == nil {
		return metric.Report{}, fmt.Errorf("%s: DataLoader.Eval is missing", r.cfg.File)
	}
	model, err := r.newModel(env.Weights)
	if err != nil {
		return metric.Report{}, err
	}
	return workflow.EvalCheckpoint(ctx, env.Weights, model, func() (*workflow.Task[TagBatch], error) { return r.task(model, false) })
}
