package speech

import (
	"context"
	"sync"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/serve"
	"paddle/core/workflow"
)

// asrServePredictor is `paddle serve speech`'s predictor when the export
// (model) or checkpoint (weights, its config from -c when given, else its
// config.yaml) is a CTC recogniser; ok is false when it is not one, and the
// caller tries the other models.
func asrServePredictor(f *cmdutil.Factory, model, weights string) (p serve.Predictor, ok bool, err error) {
	if model != "" {
		if !isASRExport(model) {
			return nil, false, nil
		}
		rec, err := loadExportRecognizer(model)
		return &ASRPredictor{rec: rec}, true, err
	}
	cfg, err := cmdutil.ModelConfig(f, weights, "")
	if err != nil {
		return nil, true, err
	}
	if !isASRConfig(cfg) {
		return nil, false, nil
	}
	r, err := buildASR(cfg)
	if err != nil {
		return nil, true, config.Usage(err)
	}
	rec, err := r.(*asrRunner).recognizerFor(workflow.Env{Weights: weights})
	return &ASRPredictor{rec: rec, serial: true}, true, err
}

// isASRExport reports whether the export directory dir holds a recogniser
// (its inference.yaml's PostProcess is CTCDecode).
func isASRExport(dir string) bool {
	return exportPostProcess(dir) == "CTCDecode"
}

// ASRPredictor serves a CTC recogniser over HTTP (core/serve). It is safe for
// concurrent use: an export's runtime predictor runs requests concurrently, a
// checkpoint's Go model one at a time.
type ASRPredictor struct {
	rec    *recognizer
	serial bool
	mu     sync.Mutex
}

// Predict decodes the WAV or Ogg Vorbis file in in.Body (any rate and channel
// count: resampled to the model's rate and averaged to mono, as `speech asr`
// does) and transcribes it: `speech asr`'s object {"audio", "text"}, "audio"
// being the request's name. An unreadable, empty or overlong recording is the
// client's error (serve.BadInput).
func (p *ASRPredictor) Predict(_ context.Context, in serve.Input) (any, error) {
	a, err := servedAudio(in.Body, p.rec.feat.SampleRate)
	if err != nil {
		return nil, err
	}
	fe, err := asrFeatures(a.Mono(), p.rec.feat)
	if err != nil {
		return nil, serve.BadInput(err)
	}
	if p.serial {
		p.mu.Lock()
		defer p.mu.Unlock()
	}
	texts, err := p.rec.decode([][][]float32{fe})
	if err != nil {
		return nil, err
	}
	return ASRResult{Audio: in.Name, Text: texts[0]}, nil
}
