package speech

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"math/rand/v2"
	"time"

	"paddle/core/ag"
	"paddle/core/config"
	"paddle/core/metric"
	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// The recogniser on the shared verbs: `paddle speech train|eval|export|predict
// -c configs/speech/asr_gru.yaml`. Features are computed once per run and
// kept in memory; batches group utterances of similar length.

// asrRunner is the recogniser's workflow.Runner for one resolved config.
type asrRunner struct {
	cfg *config.Config
	c   *ASRConfig
}

var (
	_ workflow.Runner   = (*asrRunner)(nil)
	_ workflow.Exporter = (*asrRunner)(nil)
)

// buildASR decodes and checks a recogniser config.
func buildASR(cfg *config.Config) (workflow.Runner, error) {
	c, err := decodeASRConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &asrRunner{cfg: cfg, c: c}, nil
}

// asrBatch is a batch of utterances: features, target ids and references.
type asrBatch struct {
	feats [][][]float32
	ids   [][]int64
	refs  []string
}

func (r *asrRunner) workers() int { return max(r.c.Training.NumWorkers, 2) }

// loadManifest reads a manifest named by a data key and computes its features.
func (r *asrRunner) loadManifest(ctx context.Context, key, path string, limit int) (*asrSet, error) {
	if path == "" {
		return nil, fmt.Errorf("%s: data.%s is not set", r.c.file, key)
	}
	items, err := readManifest(path)
	if err != nil {
		return nil, fmt.Errorf("%s: data.%s: %w\nhint: `paddle speech asr-synth --output DIR` or `paddle speech asr-data --output DIR` write manifests", r.c.file, key, err)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%s: data.%s: %s lists no utterance", r.c.file, key, path)
	}
	return loadASRSet(ctx, items, r.c.Feature, limit, r.workers())
}

// asrMetric accumulates CER and WER; its main value is 1 − CER (higher is better).
type asrMetric struct {
	e      metric.ErrorRates
	method string
}

func (m *asrMetric) Reset() { m.e = metric.ErrorRates{} }

func (m *asrMetric) Result() metric.Report {
	rep := errorReport(&m.e, m.method)
	return metric.Report{Main: "char_acc", Count: rep.Utterances, Values: map[string]float64{
		"cer": rep.CER, "wer": rep.WER, "char_acc": round5(1 - rep.CER), "words": float64(rep.Words), "chars": float64(rep.Chars),
	}}
}

// task wires the model to the data; train may be nil (evaluation only).
func (r *asrRunner) task(model *asrModel, train, dev *asrSet) (*workflow.Task[asrBatch], error) {
	c := r.c
	t := &workflow.Task[asrBatch]{Model: model, Seed: c.Training.Seed}
	m := &asrMetric{method: c.Decoding.DecodingMethod}
	rec := &recognizer{feat: c.Feature, dec: c.Decoding, logProbs: modelLogProbs(model)}
	t.Metric = m
	t.Evaluate = func(b asrBatch) error {
		texts, err := rec.decode(b.feats)
		for i, text := range texts {
			m.e.Add(b.refs[i], text)
		}
		return err
	}
	if dev != nil {
		t.EvalBatches = func(ctx context.Context) iter.Seq2[asrBatch, error] { return dev.seq(ctx, 32, nil, 0, nil) }
	}
	if train == nil {
		return t, nil
	}
	groups := func(epoch, size int) [][]int {
		return train.batches(size, rand.New(rand.NewPCG(c.Training.Seed, uint64(epoch)+1)))
	}
	batch := func(_ context.Context, epoch int, g []int) (asrBatch, error) {
		return train.batch(g, func(i int, f [][]float32) ([][]float32, error) {
			sa := c.Training.SpecAugment
			if sa == nil {
				return f, nil
			}
			rng := rand.New(rand.NewPCG(c.Training.Seed^0x5ec, uint64(epoch)<<32|uint64(i)))
			return specAugment(f, featureSpecAugment(*sa), rng)
		})
	}
	// utterances bucketed by length; ranks split each global batch in a distributed run
	if err := workflow.TrainGroups(t, c.Training.BatchSize, groups, batch, c.file, "training.batch_size"); err != nil {
		return nil, err
	}
	t.Loss = func(b asrBatch, _ workflow.StepInfo) (*ag.Var, error) {
		x, lengths, tg, tl := batchTensors(b.feats, b.ids)
		lp, outLens := model.forward(ag.Const(x), lengths, true)
		il := make([]int64, len(outLens))
		for i, v := range outLens {
			il[i] = int64(v)
		}
		return nn.CTCLoss(lp, tg, tensor.FromSlice(il, len(il)), tl, nn.CTCOptions{ZeroInfinity: true}), nil
	}
	// the schedule's epochs are refitted to a rank's share in a distributed run
	if err := workflow.BuildOptimizer(t, c.file+": training.optim", c.Training.Optim, max(c.Training.NEpoch, 1), t.StepsPerEpoch); err != nil {
		return nil, err
	}
	t.Schedule = workflow.Schedule{Epochs: max(c.Training.NEpoch, 1), MaxSteps: c.Training.MaxSteps,
		LogEvery: c.Training.LogInterval, EvalEvery: max(c.Training.EvalInterval, 1)}
	return t, nil
}

