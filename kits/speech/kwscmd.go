package speech

import (
	"context"

	"github.com/spf13/cobra"

	"paddle/core/audio"
	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/workflow"
)

// kwsOptions are the inputs of `paddle speech kws`.
type kwsOptions struct {
	Factory *cmdutil.Factory
	Inputs  []string // --input and arguments
	Model   string   // --model export dir
	Weights string   // --weights checkpoint dir
	HopMs   float64
	RawRate int    // --raw-sample-rate for .raw/.pcm inputs
	RawEnc  string // --raw-encoding
	Warps   []float64
	Combine string
	// Speakers is a `<path> <speaker>` file and SpeakerPerFolder takes each
	// input's folder as its speaker, for --warp-combine group.
	Speakers         string
	SpeakerPerFolder bool
	// setWarps and setCombine say the flags were given (else the
	// checkpoint's Infer section or the export's PostProcess decides).
	setWarps, setCombine bool
	Shard                workflow.Shard // --shard I/N
}

func newCmdKWS(f *cmdutil.Factory, runF func(*kwsOptions) error) *cobra.Command {
	opts := &kwsOptions{Factory: f}
	var shard func() (workflow.Shard, error)
	cmd := &cobra.Command{
		Use:   "kws --model DIR | --weights DIR --input x.wav [<input>... | -]",
		Short: "Spot spoken keywords in audio files with a trained keyword spotter",
		Long: "Classifies each file with a keyword spotter (an export from `paddle speech export`, or a\n" +
			"training checkpoint). A file no longer than the model's window (1 s) is centred in it; a\n" +
			"longer one is scanned with windows every --hop-ms and reported by its best keyword\n" +
			"window (with start/end in seconds), or by its best window when no window's top class is a\n" +
			"keyword. Prints one JSON line per file: {\"file\", \"label\", \"score\"[, \"start\", \"end\"]}.\n" +
			"Inputs: --input (repeatable) and arguments: WAV or raw PCM files, folders, globs, - for\n" +
			"paths on stdin.\n\n" +
			"--warps 0.85,0.9,...,1.15 scores each window under those mel-axis stretches (a label-free\n" +
			"speaker normalisation) merged by --warp-combine: mean (average the class probabilities),\n" +
			"max (keep the stretch whose top class is most probable), or group (one stretch per speaker,\n" +
			"the one under which the sum of log scores of the speaker's files is largest; needs\n" +
			"--speakers FILE with `<path> <speaker>` lines, as `paddle speech realwords` writes in\n" +
			"speakers.tsv, or --speaker-per-folder). eval's DataLoader.Eval.dataset.test_warps/\n" +
			"test_combine/test_groups are the same. Without these flags the checkpoint's Infer section\n" +
			"(or the export's PostProcess) decides. With --weights, -o Global.ensemble=[DIR,...] averages\n" +
			"those checkpoints' class probabilities with --weights' and -o Global.average_with=[DIR,...]\n" +
			"their weights.",
		Example: "  paddle speech kws --model output/kws_dscnn/export --input yes.wav\n" +
			"  find clips -name '*.wav' | paddle speech kws --weights output/kws_dscnn/best -\n" +
			"  paddle speech kws --weights out/H --warps 0.8,0.85,0.9,0.95,1,1.05,1.1,1.15,1.2 \\\n" +
			"      --warp-combine group --speakers speakers.tsv -o Global.ensemble=[out/G2] clips/",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = append(opts.Inputs, args...)
			if len(opts.Inputs) == 0 {
				return cmdutil.FlagErrorf("give audio with --input (or as arguments)")
			}
			if (opts.Weights == "") == (opts.Model == "") {
				return cmdutil.FlagErrorf("give one of --model (an export) and --weights (a checkpoint)")
			}
			if err := checkTestWarps(opts.Warps, opts.Combine); err != nil {
				return cmdutil.FlagErrorf("--warps/--warp-combine: %v", err)
			}
			if opts.Speakers != "" && opts.SpeakerPerFolder {
				return cmdutil.FlagErrorf("give one of --speakers and --speaker-per-folder")
			}
			opts.setWarps, opts.setCombine = cmd.Flags().Changed("warps"), cmd.Flags().Changed("warp-combine")
			var err error
			if opts.Shard, err = shard(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return kwsRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Inputs, "input", nil, "audio file, folder or glob (repeatable)")
	cmd.Flags().StringVar(&opts.Model, "model", "", "export directory (model.onnx + inference.yaml)")
	cmd.Flags().StringVar(&opts.Weights, "weights", "", "checkpoint directory (with its config.yaml)")
	cmd.Flags().Float64Var(&opts.HopMs, "hop-ms", 100, "window hop for files longer than the window (ms)")
	cmd.Flags().IntVar(&opts.RawRate, "raw-sample-rate", 0, "sample rate of .raw/.pcm inputs")
	cmd.Flags().StringVar(&opts.RawEnc, "raw-encoding", "s16le", "sample encoding of .raw/.pcm inputs: s16le, s16be, s24le, s32le, u8, s8, f32le, f64le, alaw, ulaw")
	cmd.Flags().Float64SliceVar(&opts.Warps, "warps", nil, "score each window under these mel-axis stretches (e.g. 0.85,0.9,0.95,1,1.05,1.1,1.15)")
	cmd.Flags().StringVar(&opts.Combine, "warp-combine", "mean", "how --warps' answers merge: mean, max, or group (one warp per speaker)")
	cmd.Flags().StringVar(&opts.Speakers, "speakers", "", "file of `<path> <speaker>` lines for --warp-combine group")
	cmd.Flags().BoolVar(&opts.SpeakerPerFolder, "speaker-per-folder", false, "for --warp-combine group: each input's folder is its speaker")
	shard = cmdutil.ShardFlag(cmd)
	cmdutil.SupportsFormats(cmd, "jsonl", "json", "text")
	return cmd
}

func kwsRun(ctx context.Context, opts *kwsOptions) error {
	env := workflow.Env{IO: opts.Factory.RunnerIO(), Model: opts.Model, Weights: opts.Weights, Format: opts.Factory.Settings.Format, Shard: opts.Shard}
	var s *spotter
	var err error
	if opts.Model != "" {
		s, err = loadExportSpotter(opts.Model)
	} else {
		var cfg *config.Config
		if cfg, err = config.Load(opts.Weights+"/config.yaml", opts.Factory.Settings.Overrides...); err != nil {
			return config.Usage(err)
		}
		var r workflow.Runner
		if r, err = buildKWS(cfg); err != nil {
			return config.Usage(err)
		}
		s, err = r.(*kwsRunner).spotterFor(env)
	}
	if err != nil {
		return err
	}
	if opts.RawRate > 0 {
		enc, big, err := audio.ParseEncoding(opts.RawEnc)
		if err != nil {
			return cmdutil.FlagErrorf("--raw-encoding: %v", err)
		}
		s.z.raw = &audio.RawFormat{Rate: opts.RawRate, Encoding: enc, BigEndian: big}
	}
	if opts.HopMs > 0 {
		s.hop = max(int(opts.HopMs*float64(s.z.rate)/1000), 1)
	}
	if opts.setWarps {
		s.warps = opts.Warps
	}
	if opts.setCombine {
		s.combine = opts.Combine
	}
	switch {
	case opts.Speakers != "":
		if s.speakerOf, err = fileSpeakers(opts.Speakers); err != nil {
			return cmdutil.FlagErrorf("--speakers: %v", err)
		}
	case opts.SpeakerPerFolder:
		s.speakerOf = folderSpeaker
	}
	if s.combine == "group" && len(s.warps) == 0 {
		return cmdutil.FlagErrorf("--warp-combine group needs --warps")
	}
	return s.run(ctx, env, opts.Inputs)
}
