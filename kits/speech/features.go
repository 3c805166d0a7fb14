package speech

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"paddle/core/audio"
	"paddle/core/audio/kaldi"
	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	pio "paddle/core/io"
	"paddle/core/tensor"
	"paddle/core/workflow"
)

// featuresOptions are the inputs of `paddle speech features`.
type featuresOptions struct {
	Factory  *cmdutil.Factory
	Kind     string // --kind fbank|mfcc|spectrogram
	Output   string // --output DIR
	Kaldi    kaldi.Options
	Channel  int    // --channel: -1 = the file must be mono
	Resample bool   // --sample-frequency was given: resample files at other rates
	RawRate  int    // --raw-sample-rate for .raw/.pcm inputs
	RawEnc   string // --raw-encoding
	Inputs   []string
}

var featureKinds = []string{"fbank", "mfcc", "spectrogram"}

func newCmdFeatures(f *cmdutil.Factory, runF func(*featuresOptions) error) *cobra.Command {
	opts := &featuresOptions{Factory: f, Kaldi: kaldi.Defaults()}
	o := &opts.Kaldi
	cmd := &cobra.Command{
		Use:   "features --kind fbank|mfcc|spectrogram --output DIR <input>... | -",
		Short: "Compute Kaldi fbank, MFCC or spectrogram features of WAV / raw PCM files into .npy",
		Long: "Computes Kaldi's compute-fbank-feats / compute-mfcc-feats / compute-spectrogram-feats\n" +
			"as torchaudio.compliance.kaldi does, with its option names and defaults (so dither is 0),\n" +
			"and writes DIR/<file stem>.<kind>.npy (frames × bins, float32) for each input.\n" +
			"Samples are scaled to int16 values as Kaldi reads them (16-bit WAV samples as they are).\n\n" +
			"Inputs are WAV files (PCM 8/16/24/32-bit, float, A-law, µ-law; any rate and channel count),\n" +
			"raw PCM (.raw/.pcm, with --raw-sample-rate), folders (searched for .wav/.raw/.pcm), globs,\n" +
			"or - for paths on stdin. One line of JSON per input goes to stdout; a failed input is\n" +
			"reported on stderr and the others go on (exit 1 at the end).\n\n" +
			"--sample-frequency resamples files at other rates (Kaiser-windowed sinc, sox-like\n" +
			"quality); without it each file's own rate is used. Kaldi's VTLN options are not supported.",
		Example: "  paddle speech features --kind fbank --num-mel-bins 80 --output feats/ clips/\n" +
			"  paddle speech features --kind mfcc --use-energy --snip-edges=false --output feats/ a.wav b.wav\n" +
			"  find . -name '*.wav' | paddle speech features --kind spectrogram --output feats/ -",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if opts.Output == "" {
				return cmdutil.FlagErrorf("--output is required")
			}
			if !slices.Contains(featureKinds, opts.Kind) {
				return cmdutil.FlagErrorf("--kind %q: want one of %s", opts.Kind, strings.Join(featureKinds, ", "))
			}
			if !slices.Contains(kaldi.WindowTypes, o.WindowType) {
				return cmdutil.FlagErrorf("--window-type %q: want one of %s", o.WindowType, strings.Join(kaldi.WindowTypes, ", "))
			}
			opts.Resample = cmd.Flags().Changed("sample-frequency")
			if runF != nil {
				return runF(opts)
			}
			return featuresRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Kind, "kind", "fbank", "feature: fbank, mfcc or spectrogram")
	fl.StringVar(&opts.Output, "output", "", "output directory for <stem>.<kind>.npy")
	fl.IntVar(&opts.Channel, "channel", -1, "channel to use (0, 1, ...); -1: the file must be mono (Kaldi)")
	fl.IntVar(&opts.RawRate, "raw-sample-rate", 0, "sample rate of .raw/.pcm inputs")
	fl.StringVar(&opts.RawEnc, "raw-encoding", "s16le", "sample encoding of .raw/.pcm inputs: s16le, s16be, s24le, s32le, u8, s8, f32le, f64le, alaw, ulaw")
	fl.Float64Var(&o.SampleFrequency, "sample-frequency", 0, "resample every file to this rate (Hz) first; default: each file's rate")
	fl.Float64Var(&o.FrameLength, "frame-length", o.FrameLength, "frame length (ms)")
	fl.Float64Var(&o.FrameShift, "frame-shift", o.FrameShift, "frame shift (ms)")
	fl.Float64Var(&o.Dither, "dither", o.Dither, "dithering constant: Gaussian noise stddev in int16 units (0: off)")
	fl.Uint64Var(&o.Seed, "seed", 0, "seed of the dither noise")
	fl.Float64Var(&o.PreemphasisCoefficient, "preemphasis-coefficient", o.PreemphasisCoefficient, "pre-emphasis coefficient")
	fl.BoolVar(&o.RemoveDCOffset, "remove-dc-offset", o.RemoveDCOffset, "subtract each frame's mean")
	fl.StringVar(&o.WindowType, "window-type", o.WindowType, "window: povey, hamming, hanning, rectangular, blackman")
	fl.Float64Var(&o.BlackmanCoeff, "blackman-coeff", o.BlackmanCoeff, "coefficient of the generalised Blackman window")
	fl.BoolVar(&o.SnipEdges, "snip-edges", o.SnipEdges, "only frames that fit wholly in the file (false: reflect at the ends)")
	fl.BoolVar(&o.RoundToPowerOfTwo, "round-to-power-of-two", o.RoundToPowerOfTwo, "zero-pad frames to a power-of-two FFT size")
	fl.BoolVar(&o.RawEnergy, "raw-energy", o.RawEnergy, "energy before pre-emphasis and windowing")
	fl.Float64Var(&o.EnergyFloor, "energy-floor", o.EnergyFloor, "floor on the energy (absolute, not log); 0: none")
	fl.Float64Var(&o.MinDuration, "min-duration", o.MinDuration, "minimum duration (s) of files to process; shorter ones give 0 frames")
	fl.BoolVar(&o.SubtractMean, "subtract-mean", o.SubtractMean, "subtract each feature's mean over the file (CMN)")
	fl.IntVar(&o.NumMelBins, "num-mel-bins", o.NumMelBins, "number of mel bins")
	fl.Float64Var(&o.LowFreq, "low-freq", o.LowFreq, "low cutoff of the mel bins (Hz)")
	fl.Float64Var(&o.HighFreq, "high-freq", o.HighFreq, "high cutoff of the mel bins (Hz); <= 0: offset from Nyquist")
	fl.BoolVar(&o.UseEnergy, "use-energy", o.UseEnergy, "add the log energy (first column; last with --htk-compat)")
	fl.BoolVar(&o.UseLogFbank, "use-log-fbank", o.UseLogFbank, "log of the fbank energies")
	fl.BoolVar(&o.UsePower, "use-power", o.UsePower, "power spectrum (false: magnitude)")
	fl.BoolVar(&o.HTKCompat, "htk-compat", o.HTKCompat, "HTK layout: energy / C0 last")
	fl.IntVar(&o.NumCeps, "num-ceps", o.NumCeps, "number of cepstra (mfcc)")
	fl.Float64Var(&o.CepstralLifter, "cepstral-lifter", o.CepstralLifter, "cepstral lifter (mfcc); 0: none")
	cmdutil.SupportsFormats(cmd, "jsonl")
	return cmd
}

