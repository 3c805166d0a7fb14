package speech

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"paddle/core/audio"
	"paddle/core/audio/vorbis"
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
	var cfg *config.Config
	if f.Settings.Config != "" {
		cfg, err = f.LoadConfig()
	} else {
		cfg, err = config.Load(filepath.Join(weights, "config.yaml"), f.Settings.Overrides...)
		err = cmdutil.Usage(err)
	}
	if err != nil {
		return nil, true, err
	}
	if !isClsConfig(cfg) {
		return nil, false, nil
	}
	r, err := buildCls(cfg)
	if err != nil {
		return nil, true, cmdutil.Usage(err)
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
// does) and classifies it: `speech cls`'s object {"file", "label", "score",
// "topk"}. An unreadable, empty or overlong recording is the client's error
// (serve.BadInput).
func (p *ClsPredictor) Predict(_ context.Context, in serve.Input) (any, error) {
	var a *audio.Audio
	var err error
	if bytes.HasPrefix(in.Body, []byte("OggS")) {
		var d *vorbis.Decoded
		if d, err = vorbis.Decode(in.Body); err == nil {
			a = &audio.Audio{Rate: d.Rate, Channels: d.Channels}
		}
	} else {
		a, err = audio.DecodeWAV(bytes.NewReader(in.Body), "body")
	}
	if err != nil {
		return nil, serve.BadInput(err)
	}
	if a.Len() == 0 {
		return nil, serve.BadInput(fmt.Errorf("the recording has no samples"))
	}
	if d := a.Duration(); d > MaxServeSeconds {
		return nil, serve.BadInput(fmt.Errorf("the recording is %.0f s long: the server takes at most %d s", d, MaxServeSeconds))
	}
	if a.Rate != p.c.z.rate {
		if a, err = a.Resample(p.c.z.rate); err != nil {
			return nil, serve.BadInput(err)
		}
	}
	if p.serial {
		p.mu.Lock()
		defer p.mu.Unlock()
	}
	return p.c.predictSamples(in.Name, a.Mono(), p.TopK)
}
