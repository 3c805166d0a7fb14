package speech

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/kits/speech/synth"
)

// synthOptions are the inputs of `paddle speech synth`.
type synthOptions struct {
	Factory    *cmdutil.Factory
	Output     string
	Words      []string
	PerWord    int
	Unknown    int
	Silence    int
	Seed       uint64
	Workers    int
	Engines    []string
	Rate       int
	Seconds    float64
	DataDir    string
	NoAugment  bool
	Connected  float64
	ConnEspeak float64
	Recorded   []string
	RecShare   float64
}

func newCmdSynth(f *cmdutil.Factory, runF func(*synthOptions) error) *cobra.Command {
	opts := &synthOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "synth --output DIR [--per-word N] [--engines espeak-ng,flite]",
		Short: "Synthesise keyword-spotting training clips with espeak-ng and flite, augmented",
		Long: "Speaks each keyword (default: zero..nine, oh, yes, no, up, down, left, right, on, off, stop,\n" +
			"go), other words (class _unknown_) and background-only clips (_silence_) with espeak-ng\n" +
			"(7 English accents x 45 voice variants x 4 speeds x 5 pitches) and flite (kal16, awb, rms,\n" +
			"slt x 3 durations x 4 pitches), then augments each clip in Go: speed 0.88-1.12 (sox\n" +
			"`speed`), level -34..-14 dBFS, reverberation (velvet-noise room, RT60 0.1-0.6 s) in 40%,\n" +
			"background noise from real recordings (codec2-examples radio and modem audio, alsa-utils\n" +
			"Noise.wav; scripts/setup.sh caches them) at 3-30 dB SNR in 80%, and a random position in\n" +
			"the clip. Clips are --seconds long at --rate, 16-bit WAV.\n\n" +
			"Writes DIR/<class>/<split>_<index>.wav, DIR/train.list and DIR/val.list\n" +
			"(\"<file><TAB><class>\" lines), DIR/labels.txt and DIR/plan.jsonl. The val split holds\n" +
			"voices never trained on (espeak variants m3, f4, klatt3, david, paul; flite rms).\n" +
			"Everything depends only on --seed and the sizes, not on --workers; existing clips are kept,\n" +
			"so an interrupted run resumes.\n\n" +
			"espeak-ng and flite run as programs: $PADDLE_ESPEAK / $PADDLE_FLITE, else the copies\n" +
			"scripts/fetch_espeak.sh puts under $PADDLE_CACHE/tools, else $PATH. --engines festival\n" +
			"adds Festival's ked voice (scripts/fetch_festival.sh, $PADDLE_FESTIVAL): alone it speaks\n" +
			"every word clip (all in the train split), with the others a quarter of them.\n\n" +
			"--connected P cuts that share of each word class's clips out of spoken phrases (digit\n" +
			"strings, or the word among 1-3 other words) at the synthesiser's own word times, padded by\n" +
			"50 ms with 10 ms fades as `paddle speech realwords` cuts the real words: the word keeps the\n" +
			"coarticulation with its neighbours. Only flite and Festival report word times, so those\n" +
			"clips use their voices; --connected-espeak S gives that share of them to espeak-ng, whose\n" +
			"word times come from aligning the words spoken alone to the phrase (DTW of log-mel frames).\n\n" +
			"--recorded DIR adds a real speaker: DIR holds one recording per word, named by the word\n" +
			"(zero.wav, oh.wav; scripts/fetch_asterisk.sh lays out one). Each clip of a word the speaker\n" +
			"recorded is that recording at speed 0.9-1.1 (sox `speed`), then augmented like the\n" +
			"synthesised ones; all in the train split. Without --engines the recorded speakers speak\n" +
			"every clip (words they did not record are an error); with --engines, --recorded-share of\n" +
			"the clips of the words they recorded.",
		Example: "  scripts/fetch_espeak.sh\n" +
			"  paddle speech synth --output data/kws --per-word 600\n" +
			"  paddle speech synth --output data/yesno --words yes,no --per-word 100 --engines espeak-ng\n" +
			"  paddle speech synth --output data/allison --recorded \"$(scripts/fetch_asterisk.sh)\" \\\n" +
			"      --words zero,one,two,three,four,five,six,seven,eight,nine,oh --per-word 150 --rate 8000",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Output == "" {
				return cmdutil.FlagErrorf("--output is required")
			}
			if opts.PerWord <= 0 {
				return cmdutil.FlagErrorf("--per-word %d: want a positive number", opts.PerWord)
			}
			if opts.ConnEspeak < 0 || opts.ConnEspeak > 1 {
				return cmdutil.FlagErrorf("--connected-espeak %g: want a share from 0 to 1", opts.ConnEspeak)
			}
			if opts.Connected < 0 || opts.Connected > 1 {
				return cmdutil.FlagErrorf("--connected %g: want a share from 0 to 1", opts.Connected)
			}
			for _, e := range opts.Engines {
				if !slices.Contains(synth.Synthesisers, e) {
					return cmdutil.FlagErrorf("--engines: unknown synthesiser %q (known: %s)", e, strings.Join(synth.Synthesisers, ", "))
				}
			}
			if opts.RecShare < 0 || opts.RecShare > 1 {
				return cmdutil.FlagErrorf("--recorded-share %g: want a share from 0 to 1", opts.RecShare)
			}
			if runF != nil {
				return runF(opts)
			}
			return synthRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Output, "output", "", "output folder")
	fl.StringSliceVar(&opts.Words, "words", nil, "keywords (default: the 21 command words)")
	fl.IntVar(&opts.PerWord, "per-word", 400, "clips per keyword")
	fl.IntVar(&opts.Unknown, "unknown", 0, "clips of other words (_unknown_; default --per-word)")
	fl.IntVar(&opts.Silence, "silence", 0, "background-only clips (_silence_; default --per-word/2)")
	fl.Uint64Var(&opts.Seed, "seed", 1, "seed of the plan and every augmentation")
	fl.IntVar(&opts.Workers, "workers", runtime.NumCPU(), "synthesiser processes run at once")
	fl.StringSliceVar(&opts.Engines, "engines", nil, "synthesisers to use: espeak-ng, flite, festival (default: espeak-ng and flite if installed; festival only when named)")
	fl.IntVar(&opts.Rate, "rate", 16000, "sample rate of the clips")
	fl.Float64Var(&opts.Seconds, "seconds", 1, "clip length in seconds")
	fl.StringVar(&opts.DataDir, "noise-dir", "", "speech data cache with codec2/ and alsa/ (default $PADDLE_CACHE/data/speech)")
	fl.Float64Var(&opts.Connected, "connected", 0, "share of word clips cut out of spoken phrases (flite and Festival voices)")
	fl.Float64Var(&opts.ConnEspeak, "connected-espeak", 0, "share of the connected clips spoken by espeak-ng (word times by alignment)")
	fl.StringSliceVar(&opts.Recorded, "recorded", nil, "folders of real recorded speakers, one <word>.wav or .ogg per word")
	fl.Float64Var(&opts.RecShare, "recorded-share", 0.25, "share of a recorded word's clips the recorded speakers speak next to --engines")
	fl.BoolVar(&opts.NoAugment, "no-augment", false, "only trim, level and centre the words (no speed, reverb, noise, shift)")
	return cmd
}

