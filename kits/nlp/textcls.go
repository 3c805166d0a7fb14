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
	"paddle/core/data"
	"paddle/core/metric"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/tensor"
	"paddle/core/tokenizer"
	"paddle/core/workflow"
)

// textRunner is the text-classification workflow.Runner of one config.
type textRunner struct {
	cfg    *config.Config
	global TextGlobalOpts
	model  config.Component
	opt    optim.Config
	loader TextDataLoaderOpts
	seg    Segmenter

	// filled by prepare
	train  []Example // read only when needed
	labels *LabelMap
	enc    TextEncoder
}

// build decodes and validates a text classification config.
func build(cfg *config.Config) (workflow.Runner, error) {
	if err := cfg.Validate(TextSchema()); err != nil {
		return nil, err
	}
	r := &textRunner{cfg: cfg}
	r.global = TextGlobalOpts{Epochs: 1, Seed: 42, OutputDir: "./output/nlp", PrintBatchStep: 50, MaxSeqLen: 256, VocabSize: 30000, MinFreq: 2}
	if err := cfg.Decode("Global", &r.global); err != nil {
		return nil, err
	}
	var err error
	if r.seg, err = NewSegmenter(r.global.Unit, r.global.NGram); err != nil {
		return nil, fmt.Errorf("%s: Global: %w", cfg.File, err)
	}
	if r.global.Tokenizer != "" && r.global.Unit == "char" {
		return nil, fmt.Errorf("%s: Global: unit char and tokenizer exclude each other", cfg.File)
	}
	if err := cfg.Decode("Model", &r.model); err != nil {
		return nil, err
	}
	if r.model.Name == "" {
		return nil, fmt.Errorf("%s: Model.name is required", cfg.File)
	}
	if err := cfg.Decode("Optimizer", &r.opt); err != nil {
		return nil, err
	}
	if err := cfg.Decode("DataLoader", &r.loader); err != nil {
		return nil, err
	}
	if r.loader.Train == nil {
		return nil, fmt.Errorf("%s: DataLoader.Train is required (its file gives the vocabulary and labels)", cfg.File)
	}
	return r, nil
}

// readSplit reads the file of a split's dataset component.
func (r *textRunner) readSplit(s *TextSplitOpts, labels *LabelMap) ([]Example, *LabelMap, error) {
	return readDataset(s.Dataset, labels)
}

// prepare sets the label map and the text encoder. Labels: label.txt
// beside the checkpoint (weights or its parent), else Global.label_file,
// else the training file's. Encoder: Global.tokenizer when set, else the
// vocab.txt a training run wrote beside the checkpoint, else a word
// vocabulary built from the training file.
func (r *textRunner) prepare(weights string) error {
	if r.enc != nil {
		return nil
	}
	var runDir string
	if weights != "" {
		for _, d := range []string{weights, filepath.Dir(filepath.Clean(weights))} {
			if _, err := os.Stat(filepath.Join(d, "label.txt")); err == nil {
				runDir = d
				break
			}
		}
	}
	var err error
	switch {
	case runDir != "":
		r.labels, err = ReadLabelFile(filepath.Join(runDir, "label.txt"))
	case r.global.LabelFile != "":
		r.labels, err = ReadLabelFile(r.global.LabelFile)
	}
	if err != nil {
		return err
	}
	if r.global.Tokenizer != "" {
		tok, err := tokenizer.Load(r.global.Tokenizer)
		if err != nil {
			return fmt.Errorf("%s: Global.tokenizer: %w", r.cfg.File, err)
		}
		r.enc = &tokEncoder{tok}
	} else if runDir != "" {
		if _, err := os.Stat(filepath.Join(runDir, "vocab.txt")); err == nil {
			if r.enc, err = ReadWordVocab(filepath.Join(runDir, "vocab.txt"), r.seg); err != nil {
				return err
			}
		}
	}
	if r.enc != nil && r.labels != nil {
		return nil
	}
	if err := r.readTrain(); err != nil {
		return err
	}
	if r.enc == nil {
		texts := make([]string, len(r.train))
		for i, e := range r.train {
			texts[i] = e.Text
		}
		r.enc = BuildVocab(texts, r.seg, r.global.VocabSize, r.global.MinFreq)
	}
	return nil
}

