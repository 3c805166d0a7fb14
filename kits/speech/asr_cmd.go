package speech

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"

	"github.com/spf13/cobra"

	"paddle/core/audio"
	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/hub"
	"paddle/core/workflow"
	"paddle/kits/speech/synth"
)

// newCmdASRSynth is `paddle speech asr-synth`: sentences for ASR training.
func newCmdASRSynth(f *cmdutil.Factory) *cobra.Command {
	var out, brown string
	var clips, workers, minW, maxW int
	var valFrac float64
	var noFlite bool
	cmd := &cobra.Command{
		Use:   "asr-synth --output DIR [--clips N]",
		Short: "Synthesise spoken sentences (Brown corpus text, espeak-ng + flite voices) for speech recognition",
		Long: "Speaks normalised Brown corpus sentences with the keyword synthesiser's voices into\n" +
			"DIR/{train,val}_NNNNNN.wav (16 kHz) and writes DIR/train.list and DIR/val.list\n" +
			"(<wav><TAB><text>). Validation clips use held-out sentences and held-out voices.",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return cmdutil.FlagErrorf("--output is required")
			}
			if brown == "" {
				brown = filepath.Join(hub.CacheDir(), "data", "brown")
			}
			sents, err := synth.ReadBrownSentences(brown, minW, maxW)
			if err != nil {
				return err
			}
			eng := synth.FindEngines()
			plan, err := synth.PlanSentences(sents, clips, valFrac, 1, eng.Espeak != "", eng.Flite != "" && !noFlite)
			if err != nil {
				return err
			}
			slog.Info("asr-synth", "sentences", len(sents), "clips", len(plan))
			return synth.RunSentences(cmd.Context(), eng, plan, out, 16000, workers)
		},
	}
	cmd.Flags().StringVar(&out, "output", "", "output folder")
	cmd.Flags().StringVar(&brown, "brown", "", "Brown corpus folder (default $PADDLE_CACHE/data/brown)")
	cmd.Flags().IntVar(&clips, "clips", 3000, "number of clips")
	cmd.Flags().IntVar(&workers, "workers", 2, "synthesiser processes at once")
	cmd.Flags().IntVar(&minW, "min-words", 3, "shortest sentence in words")
	cmd.Flags().IntVar(&maxW, "max-words", 10, "longest sentence in words")
	cmd.Flags().Float64Var(&valFrac, "val-frac", 0.1, "fraction of clips (held-out sentences and voices) for validation")
	cmd.Flags().BoolVar(&noFlite, "no-flite", false, "espeak-ng voices only")
	return cmd
}

// ASRResult is one line of `paddle speech asr` and of predict.
// A failed file's record is workflow.Failed: {"audio", "error"}.
type ASRResult struct {
	Audio string `json:"audio"`
	Text  string `json:"text"`
}