// featuresResult is one stdout line.
type featuresResult struct {
	Input  string `json:"input"`
	Output string `json:"output"`
	Frames int    `json:"frames"`
	Dims   int    `json:"dims"`
	Rate   int    `json:"sample_rate"`
}

func featuresRun(ctx context.Context, opts *featuresOptions) error {
	var raw *audio.RawFormat
	if opts.RawRate > 0 {
		enc, big, err := audio.ParseEncoding(opts.RawEnc)
		if err != nil {
			return cmdutil.FlagErrorf("--raw-encoding: %v", err)
		}
		raw = &audio.RawFormat{Rate: opts.RawRate, Encoding: enc, BigEndian: big}
	}
	if err := os.MkdirAll(opts.Output, 0o755); err != nil {
		return fmt.Errorf("--output: %w", err)
	}
	ios := opts.Factory.IOStreams
	inputs, err := workflow.ExpandInputs(opts.Inputs, ios.In, audio.Exts)
	if err != nil {
		return config.Usage(err)
	}
	// two inputs with the same stem would write the same file: the first in
	// input order owns it, decided before the parallel work so the outcome
	// does not depend on scheduling
	outPath := func(in string) string {
		return filepath.Join(opts.Output, strings.TrimSuffix(filepath.Base(in), filepath.Ext(in))+"."+opts.Kind+".npy")
	}
	owner := map[string]string{}
	for _, in := range inputs {
		if out := outPath(in.Path); in.Err == nil && owner[out] == "" {
			owner[out] = in.Path
		}
	}
	work := func(_ context.Context, in workflow.Input) (featuresResult, error) {
		out := outPath(in.Path)
		if prev := owner[out]; prev != in.Path {
			return featuresResult{}, fmt.Errorf("%s: output %s is already written for %s (same file stem)", in.Path, out, prev)
		}
		return computeFile(in.Path, out, raw, opts)
	}
	enc := json.NewEncoder(ios.Out)
	failed, err := workflow.RunOrdered(ctx, inputs, max(1, opts.Factory.Settings.Threads), work, func(r workflow.Result[featuresResult]) error {
		if r.Err != nil {
			fmt.Fprintf(ios.ErrOut, "paddle: %v\n", pathErr(r.Input.Path, r.Err))
			return nil
		}
		return enc.Encode(r.Value)
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

// pathErr prefixes err with the path unless it already names it.
func pathErr(path string, err error) error {
	if strings.Contains(err.Error(), path) {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// computeFile reads one file, computes the features and writes the .npy.
func computeFile(path, out string, raw *audio.RawFormat, opts *featuresOptions) (featuresResult, error) {
	a, err := audio.Read(path, raw)
	if err != nil {
		return featuresResult{}, err
	}
	var ch []float32
	switch {
	case opts.Channel >= 0:
		if ch, err = a.Channel(opts.Channel); err != nil {
			return featuresResult{}, fmt.Errorf("%s: --%w", path, err)
		}
	case len(a.Channels) != 1:
		return featuresResult{}, fmt.Errorf("%s: %d channels; pick one with --channel 0, 1, ...", path, len(a.Channels))
	default:
		ch = a.Channels[0]
	}
	rate := a.Rate
	o := opts.Kaldi
	if opts.Resample && int(o.SampleFrequency) != a.Rate {
		to := int(o.SampleFrequency)
		if float64(to) != o.SampleFrequency || to <= 0 {
			return featuresResult{}, fmt.Errorf("--sample-frequency %g: want a positive whole number of Hz", o.SampleFrequency)
		}
		if ch, err = audio.Resample(ch, a.Rate, to); err != nil {
			return featuresResult{}, fmt.Errorf("%s: %w", path, err)
		}
		rate = to
	}
	o.SampleFrequency = float64(rate)
	x := make([]float64, len(ch))
	for i, v := range ch {
		x[i] = float64(v) * audio.KaldiScale
	}
	var feats [][]float64
	switch opts.Kind {
	case "fbank":
		feats, err = kaldi.Fbank(x, o)
	case "mfcc":
		feats, err = kaldi.MFCC(x, o)
	default:
		feats, err = kaldi.Spectrogram(x, o)
	}
	if err != nil {
		return featuresResult{}, fmt.Errorf("%s: %s: %w", path, opts.Kind, err)
	}
	dims := o.Dim(opts.Kind) // the width even when a short file gives no frames
	if len(feats) > 0 {
		dims = len(feats[0])
	}
	data := make([]float32, 0, len(feats)*dims)
	for _, r := range feats {
		for _, v := range r {
			data = append(data, float32(v))
		}
	}
	if err := pio.WriteNpy(out, tensor.FromSlice(data, len(feats), dims)); err != nil {
		return featuresResult{}, fmt.Errorf("write %s: %w", out, err)
	}
	return featuresResult{Input: path, Output: out, Frames: len(feats), Dims: dims, Rate: rate}, nil
}
