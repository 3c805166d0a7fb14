package speech

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"paddle/core/audio"
	"paddle/core/config"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// ClsPrediction is one file's result (a jsonl line of `speech cls` and of
// `speech predict` with a classifier): the best class and the top k. A
// failed file's record is workflow.Failed: {"audio", "error"}.
type ClsPrediction struct {
	Audio string     `json:"audio"`
	Label string     `json:"label"`
	Score float64    `json:"score"`
	TopK  []ClsScore `json:"topk"`
}

// ClsScore is one class and its probability (mean over the file's windows).
type ClsScore struct {
	Label string  `json:"label"`
	Score float64 `json:"score"`
}

// audioClassifier runs a classifier (eager model or export) over files.
type audioClassifier struct {
	z        clsFeaturizer
	classes  []string
	classify func(x *tensor.Tensor) ([]float32, error) // (N, 1, T, F) -> N·classes probabilities
}

// probs returns the class probabilities of the mono samples x (at the
// model's rate) of file: the mean over its windows.
func (c *audioClassifier) probs(file string, x []float32) ([]float32, error) {
	feats, n, err := c.z.samplesFeatures(file, x)
	if err != nil {
		return nil, err
	}
	xb, err := clsWindows(feats, n, c.z, nil, nil)
	if err != nil {
		return nil, err
	}
	k := len(c.classes)
	w := xb.Shape()[0]
	var all []float32
	const batch = 32
	per := c.z.win * c.z.mels
	for lo := 0; lo < w; lo += batch {
		hi := min(lo+batch, w)
		part := tensor.New(tensor.Float32, hi-lo, 1, c.z.win, c.z.mels)
		copy(part.F32(), xb.F32()[lo*per:hi*per])
		p, err := c.classify(part)
		if err != nil {
			return nil, err
		}
		if len(p) != (hi-lo)*k {
			return nil, fmt.Errorf("model gave %d scores for %d windows of %d classes", len(p), hi-lo, k)
		}
		all = append(all, p...)
	}
	return clipMeans(all, make([]int, w), 1, k), nil
}

// predictSamples classifies the mono samples x of file.
func (c *audioClassifier) predictSamples(file string, x []float32, topk int) (ClsPrediction, error) {
	p, err := c.probs(file, x)
	if err != nil {
		return ClsPrediction{}, err
	}
	return c.prediction(file, p, topk), nil
}

// prediction ranks probabilities p: highest first, ties to the lower class.
func (c *audioClassifier) prediction(file string, p []float32, topk int) ClsPrediction {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] > p[idx[b]] })
	out := ClsPrediction{Audio: file, Label: c.classes[idx[0]], Score: clsRound5(p[idx[0]])}
	for _, i := range idx[:min(max(topk, 1), len(idx))] {
		out.TopK = append(out.TopK, ClsScore{Label: c.classes[i], Score: clsRound5(p[i])})
	}
	return out
}

func clsRound5(x float32) float64 { return math.Round(float64(x)*1e5) / 1e5 }

// run classifies every input and prints one line each in env.Format.
func (c *audioClassifier) run(ctx context.Context, env workflow.Env, args []string, topk int) error {
	inputs, err := env.Inputs(args, audio.Exts)
	if err != nil {
		return config.Usage(err)
	}
	out := workflow.NewPrinter(env.IO.Out, env.Format, workflow.KeyAudio, func(p ClsPrediction) string {
		parts := make([]string, len(p.TopK))
		for i, s := range p.TopK {
			parts[i] = fmt.Sprintf("%s %.5f", s.Label, s.Score)
		}
		return fmt.Sprintf("%s\t%s\n", p.Audio, strings.Join(parts, "\t"))
	})
	failed, err := workflow.RunOrdered(ctx, inputs, 1, func(_ context.Context, in workflow.Input) (ClsPrediction, error) {
		x, err := c.z.load(in.Path)
		if err != nil {
			return ClsPrediction{}, err
		}
		if len(x) == 0 {
			return ClsPrediction{}, fmt.Errorf("%s: no samples", in.Path)
		}
		return c.predictSamples(in.Path, x, topk)
	}, workflow.PrintResults(out, func(res workflow.Result[ClsPrediction]) ClsPrediction { return res.Value }))
	err = out.Finish(failed, len(inputs), err)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// Predict classifies audio files with the checkpoint env.Weights, or with
// the export directory env.Model; each line has the top 5 classes.
func (r *clsRunner) Predict(ctx context.Context, env workflow.Env, args []string) error {
	c, err := r.classifierFor(env)
	if err != nil {
		return err
	}
	return c.run(ctx, env, args, 5)
}