// readTrain reads the training file (once), with r.labels or setting it.
func (r *textRunner) readTrain() error {
	if r.train != nil {
		return nil
	}
	train, labels, err := r.readSplit(r.loader.Train, r.labels)
	if err != nil {
		return err
	}
	if len(labels.Names) < 2 {
		return fmt.Errorf("%s: the training file has %d label(s); want at least 2", r.cfg.File, len(labels.Names))
	}
	r.train, r.labels = train, labels
	return nil
}

func (r *textRunner) newModel(weights string) (TextClassifier, error) {
	if err := r.prepare(weights); err != nil {
		return nil, err
	}
	return buildModel(r.model, r.enc.Size(), len(r.labels.Names), r.maxUnits(), rand.New(rand.NewPCG(r.global.Seed, 1)))
}

// DataFreeModel is the configured classifier, untrained, sized as `train`
// sizes it: vocabulary from Global.tokenizer or the training split, labels
// from Global.label_file or the training split (workflow.DataFreeModel;
// assumed says which were read).
func (r *textRunner) DataFreeModel() (nn.Module, string, error) {
	m, err := r.newModel("")
	if err != nil {
		return nil, "", err
	}
	vocab, labels := "the training split", "the training split"
	if r.global.Tokenizer != "" {
		vocab = "Global.tokenizer"
	}
	if r.global.LabelFile != "" {
		labels = "Global.label_file"
	}
	return m, fmt.Sprintf("vocabulary %d from %s, %d labels from %s", r.enc.Size(), vocab, len(r.labels.Names), labels), nil
}

// maxUnits is the most ids a text encodes to (Global.max_seq_len words,
// characters or tokens; a char n-gram vocabulary gives up to ngram per
// character).
func (r *textRunner) maxUnits() int {
	if _, ok := r.enc.(*tokEncoder); ok {
		return r.global.MaxSeqLen
	}
	return r.seg.MaxUnits(r.global.MaxSeqLen)
}

// TextBatch is a collated batch: ids (N, L) int64 padded with PadID, labels (N).
type TextBatch struct {
	IDs    *tensor.Tensor
	Labels *tensor.Tensor
}

// collate encodes and pads texts to the longest in the batch (at least minLen).
func (r *textRunner) collate(minLen int) func([]Example) (TextBatch, error) {
	return func(ex []Example) (TextBatch, error) {
		enc := make([][]int64, len(ex))
		l := max(minLen, 1)
		for i, e := range ex {
			enc[i] = r.enc.Encode(e.Text, r.global.MaxSeqLen)
			l = max(l, len(enc[i]))
		}
		ids := tensor.New(tensor.Int64, len(ex), l)
		y := tensor.New(tensor.Int64, len(ex))
		iv, yv := ids.I64(), y.I64()
		for i, e := range enc {
			copy(iv[i*l:], e)
			yv[i] = int64(ex[i].Label)
		}
		return TextBatch{IDs: ids, Labels: y}, nil
	}
}

func (r *textRunner) loaderFor(ex []Example, s *TextSplitOpts, minLen int) *data.Loader[Example, TextBatch] {
	return data.NewLoader[Example, TextBatch](data.SliceDataset[Example](ex), data.LoaderOptions{
		BatchSize: max(s.Sampler.BatchSize, 1), DropLast: s.Sampler.DropLast, Shuffle: s.Sampler.Shuffle, Seed: r.global.Seed,
	}, r.collate(minLen))
}