// seq yields the set as batches: in length order, or shuffled by order,
// from batch start on; aug (may be nil) transforms utterance i's features.
func (s *asrSet) seq(ctx context.Context, size int, order *rand.Rand, start int, aug func(i int, f [][]float32) ([][]float32, error)) iter.Seq2[asrBatch, error] {
	return func(yield func(asrBatch, error) bool) {
		for bi, b := range s.batches(size, order) {
			if bi < start {
				continue
			}
			if err := ctx.Err(); err != nil {
				yield(asrBatch{}, err)
				return
			}
			out, err := s.batch(b, aug)
			if !yield(out, err) || err != nil {
				return
			}
		}
	}
}

// batch is the batch of utterances g; aug (may be nil) transforms
// utterance i's features.
func (s *asrSet) batch(g []int, aug func(i int, f [][]float32) ([][]float32, error)) (asrBatch, error) {
	out := asrBatch{feats: make([][][]float32, len(g)), ids: make([][]int64, len(g)), refs: make([]string, len(g))}
	for j, i := range g {
		out.feats[j], out.ids[j], out.refs[j] = s.feats[i], s.ids[i], s.items[i].Text
		if aug != nil {
			f, err := aug(i, s.feats[i])
			if err != nil {
				return asrBatch{}, err
			}
			out.feats[j] = f
		}
	}
	return out, nil
}

// Train trains the recogniser on data.train_manifest, evaluating
// data.dev_manifest after every eval_interval epochs (best = lowest CER).
func (r *asrRunner) Train(ctx context.Context, env workflow.Env) error {
	t0 := time.Now()
	train, err := r.loadManifest(ctx, "train_manifest", r.c.Data.TrainManifest, r.c.Training.MaxClips)
	if err != nil {
		return err
	}
	dev, err := r.loadManifest(ctx, "dev_manifest", r.c.Data.DevManifest, 0)
	if err != nil {
		return err
	}
	slog.Info("asr features", "train", len(train.items), "dev", len(dev.items), "s", time.Since(t0).Seconds())
	model, err := newASRModel(r.c)
	if err != nil {
		return err
	}
	return workflow.Start[*asrModel, asrBatch]{Config: r.cfg, Output: r.c.Training.OutputDir, Attrs: []any{"model", "DeepSpeech2"},
		Pretrained: func(m *asrModel, env workflow.Env) error {
			return loadInitWeights(m, r.c.Training.InitFrom, env, r.c.file, "training.init_from", "init_from")
		},
		Task: func(m *asrModel) (*workflow.Task[asrBatch], error) { return r.task(m, train, dev) }}.Run(ctx, env, model)
}

// Eval scores the checkpoint env.Weights on data.dev_manifest with the
// config's decoding: cer, wer and char_acc = 1 − cer.
func (r *asrRunner) Eval(ctx context.Context, env workflow.Env) (metric.Report, error) {
	dev, err := r.loadManifest(ctx, "dev_manifest", r.c.Data.DevManifest, 0)
	if err != nil {
		return metric.Report{}, err
	}
	model, err := newASRModel(r.c)
	if err != nil {
		return metric.Report{}, err
	}
	return workflow.EvalCheckpoint(ctx, env.Weights, model, func() (*workflow.Task[asrBatch], error) { return r.task(model, nil, dev) })
}

// Predict transcribes the inputs with a checkpoint (--weights) or an
// export (--model): one {audio, text} per input.
func (r *asrRunner) Predict(ctx context.Context, env workflow.Env, inputs []string) error {
	rec, err := r.recognizerFor(env)
	if err != nil {
		return err
	}
	return rec.run(ctx, env, inputs)
}

// recognizerFor loads the export or checkpoint env names.
func (r *asrRunner) recognizerFor(env workflow.Env) (*recognizer, error) {
	if env.Model != "" {
		return loadExportRecognizer(env.Model)
	}
	model, err := newASRModel(r.c)
	if err != nil {
		return nil, err
	}
	if _, err := workflow.LoadCheckpoint(env.Weights, model, nil); err != nil {
		return nil, err
	}
	return &recognizer{feat: r.c.Feature, dec: r.c.Decoding, logProbs: modelLogProbs(model)}, nil
}

// DataFreeModel is the configured recognizer, untrained; its output is the
// fixed character set asrVocab (workflow.DataFreeModel).
func (r *asrRunner) DataFreeModel() (nn.Module, string, error) {
	m, err := newASRModel(r.c)
	if err != nil {
		return nil, "", err
	}
	return m, "", nil
}
