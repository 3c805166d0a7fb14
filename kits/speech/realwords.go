package speech

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"paddle/core/audio"
	"paddle/core/cli/cmdutil"
	"paddle/core/hub"
	"paddle/datasets"
	"paddle/kits/speech/synth"
)

// realWordsTSV lists words in real recordings of the speech data cache with
// their times, from pocketsphinx forced to each recording's transcript
// (scripts/ref/kws_real_words.sh made it).
//
//go:embed real_words.tsv
var realWordsTSV string

// RealWord is one word of a real recording.
type RealWord struct {
	Source     string  // relative to the speech data cache
	Start, End float64 // seconds
	Word       string
}

// RealWords parses the embedded table.
func RealWords() ([]RealWord, error) {
	var out []RealWord
	for i, line := range strings.Split(strings.TrimSpace(realWordsTSV), "\n") {
		if i == 0 {
			continue // header
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return nil, fmt.Errorf("real_words.tsv:%d: want 4 fields, got %q", i+1, line)
		}
		st, err1 := strconv.ParseFloat(f[1], 64)
		en, err2 := strconv.ParseFloat(f[2], 64)
		if err1 != nil || err2 != nil || en <= st {
			return nil, fmt.Errorf("real_words.tsv:%d: bad times in %q", i+1, line)
		}
		out = append(out, RealWord{Source: f[0], Start: st, End: en, Word: f[3]})
	}
	return out, nil
}

// readSource reads a recording of the table at rate (raw files are 16 kHz s16le).
func readSource(dataDir, src string, rate int) ([]float32, error) {
	p := filepath.Join(dataDir, src)
	var raw *audio.RawFormat
	if strings.HasSuffix(src, ".raw") {
		raw = &audio.RawFormat{Rate: 16000, Encoding: audio.PCM16}
	}
	a, err := audio.Read(p, raw)
	if err != nil {
		return nil, err
	}
	if a.Rate != rate {
		if a, err = a.Resample(rate); err != nil {
			return nil, err
		}
	}
	return a.Mono(), nil
}

// CutWord cuts [start-pad, end+pad] out of x with 10 ms fades at both ends
// (synth.CutWord, which cuts the connected synthetic words the same way).
func CutWord(x []float32, rate int, start, end, pad float64) []float32 {
	return synth.CutWord(x, rate, start, end, pad)
}

// RealWordsOptions are the inputs of WriteRealWords.
type RealWordsOptions struct {
	Output  string
	DataDir string
	PadMs   float64
	Rate    int
	Context float64 // > 0: cut this many seconds centred on the word instead of the padded word
	Set     string  // "commands" (the real_words.tsv words) or "letters" (KLettres)
}

// DefaultRealWordsOptions returns the defaults of set ("commands" or
// "letters"): the flags' defaults of `paddle speech realwords` and what
// `paddle dataset build realwords|realwords-letters` uses.
func DefaultRealWordsOptions(set, output string) RealWordsOptions {
	return RealWordsOptions{Output: output, PadMs: 50, Rate: 16000, Set: set}
}

// WriteRealWords cuts the real words of set o.Set into o.Output.
func WriteRealWords(env datasets.Env, o RealWordsOptions) error {
	switch o.Set {
	case "commands":
		return realWordsRun(env, &o)
	case "letters":
		return realLettersRun(env, &o)
	}
	return fmt.Errorf("real words set %q: want commands or letters", o.Set)
}

// newCmdRealWords is `paddle speech realwords`, an alias of `paddle dataset
// build realwords|realwords-letters` (datasets/catalog): both run WriteRealWords.
func newCmdRealWords(f *cmdutil.Factory, runF func(*RealWordsOptions) error) *cobra.Command {
	d := DefaultRealWordsOptions("commands", "")
	opts := &d
	cmd := &cobra.Command{
		Use:   "realwords --output DIR",
		Short: "Cut the real spoken words of the cached recordings into a keyword-spotting eval set",
		Long: "Cuts the words of real human recordings in the speech data cache (pocketsphinx-testdata\n" +
			"cards, goforward, numbers and the TIDIGITS raw recording; alsa-utils Front/Rear/Side\n" +
			"Left/Right/Center) at the word times pocketsphinx found when forced to each recording's\n" +
			"transcript (kits/speech/real_words.tsv, made by scripts/ref/kws_real_words.sh), padded by\n" +
			"--pad-ms with 10 ms fades, and writes DIR/<class>/real_<n>_<word>.wav (16-bit, --rate) with\n" +
			"DIR/real.list (every word; words that are not keywords as _unknown_) and\n" +
			"DIR/real_keywords.list (keywords only), for `paddle speech eval -o\n" +
			"DataLoader.Eval.dataset.list_file=DIR/real_keywords.list`. The TIDIGITS utterances exist only\n" +
			"as Sphinx MFCC files: their words go to DIR/tidigits_mfc.list as <file>.mfc@<start>-<end>\n" +
			"for a model trained with Feature.cepstral_smoothing (configs/speech/kws_mdtc_8k.yaml).\n\n" +
			"--set letters writes the letter spotter's real set instead: KLettres' English letter names\n" +
			"(en and en_GB alphabets, two speakers, 52 clips; scripts/fetch_klettres.sh), cut at Silero VAD's\n" +
			"speech segments and padded the same way, as DIR/<letter>/real_<speaker>_<letter>.wav with DIR/real.list,\n" +
			"DIR/real_keywords.list and DIR/speakers.tsv (configs/speech/kws_letters.yaml).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Output == "" {
				return cmdutil.FlagErrorf("--output is required")
			}
			if opts.Set != "commands" && opts.Set != "letters" {
				return cmdutil.FlagErrorf("--set %q: want commands or letters", opts.Set)
			}
			if runF != nil {
				return runF(opts)
			}
			return WriteRealWords(cmdutil.DatasetEnv(f), *opts)
		},
	}
	cmd.Flags().StringVar(&opts.Output, "output", "", "output folder")
	cmd.Flags().StringVar(&opts.DataDir, "data-dir", "", "data folder (default: the cache's data/speech; data/klettres with --set letters)")
	cmd.Flags().Float64Var(&opts.PadMs, "pad-ms", opts.PadMs, "padding around each word (ms)")
	cmd.Flags().IntVar(&opts.Rate, "rate", opts.Rate, "sample rate of the clips")
	cmd.Flags().StringVar(&opts.Set, "set", opts.Set, "commands: the command words and digits; letters: KLettres' spoken letter names (scripts/fetch_klettres.sh) for the letter spotter")
	cmd.Flags().Float64Var(&opts.Context, "context", 0, "cut this many seconds of the recording centred on each word (neighbouring words included) instead of the padded word")
	return cmd
}