// synthSummary is the JSON line `synth` prints when done.
type synthSummary struct {
	Output  string         `json:"output"`
	Clips   int            `json:"clips"`
	Train   int            `json:"train"`
	Val     int            `json:"val"`
	Classes []string       `json:"classes"`
	Engines map[string]int `json:"engines"`
}

func synthRun(ctx context.Context, opts *synthOptions) error {
	var speakers []synth.Speaker
	for _, dir := range opts.Recorded {
		s, err := synth.LoadSpeaker(dir)
		if err != nil {
			return err
		}
		speakers = append(speakers, s)
	}
	eng := synth.FindEngines()
	useE, useF, useFest := eng.Espeak != "", eng.Flite != "", false
	if len(speakers) > 0 && len(opts.Engines) == 0 {
		useE, useF = false, false // the recorded speakers alone
	}
	if len(opts.Engines) > 0 {
		useE, useF, useFest = slices.Contains(opts.Engines, "espeak-ng"), slices.Contains(opts.Engines, "flite"), slices.Contains(opts.Engines, "festival")
		voices := pick(useE, useF)
		if useFest {
			voices = append(voices, synth.Voice{Engine: "festival"})
		}
		if err := eng.Check(voices); err != nil {
			return err
		}
	}
	if !useE && !useF && !useFest && len(speakers) == 0 {
		return eng.Check([]synth.Voice{{Engine: "espeak-ng"}}) // the error with its hint
	}
	words := opts.Words
	if len(words) == 0 {
		words = synth.Keywords
	}
	clips, err := synth.Plan(synth.PlanOptions{Words: words, PerWord: opts.PerWord, UnknownClips: opts.Unknown,
		SilenceClips: opts.Silence, Seed: opts.Seed, Espeak: useE, Flite: useF, Festival: useFest, Connected: opts.Connected, ConnectedEspeak: opts.ConnEspeak,
		Recorded: speakers, RecordedShare: opts.RecShare})
	if err != nil {
		return err
	}
	noises, bgs, err := synth.LoadNoises(opts.DataDir, opts.Rate)
	if err != nil {
		return err
	}
	aug := synth.DefaultAugment()
	if opts.NoAugment {
		aug = synth.Augment{LevelMin: -24, LevelMax: -24}
		noises = nil
	}
	classes := synth.Classes(words)
	// A bar on a terminal, a log line every few seconds elsewhere (never a
	// line per clip into a pipe).
	bar := opts.Factory.IOStreams.Progress(len(clips), "synth clips")
	err = synth.Run(ctx, eng, clips, classes, opts.Output, synth.Options{
		Rate: opts.Rate, Seconds: opts.Seconds, Augment: aug, Workers: opts.Workers, Noises: noises, Backgrounds: bgs,
		Progress: func(int, int) { bar.Add(1) }, // called under synth.Run's lock
	})
	bar.Finish()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	s := synthSummary{Output: opts.Output, Clips: len(clips), Classes: classes, Engines: map[string]int{}}
	for _, c := range clips {
		if c.Split == "val" {
			s.Val++
		} else {
			s.Train++
		}
		if c.Voice.Engine != "" {
			s.Engines[c.Voice.Engine]++
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(opts.Factory.IOStreams.Out, strings.TrimSpace(string(b)))
	return err
}

func pick(espeak, flite bool) []synth.Voice {
	var v []synth.Voice
	if espeak {
		v = append(v, synth.Voice{Engine: "espeak-ng"})
	}
	if flite {
		v = append(v, synth.Voice{Engine: "flite"})
	}
	return v
}
