package speech

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/spf13/cobra"

	"os"
	"paddle/core/audio"
	"paddle/core/audio/vorbis"
	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/serve"
	"paddle/core/workflow"

	"gopkg.in/yaml.v3"
)

// MaxServeSeconds bounds the length of a served recording, so a small body at
// a low sample rate cannot make the server resample and scan hours of audio.
const MaxServeSeconds = 600

// Serve is the kit's kit.Kit.Serve: `paddle serve speech --model DIR` serves
// a keyword-spotting export (paddle speech export), `--weights DIR` a training
// checkpoint (with the config.yaml saved in it, or -c); an audio classifier's
// export or checkpoint is served by ClsPredictor (cls_serve.go), a CTC
// recogniser's by ASRPredictor (asr_serve.go: {"audio", "text"}) instead. A request body is one
// WAV file, answered with `speech kws`'s object {"audio", "label", "score"[,
// "start", "end"]}; "audio" is the request's name (?name= or the multipart
// file name), else "".
func Serve(f *cmdutil.Factory, cmd *cobra.Command) func(context.Context) (serve.Predictor, error) {
	m := cmdutil.ServeModelFlags(cmd, "speech")
	cmd.Flags().Lookup("model").Usage += ": a keyword spotter, audio classifier or recogniser"
	var hopMs float64
	cmd.Flags().Float64Var(&hopMs, "hop-ms", 100, "window hop for recordings longer than the model's window (ms)")
	cmd.Example = "  paddle serve speech --model output/kws_dscnn/export --addr 127.0.0.1:8080\n" +
		"  curl --data-binary @yes.wav http://127.0.0.1:8080/v1/speech"
	return func(ctx context.Context) (serve.Predictor, error) {
		if err := m.Check(); err != nil {
			return nil, err
		}
		model, weights := m.Model, m.Weights
		// an audio classifier (cls_serve.go) answers `speech cls`'s object
		if p, ok, err := clsServePredictor(f, model, weights); ok || err != nil {
			return p, err
		}
		// a CTC recogniser (asr_serve.go) answers `speech asr`'s object
		if p, ok, err := asrServePredictor(f, model, weights); ok || err != nil {
			return p, err
		}
		var s *spotter
		var err error
		if model != "" {
			s, err = loadExportSpotter(model)
		} else {
			var cfg *config.Config
			if cfg, err = cmdutil.ModelConfig(f, weights, ""); err != nil {
				return nil, err
			}
			var r workflow.Runner
			if r, err = buildKWS(cfg); err != nil {
				return nil, config.Usage(err)
			}
			s, err = r.(*kwsRunner).spotterFor(workflow.Env{Weights: weights})
		}
		if err != nil {
			return nil, err
		}
		if hopMs > 0 {
			s.hop = max(int(hopMs*float64(s.z.rate)/1000), 1)
		}
		// The runtime's predictors are safe for concurrent use; an eager
		// checkpoint model is run one request at a time.
		return &KWSPredictor{spotter: s, serial: weights != ""}, nil
	}
}

// KWSPredictor serves a keyword spotter over HTTP (core/serve). It is safe for
// concurrent use.
type KWSPredictor struct {
	spotter *spotter
	serial  bool
	mu      sync.Mutex
}

// Predict decodes the WAV or Ogg Vorbis file in in.Body (any rate and
// channel count: it is resampled to the model's rate and averaged to mono, as
// `speech kws` does) and spots the keyword in it. An unreadable, empty or overlong recording is the
// client's error (serve.BadInput).
func (p *KWSPredictor) Predict(_ context.Context, in serve.Input) (any, error) {
	a, err := servedAudio(in.Body, p.spotter.z.rate)
	if err != nil {
		return nil, err
	}
	if p.serial {
		p.mu.Lock()
		defer p.mu.Unlock()
	}
	return p.spotter.spotSamples(in.Name, a.Mono())
}

// servedAudio decodes a request body, a WAV or Ogg Vorbis file, and
// resamples it to rate. An unreadable, empty or overlong recording is the
// client's error (serve.BadInput).
func servedAudio(body []byte, rate int) (*audio.Audio, error) {
	var a *audio.Audio
	var err error
	if bytes.HasPrefix(body, []byte("OggS")) {
		var d *vorbis.Decoded
		if d, err = vorbis.Decode(body); err == nil {
			a = &audio.Audio{Rate: d.Rate, Channels: d.Channels}
		}
	} else {
		a, err = audio.DecodeWAV(bytes.NewReader(body), "body")
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
	if a.Rate != rate {
		if a, err = a.Resample(rate); err != nil {
			return nil, serve.BadInput(err)
		}
	}
	return a, nil
}

// exportPostProcess returns the PostProcess name of the export directory
// dir's inference.yaml ("" when it cannot be read), which tells the
// spotter, classifier and recogniser exports apart.
func exportPostProcess(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, workflow.ExportInferenceFile))
	if err != nil {
		return ""
	}
	var v struct {
		PostProcess struct {
			Name string `yaml:"name"`
		} `yaml:"PostProcess"`
	}
	if yaml.Unmarshal(b, &v) != nil {
		return ""
	}
	return v.PostProcess.Name
}
