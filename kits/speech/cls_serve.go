package speech

import (
	"context"
	"sync"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/serve"
	"paddle/core/workflow"
)

// clsServePredictor is `paddle serve speech`'s predictor when the export
// (model) or checkpoint (weights, with cfg loaded by the caller when -c is
// given, else its config.yaml) is an audio classifier; ok is false when it
// is not one, and the caller serves a keyword spotter.
func clsServePredictor(f *cmdutil.Factory, model, weights string) (p serve.Predictor, ok bool, err error) {
	if model != "" {
		if !isClsExport(model) {
			return nil, false, nil
		}
		c, err := loadExportClassifier(model)
		return &ClsPredictor{c: c, TopK: 5}, true, err
	}
	cfg, err := cmdutil.ModelConfig(f, weights, "")
	if err != nil {
		return nil, true, err
	}
	if !isClsConfig(cfg) {
		return nil, false, nil
	}
	r, err := buildCls(cfg)
	if err != nil {
		return nil, true, config.Usage(err)
	}
	c, err := r.(*clsRunner).classifierFor(workflow.Env{Weights: weights})
	return &ClsPredictor{c: c, TopK: 5, serial: true}, true, err
}

// ClsPredictor serves an audio classifier over HTTP (core/serve). It is safe
// for concurrent use.
type ClsPredictor struct {
	c      *audioClassifier
	TopK   int // classes per answer
	serial bool
	mu     sync.Mutex
}

// Predict decodes the WAV or Ogg Vorbis file in in.Body (any rate and channel
// count: resampled to the model's rate and averaged to mono, as `speech cls`
// does) and classifies it: `speech cls`'s object {"audio", "label", "score",
// "topk"}. An unreadable, empty or overlong recording is the client's error
// (serve.BadInput).
func (p *ClsPredictor) Predict(_ context.Context, in serve.Input) (any, error) {
	a, err := servedAudio(in.Body, p.c.z.rate)
	if err != nil {
		return nil, err
	}
	if p.serial {
		p.mu.Lock()
		defer p.mu.Unlock()
	}
	return p.c.predictSamples(in.Name, a.Mono(), p.TopK)
}