// newCmdASR is `paddle speech asr (--weights DIR | --model DIR) --input x.wav`.
func newCmdASR(f *cmdutil.Factory) *cobra.Command {
	var weights, model string
	var inputs []string
	var shard func() (workflow.Shard, error)
	cmd := &cobra.Command{
		Use:   "asr (--model DIR | --weights DIR) --input x.wav [<input>... | -]",
		Short: "Transcribe speech with a trained CTC recogniser (jsonl {audio, text})",
		Long: "Transcribes each file with a recogniser: an export from `paddle speech export` (--model)\n" +
			"or a training checkpoint with its config.yaml (--weights; -c overrides the config).\n" +
			"Inputs: --input (repeatable) and arguments: audio files (WAV, Ogg Vorbis, ...), folders,\n" +
			"globs, - for paths on stdin. Prints one JSON line per file: {\"audio\", \"text\"}.",
		Example: "  paddle speech asr --model output/asr_gru/export --input x.wav\n" +
			"  paddle speech asr --weights output/asr_gru/best clips/",
		RunE: func(cmd *cobra.Command, args []string) error {
			inputs = append(inputs, args...)
			if len(inputs) == 0 {
				return cmdutil.FlagErrorf("give audio with --input (or as arguments)")
			}
			if (weights == "") == (model == "") {
				return cmdutil.FlagErrorf("give one of --model (an export) and --weights (a checkpoint)")
			}
			sh, err := shard()
			if err != nil {
				return err
			}
			env := workflow.Env{IO: f.RunnerIO(), Model: model, Weights: weights, Format: f.Settings.Format, Shard: sh}
			var rec *recognizer
			if model != "" {
				rec, err = loadExportRecognizer(model)
			} else {
				path := f.Settings.Config
				if path == "" {
					path = filepath.Join(weights, "config.yaml")
				}
				var cfg *config.Config
				if cfg, err = config.Load(path, f.Settings.Overrides...); err != nil {
					return config.Usage(err)
				}
				var r workflow.Runner
				if r, err = buildASR(cfg); err != nil {
					return config.Usage(err)
				}
				rec, err = r.(*asrRunner).recognizerFor(env)
			}
			if err != nil {
				return err
			}
			return rec.run(cmd.Context(), env, inputs)
		},
	}
	cmd.Flags().StringVar(&weights, "weights", "", "checkpoint directory (with its config.yaml)")
	cmd.Flags().StringVar(&model, "model", "", "export directory (model.onnx + inference.yaml)")
	cmd.Flags().StringArrayVar(&inputs, "input", nil, "audio file, folder or glob (repeatable)")
	shard = cmdutil.ShardFlag(cmd)
	cmdutil.SupportsFormats(cmd, "jsonl", "json", "text")
	return cmd
}

func (r *recognizer) run(ctx context.Context, env workflow.Env, args []string) error {
	inputs, err := env.Inputs(args, audio.Exts)
	if err != nil {
		return config.Usage(err)
	}
	out := workflow.NewPrinter(env.IO.Out, env.Format, workflow.KeyAudio, func(p ASRResult) string {
		return fmt.Sprintf("%s\t%s\n", p.Audio, p.Text)
	})
	failed, err := workflow.RunOrdered(ctx, inputs, 1, func(_ context.Context, in workflow.Input) (ASRResult, error) {
		x, err := loadMono(in.Path, r.feat.SampleRate, nil)
		if err != nil {
			return ASRResult{}, err
		}
		fe, err := asrFeatures(x, r.feat)
		if err != nil {
			return ASRResult{}, err
		}
		texts, err := r.decode([][][]float32{fe})
		if err != nil {
			return ASRResult{}, err
		}
		return ASRResult{Audio: in.Path, Text: texts[0]}, nil
	}, workflow.PrintResults(out, func(res workflow.Result[ASRResult]) ASRResult { return res.Value }))
	return out.Finish(failed, len(inputs), err)
}

var transcriptLine = regexp.MustCompile(`^\s*(?:<s>)?(.*?)(?:</s>)?\s*\(([^)]+)\)\s*$`)

// realASRItems lists the real recorded utterances of pocketsphinx-testdata
// with their transcripts: librivox/*.wav (5 LibriVox sentences) and
// cards/*.wav (5 card names).
func realASRItems(dir string) ([]asrItem, error) {
	var out []asrItem
	for _, src := range []struct{ sub, file string }{{"librivox", "transcription"}, {"cards", "cards.transcription"}} {
		path := filepath.Join(dir, src.sub, src.file)
		fh, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("%w\nhint: scripts/setup.sh fetches pocketsphinx-testdata into $PADDLE_CACHE/data/speech", err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			m := transcriptLine.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			out = append(out, asrItem{Path: filepath.Join(dir, src.sub, m[2]+".wav"), Text: synth.NormalizeText(m[1])})
		}
		fh.Close()
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no transcribed utterances", dir)
	}
	return out, nil
}
