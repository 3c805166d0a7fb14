package speech

import (
	"context"
	"fmt"
	"math"
	"os"

	"paddle/core/audio"
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// KWSPrediction is one file's result (a jsonl line of `speech predict` and
// `speech kws`). Start and End (seconds) give the window the label comes
// from when the file is longer than the model's window. A failed file's
// record is workflow.Failed: {"audio", "error"}.
type KWSPrediction struct {
	Audio string   `json:"audio"`
	Label string   `json:"label"`
	Score float64  `json:"score"`
	Start *float64 `json:"start,omitempty"`
	End   *float64 `json:"end,omitempty"`
}

// classifyFunc maps a batch of features (N, 1, T, F) to probabilities (N·classes).
type classifyFunc func(x *tensor.Tensor) ([]float32, error)

// spotter runs a classifier over files.
type spotter struct {
	z        featurizer
	classes  []string
	hop      int // window hop in samples for long files
	classify classifyFunc
	// warps, when set, scores each window under these mel-axis stretches,
	// merged by combine (kws_tta.go): mean, max, or group — one warp per
	// speaker, speakerOf naming each input's (kws_infer.go).
	warps     []float64
	combine   string
	speakerOf func(path string) (string, error)
}

// windows cuts x into the model's windows: one centred window when x fits,
// else windows every hop samples covering x (the last one flush with the end).
func (s *spotter) windows(x []float32) (clips [][]float32, starts []int) {
	n := s.z.samples
	if len(x) <= n {
		return [][]float32{s.z.fit(x, 0)}, []int{-1}
	}
	for at := 0; ; at += s.hop {
		if at+n >= len(x) {
			at = len(x) - n
		}
		clips = append(clips, x[at:at+n])
		starts = append(starts, at)
		if at+n >= len(x) {
			return clips, starts
		}
	}
}

// spot classifies one file (or one word of a Sphinx .mfc file,
// <file>.mfc@<start>-<end>). Over several windows, the answer is the
// keyword window with the highest score if some window's best class is a
// keyword, else the highest-scoring window's class.
func (s *spotter) spot(path string) (KWSPrediction, error) {
	if _, seg, _ := parseMFCPath(path); seg == nil {
		x, err := s.z.load(path)
		if err != nil {
			return KWSPrediction{}, err
		}
		return s.spotSamples(path, x)
	}
	rows, starts, err := s.fileProbs(path)
	if err != nil {
		return KWSPrediction{}, err
	}
	return s.merged(path, rows, starts), nil
}

// spotSamples classifies the mono samples x (at the model's rate) of file,
// the test warps' answers merged per window by mean or max.
func (s *spotter) spotSamples(file string, x []float32) (KWSPrediction, error) {
	rows, starts, err := s.windowProbs(x)
	if err != nil {
		return KWSPrediction{}, err
	}
	return s.merged(file, rows, starts), nil
}

// merged decides file from its windows' rows under the test warps merged
// by mean or max (no warps: the one row).
func (s *spotter) merged(file string, rows [][][]float64, starts []int) KWSPrediction {
	merged := make([][]float64, len(rows))
	for w, r := range rows {
		merged[w] = r[0]
		if len(s.warps) > 0 {
			merged[w] = float64s(combineProbs(r, s.combine))
		}
	}
	p, _ := s.decide(file, merged, starts)
	return p
}

// spotEachWarp classifies file once under each test warp: the answers and
// their unrounded scores, by warp.
func (s *spotter) spotEachWarp(file string) ([]KWSPrediction, []float64, error) {
	rows, starts, err := s.fileProbs(file)
	if err != nil {
		return nil, nil, err
	}
	preds, scores := make([]KWSPrediction, len(rows[0])), make([]float64, len(rows[0]))
	one := make([][]float64, len(rows))
	for j := range rows[0] {
		for w := range rows {
			one[w] = rows[w][j]
		}
		preds[j], scores[j] = s.decide(file, one, starts)
	}
	return preds, scores, nil
}

// decide picks the answer over a file's windows (rows: each window's class
// probabilities); it also returns the unrounded score.
func (s *spotter) decide(file string, rows [][]float64, starts []int) (KWSPrediction, float64) {
	bestW, bestC, bestKW := -1, -1, false
	var bestP float64
	for w, row := range rows {
		c := argmax(row)
		kw := isKeyword(s.classes[c])
		if bestW < 0 || (kw && !bestKW) || (kw == bestKW && row[c] > bestP) {
			bestW, bestC, bestKW, bestP = w, c, kw, row[c]
		}
	}
	p := KWSPrediction{Audio: file, Label: s.classes[bestC], Score: math.Round(bestP*1e5) / 1e5}
	if at := starts[bestW]; at >= 0 {
		st, en := round3(float64(at)/float64(s.z.rate)), round3(float64(at+s.z.samples)/float64(s.z.rate))
		p.Start, p.End = &st, &en
	}
	return p, bestP
}

// fileProbs scores an audio file's windows, or a .mfc word, under each
// test warp: [window][warp][class].
func (s *spotter) fileProbs(path string) ([][][]float64, []int, error) {
	file, seg, err := parseMFCPath(path)
	if err != nil {
		return nil, nil, err
	}
	if seg == nil {
		x, err := s.z.load(path)
		if err != nil {
			return nil, nil, err
		}
		return s.windowProbs(x)
	}
	warps := s.warps
	if len(warps) == 0 {
		warps = []float64{1}
	}
	var feats []*tensor.Tensor
	for _, w := range warps {
		t, err := s.z.mfcFeaturesWarped(file, seg, 5, w)
		if err != nil {
			return nil, nil, err
		}
		feats = append(feats, t)
	}
	p, err := s.probsOf(feats, 1, len(warps))
	return p, []int{-1}, err
}

// windowProbs cuts x into windows and scores each under each test warp
// (one row without warps): [window][warp][class].
func (s *spotter) windowProbs(x []float32) ([][][]float64, []int, error) {
	clips, starts := s.windows(x)
	var rows [][][]float64
	const batch = 32
	for lo := 0; lo < len(clips); lo += batch {
		hi := min(lo+batch, len(clips))
		p, err := s.score(clips[lo:hi], lo)
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, p...)
	}
	return rows, starts, nil
}

