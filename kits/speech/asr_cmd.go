package speech

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"paddle/core/audio"
	"paddle/core/cli/cmdutil"
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
				brown = filepath.Join(synth.CacheDir(), "data", "brown")
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

// newCmdASRTrain is `paddle speech asr-train -c configs/speech/asr_gru.yaml`.
func newCmdASRTrain(f *cmdutil.Factory) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "asr-train -c CONFIG [--output DIR]",
		Short: "Train a CTC speech recogniser (conv + BiGRU/LSTM over characters)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.Settings.Config == "" {
				return cmdutil.FlagErrorf("give the config with -c")
			}
			c, yml, err := loadASRConfig(f.Settings.Config, f.Settings.Overrides...)
			if err != nil {
				return cmdutil.Usage(err)
			}
			if out == "" {
				out = c.Training.OutputDir
			}
			rep, err := trainASR(cmd.Context(), c, yml, out, 2)
			if err != nil {
				return err
			}
			return json.NewEncoder(f.IOStreams.Out).Encode(rep)
		},
	}
	cmd.Flags().StringVar(&out, "output", "", "output folder (default training.output_dir); the checkpoint goes to DIR/latest")
	return cmd
}

// newCmdASREval is `paddle speech asr-eval --weights DIR (--manifest F | --real)`.
func newCmdASREval(f *cmdutil.Factory) *cobra.Command {
	var weights, manifest, hypOut string
	var real bool
	cmd := &cobra.Command{
		Use:   "asr-eval --weights DIR (--manifest LIST | --real)",
		Short: "Score a speech recogniser: corpus CER and WER",
		Long: "Decodes a manifest (<wav><TAB><text> lines) or, with --real, the real recorded\n" +
			"pocketsphinx-testdata utterances (LibriVox sentences and \"cards\") with their transcripts,\n" +
			"and prints {cer, wer, ...} as JSON. --hyp FILE writes each utterance's hypothesis.",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if weights == "" || (manifest == "") == !real {
				return cmdutil.FlagErrorf("give --weights and one of --manifest and --real")
			}
			rec, err := loadRecognizer(weights, f.Settings.Config, f.Settings.Overrides)
			if err != nil {
				return err
			}
			var items []asrItem
			if real {
				items, err = realASRItems(filepath.Join(synth.CacheDir(), "data", "speech", "pocketsphinx"))
			} else {
				items, err = readManifest(manifest)
			}
			if err != nil {
				return err
			}
			set, err := loadASRSet(cmd.Context(), items, rec.cfg, 0, 2)
			if err != nil {
				return err
			}
			hyps := make([]string, len(items))
			rep := rec.evaluate(set, 16, func(i int, text string) { hyps[i] = text })
			if hypOut != "" {
				var b strings.Builder
				for i, it := range items {
					fmt.Fprintf(&b, "%s\t%s\t%s\n", it.Path, it.Text, hyps[i])
				}
				if err := os.WriteFile(hypOut, []byte(b.String()), 0o644); err != nil {
					return err
				}
			}
			return json.NewEncoder(f.IOStreams.Out).Encode(rep)
		},
	}
	cmd.Flags().StringVar(&weights, "weights", "", "checkpoint directory (with its config.yaml)")
	cmd.Flags().StringVar(&manifest, "manifest", "", "list of <wav><TAB><text>")
	cmd.Flags().BoolVar(&real, "real", false, "the real pocketsphinx-testdata utterances (LibriVox + cards)")
	cmd.Flags().StringVar(&hypOut, "hyp", "", "write <wav><TAB><reference><TAB><hypothesis> lines here")
	return cmd
}

// ASRResult is one line of `paddle speech asr`.
type ASRResult struct {
	File  string `json:"file"`
	Text  string `json:"text"`
	Error string `json:"error,omitempty"`
}

// newCmdASR is `paddle speech asr --weights DIR --input x.wav`.
func newCmdASR(f *cmdutil.Factory) *cobra.Command {
	var weights string
	var inputs []string
	cmd := &cobra.Command{
		Use:   "asr --weights DIR --input x.wav [<input>... | -]",
		Short: "Transcribe speech with a trained CTC recogniser (jsonl {file, text})",
		RunE: func(cmd *cobra.Command, args []string) error {
			inputs = append(inputs, args...)
			if weights == "" || len(inputs) == 0 {
				return cmdutil.FlagErrorf("give --weights and audio with --input (or as arguments)")
			}
			rec, err := loadRecognizer(weights, f.Settings.Config, f.Settings.Overrides)
			if err != nil {
				return err
			}
			return rec.run(cmd.Context(), f, inputs)
		},
	}
	cmd.Flags().StringVar(&weights, "weights", "", "checkpoint directory (with its config.yaml)")
	cmd.Flags().StringArrayVar(&inputs, "input", nil, "audio file, folder or glob (repeatable)")
	cmdutil.SupportsFormats(cmd, "jsonl", "json", "text")
	return cmd
}

func (r *recognizer) run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	inputs, err := workflow.ExpandInputs(args, f.IOStreams.In, audio.Exts)
	if err != nil {
		return cmdutil.Usage(err)
	}
	out := workflow.NewPrinter(f.IOStreams.Out, f.Settings.Format, func(p ASRResult) string {
		if p.Error != "" {
			return fmt.Sprintf("%s\terror: %s\n", p.File, p.Error)
		}
		return fmt.Sprintf("%s\t%s\n", p.File, p.Text)
	})
	failed, err := workflow.RunOrdered(ctx, inputs, 1, func(_ context.Context, in workflow.Input) (ASRResult, error) {
		x, err := loadMono(in.Path, r.cfg.Feature.SampleRate, nil)
		if err != nil {
			return ASRResult{}, err
		}
		fe, err := asrFeatures(x, r.cfg)
		if err != nil {
			return ASRResult{}, err
		}
		return ASRResult{File: in.Path, Text: r.decode([][][]float32{fe})[0]}, nil
	}, func(res workflow.Result[ASRResult]) error {
		p := res.Value
		if res.Err != nil {
			p = ASRResult{File: res.Input.Path, Error: res.Err.Error()}
		}
		return out.Print(p)
	})
	if err == nil {
		err = out.Close()
	}
	if err != nil {
		return err
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d inputs failed", failed, len(inputs))
	}
	return nil
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