func (r *textRunner) task(model TextClassifier, withTrain bool) (*workflow.Task[TextBatch], error) {
	t := &workflow.Task[TextBatch]{Model: model, Seed: r.global.Seed}
	m := metric.NewClassMetric(r.labels.Names)
	t.Metric = m
	t.Evaluate = func(b TextBatch) error {
		var scores []float32
		ag.NoGrad(func() { scores = model.Logits(ag.Const(b.IDs), false).T.Contiguous().F32() })
		labels := make([]int, b.Labels.Shape()[0])
		for i, v := range b.Labels.I64() {
			labels[i] = int(v)
		}
		m.Update(scores, labels)
		return nil
	}
	if r.loader.Eval != nil {
		ev, _, err := r.readSplit(r.loader.Eval, r.labels)
		if err != nil {
			return nil, err
		}
		el := r.loaderFor(ev, r.loader.Eval, model.MinLen())
		t.EvalBatches = func(ctx context.Context) iter.Seq2[TextBatch, error] { return el.Epoch(ctx, 0) }
	}
	if !withTrain {
		return t, nil
	}
	if err := r.readTrain(); err != nil {
		return nil, err
	}
	tl := r.loaderFor(r.train, r.loader.Train, model.MinLen())
	if err := workflow.TrainOn(t, tl, r.loader.Train.Sampler.BatchSize, r.cfg.File, "batch_size"); err != nil {
		return nil, err
	}
	ce := nn.DefaultCrossEntropyOptions()
	t.Loss = func(b TextBatch, _ workflow.StepInfo) (*ag.Var, error) {
		return nn.CrossEntropy(model.Logits(ag.Const(b.IDs), true), b.Labels, ce)
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

// Train trains the classifier the config describes; the vocabulary and
// labels are written to the output folder (vocab.txt, label.txt), where
// eval and predict find them next to the checkpoints.
func (r *textRunner) Train(ctx context.Context, env workflow.Env) error {
	model, err := r.newModel("")
	if err != nil {
		return err
	}
	return workflow.Start[TextClassifier, TextBatch]{
		Config: r.cfg, Output: r.global.OutputDir, Attrs: []any{"model", r.model.Name},
		Sizes: []any{"vocab", r.enc.Size(), "labels", r.labels.Names, "samples", len(r.train)},
		Task:  func(m TextClassifier) (*workflow.Task[TextBatch], error) { return r.task(m, true) },
		Prepare: func(env workflow.Env) error {
			if err := writeLines(filepath.Join(env.Output, "label.txt"), r.labels.Names); err != nil {
				return err
			}
			if v, ok := r.enc.(*WordVocab); ok {
				return writeLines(filepath.Join(env.Output, "vocab.txt"), v.Words)
			}
			return nil
		},
	}.Run(ctx, env, model)
}

// Eval evaluates the checkpoint env.Weights on DataLoader.Eval.
func (r *textRunner) Eval(ctx context.Context, env workflow.Env) (metric.Report, error) {
	if r.loader.Eval == nil {
		return metric.Report{}, fmt.Errorf("%s: DataLoader.Eval is missing", r.cfg.File)
	}
	model, err := r.newModel(env.Weights)
	if err != nil {
		return metric.Report{}, err
	}
	return workflow.EvalCheckpoint(ctx, env.Weights, model, func() (*workflow.Task[TextBatch], error) { return r.task(model, false) })
}

// TextPrediction is one line of `nlp predict` for a classifier. A line that
// failed is workflow.Failed: {"text", "error"}.
type TextPrediction struct {
	Text  string  `json:"text"`
	Label string  `json:"label"`
	Score float64 `json:"score"`
}

// Predict classifies each line of the files in args (stdin when none, or
// "-") with the checkpoint env.Weights or the export env.Model, writing one
// jsonl object per line (text: `label<TAB>score<TAB>text`).
func (r *textRunner) Predict(ctx context.Context, env workflow.Env, args []string) error {
	var s *textScorer
	var err error
	if env.Model != "" {
		s, err = loadExportScorer(env.Model, 0)
	} else {
		s, err = r.checkpointScorer(env.Weights)
	}
	if err != nil {
		return err
	}
	return predictLines(ctx, env, args, func(p TextPrediction) string {
		return fmt.Sprintf("%s\t%.5f\t%s\n", p.Label, p.Score, p.Text)
	}, s.Classify)
}