// score classifies windows (the first is window number first of its file:
// the dither seed) under each test warp: [window][warp][class].
func (s *spotter) score(clips [][]float32, first int) ([][][]float64, error) {
	warps := s.warps
	if len(warps) == 0 {
		warps = []float64{1}
	}
	var feats []*tensor.Tensor
	for i, c := range clips {
		for _, w := range warps {
			t, err := s.z.featuresWarped(c, uint64(first+i), w, nil, nil)
			if err != nil {
				return nil, err
			}
			feats = append(feats, t)
		}
	}
	return s.probsOf(feats, len(clips), len(warps))
}

// probsOf classifies n windows' features under w warps each (window-major)
// into [window][warp][class].
func (s *spotter) probsOf(feats []*tensor.Tensor, n, w int) ([][][]float64, error) {
	probs, err := s.classify(stack(feats))
	if err != nil {
		return nil, err
	}
	k := len(s.classes)
	if len(feats) != n*w || len(probs) != len(feats)*k {
		return nil, fmt.Errorf("model gave %d scores for %d windows x %d warps of %d classes", len(probs), n, w, k)
	}
	out := make([][][]float64, n)
	for i := range n {
		out[i] = make([][]float64, w)
		for j := range w {
			out[i][j] = float64s(probs[(i*w+j)*k : (i*w+j+1)*k])
		}
	}
	return out, nil
}

func float64s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func stack(ts []*tensor.Tensor) *tensor.Tensor {
	s0 := ts[0].Shape()
	per := s0.NumElements()
	out := tensor.New(tensor.Float32, append([]int{len(ts)}, s0...)...)
	v := out.F32()
	for i, t := range ts {
		copy(v[i*per:], t.F32())
	}
	return out
}

// run spots every input and prints one line each in env.Format.
func (s *spotter) run(ctx context.Context, env workflow.Env, args []string) error {
	inputs, err := env.Inputs(args, audio.Exts)
	if err != nil {
		return config.Usage(err)
	}
	for i, in := range inputs { // a word of a Sphinx .mfc file: <file>.mfc@<start>-<end>
		if file, seg, err := parseMFCPath(in.Path); in.Err != nil && seg != nil && err == nil {
			if _, err := os.Stat(file); err == nil {
				inputs[i].Err = nil
			}
		}
	}
	out := workflow.NewPrinter(env.IO.Out, env.Format, workflow.KeyAudio, func(p KWSPrediction) string {
		return fmt.Sprintf("%s\t%s\t%.5f\n", p.Audio, p.Label, p.Score)
	})
	if s.combine == "group" && len(s.warps) > 0 {
		return s.runGroups(ctx, inputs, out)
	}
	failed, err := workflow.RunOrdered(ctx, inputs, 1, func(_ context.Context, in workflow.Input) (KWSPrediction, error) {
		return s.spot(in.Path)
	}, workflow.PrintResults(out, func(res workflow.Result[KWSPrediction]) KWSPrediction { return res.Value }))
	err = out.Finish(failed, len(inputs), err)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// Predict spots keywords in audio files with the checkpoint env.Weights, or
// with the export directory env.Model (kws_export.go).
func (r *kwsRunner) Predict(ctx context.Context, env workflow.Env, args []string) error {
	s, err := r.spotterFor(env)
	if err != nil {
		return err
	}
	return s.run(ctx, env, args)
}

// spotterFor loads the checkpoint or export env names, with the Infer
// section's test-time setting over the export's and, for a checkpoint,
// Global.ensemble (an export has its ensemble inside).
func (r *kwsRunner) spotterFor(env workflow.Env) (*spotter, error) {
	var s *spotter
	if env.Model != "" { // an export holds its ensemble already
		var err error
		if s, err = loadExportSpotter(env.Model); err != nil {
			return nil, err
		}
	} else {
		model, err := r.newModel()
		if err != nil {
			return nil, err
		}
		if err := r.loadWeights(env.Weights, model); err != nil {
			return nil, err
		}
		ens, err := r.loadEnsemble()
		if err != nil {
			return nil, err
		}
		s = &spotter{z: r.featurizer(), classes: r.classes, hop: r.global.SampleRate / 10,
			classify: modelsClassifier(append([]nn.Layer{model}, ens...))}
	}
	if err := r.infer.apply(s); err != nil {
		return nil, fmt.Errorf("%s: %w", r.cfg.File, err)
	}
	return s, nil
}

// PredictRecord is `speech predict`'s record, for --help (docs/formats.md):
// one per audio file, by the model's task (also `speech kws|cls|asr`'s).
const PredictRecord = `  keyword spotter:  {"audio": string, "label": string, "score": float, "start": float, "end": float}
  audio classifier: {"audio": string, "label": string, "score": float, "topk": [{"label": string, "score": float}, ...]}
  recogniser:       {"audio": string, "text": string}
  start, end: seconds of the window the label comes from (only for files longer than the model's window);
  score: probability, 5 decimals.
  failed: {"audio": string, "error": string}`