func realWordsRun(env datasets.Env, opts *RealWordsOptions) error {
	words, err := RealWords()
	if err != nil {
		return err
	}
	dir := opts.DataDir
	if dir == "" {
		dir = filepath.Join(hub.CacheDir(), "data", "speech")
	}
	kw := map[string]bool{}
	for _, w := range synth.Keywords {
		kw[w] = true
	}
	cache := map[string][]float32{}
	var all, kws, mfc, groups strings.Builder
	nKW, nMFC := 0, 0
	for i, w := range words {
		if strings.HasSuffix(w.Source, ".mfc") { // features only: listed, not cut
			p := filepath.Join(dir, w.Source)
			if _, err := os.Stat(p); err != nil {
				return fmt.Errorf("%w\nhint: scripts/setup.sh fetches pocketsphinx-testdata into %s", err, dir)
			}
			label := w.Word
			if !kw[label] {
				label = synth.Unknown
			}
			fmt.Fprintf(&mfc, "%s@%.2f-%.2f\t%s\n", p, w.Start, w.End, label)
			fmt.Fprintf(&groups, "%s@%.2f-%.2f\t%s\n", p, w.Start, w.End, realSpeaker(w.Source))
			nMFC++
			continue
		}
		x, ok := cache[w.Source]
		if !ok {
			if x, err = readSource(dir, w.Source, opts.Rate); err != nil {
				return fmt.Errorf("%w\nhint: scripts/setup.sh fetches pocketsphinx-testdata and alsa-utils into %s", err, dir)
			}
			cache[w.Source] = x
		}
		label := w.Word
		if !kw[label] {
			label = synth.Unknown
		}
		name := filepath.Join(label, fmt.Sprintf("real_%02d_%s.wav", i, w.Word))
		if err := os.MkdirAll(filepath.Join(opts.Output, label), 0o755); err != nil {
			return err
		}
		clip := CutWord(x, opts.Rate, w.Start, w.End, opts.PadMs/1000)
		if opts.Context > 0 {
			mid := (w.Start + w.End) / 2
			clip = CutWord(x, opts.Rate, mid-opts.Context/2, mid+opts.Context/2, 0)
		}
		if err := audio.WriteWAV(filepath.Join(opts.Output, name), &audio.Audio{Rate: opts.Rate, Channels: [][]float32{clip}}, audio.PCM16); err != nil {
			return err
		}
		fmt.Fprintf(&all, "%s\t%s\n", name, label)
		fmt.Fprintf(&groups, "%s\t%s\n", name, realSpeaker(w.Source))
		if kw[w.Word] {
			fmt.Fprintf(&kws, "%s\t%s\n", name, label)
			nKW++
		}
	}
	for f, s := range map[string]string{"real.list": all.String(), "real_keywords.list": kws.String(), "tidigits_mfc.list": mfc.String(), "speakers.tsv": groups.String()} {
		if err := os.WriteFile(filepath.Join(opts.Output, f), []byte(s), 0o644); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(env.Stdout(), "{\"output\":%q,\"audio_words\":%d,\"audio_keywords\":%d,\"tidigits_mfc_words\":%d}\n", opts.Output, len(words)-nMFC, nKW, nMFC)
	return err
}

// realSpeaker is the speaker group of a real word's source recording, for
// eval's test_groups (speakers.tsv): the TIDIGITS speaker (man, woman:
// the .mfc name's first field), "cards" for the five cards recordings (one
// session), "alsa" for alsa-utils' channel names (one speaker), else the
// recording's own name (goforward, numbers, dhd.2934z).
func realSpeaker(source string) string {
	base := filepath.Base(source)
	switch {
	case strings.HasSuffix(source, ".mfc"):
		return strings.SplitN(base, ".", 2)[0]
	case strings.HasPrefix(source, "pocketsphinx/cards/"):
		return "cards"
	case strings.HasPrefix(source, "alsa/"):
		return "alsa"
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}
