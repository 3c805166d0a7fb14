package synth

import (
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
)

// CmdOptions are the inputs of `paddle ocr synth`.
type CmdOptions struct {
	Factory          *cmdutil.Factory
	Output           string
	Count            int
	Corpus           string
	Charset          string
	Fonts            []string
	Seed             uint64
	Workers          int
	MinLen, MaxLen   int
	MinSize, MaxSize float64
	Clean            bool
	Det              bool
	PageW, PageH     int
	MaxLines         int
	WordGap          float64
	ImageFormat      string
	Doc              float64
	Paper, Photo     float64
	Backgrounds      []string
}

// NewCmdSynth returns `paddle ocr synth`; runF replaces the run in tests.
func NewCmdSynth(f *cmdutil.Factory, runF func(*CmdOptions) error) *cobra.Command {
	o := &CmdOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "synth --output DIR [--corpus FILE | --charset SET] [--fonts SPEC]...",
		Short: "Render synthetic OCR training data (rec lines or det pages) with PaddleOCR label files",
		Long: `Render text-line images with a PaddleOCR recognition label file (rec_gt.txt:
"images/000000.jpg<TAB>text"), or with --det pages of several lines with a
detection label file (det_gt.txt: "images/000000.jpg<TAB>[{"transcription": ...,
"points": [[x, y], ...]}]"). Output is the same for a seed whatever --workers is.

Fonts (--fonts, repeatable or comma-separated): font files (.ttf/.otf/.ttc),
folders, "system" (the system font folders), "go" (the Go fonts built in) or
"go:GoMono". Text: lines of --corpus (windows of whole words up to --max-len
characters, characters outside --charset dropped) or random strings over
--charset (digits, lower, alnum, en, a dictionary file, or literal characters).`,
		Example: `  paddle ocr synth --output data/train --charset en --fonts go --count 20000
  paddle ocr synth --output data/eval --corpus words.txt --fonts /usr/share/fonts/truetype/dejavu --count 500 --seed 7
  paddle ocr synth --output data/det --det --charset alnum --fonts system --count 200
  paddle ocr synth --output data/doc --corpus words.txt --charset en --doc 0.8 --paper 0.3 --photo 0.2 --backgrounds /usr/share/backgrounds`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Output == "" {
				return cmdutil.FlagErrorf("--output is required")
			}
			if o.Corpus == "" && o.Charset == "" {
				return cmdutil.FlagErrorf("give --corpus or --charset")
			}
			if o.Workers <= 0 {
				o.Workers = max(f.Settings.Threads, 1)
			}
			if runF != nil {
				return runF(o)
			}
			return synthRun(cmd, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Output, "output", "", "output folder (label file + images/)")
	fl.IntVar(&o.Count, "count", 1000, "number of images")
	fl.StringVar(&o.Corpus, "corpus", "", "text file, one text per line")
	fl.StringVar(&o.Charset, "charset", "", "allowed characters: digits|lower|alnum|en, a dictionary file, or the characters")
	fl.StringSliceVar(&o.Fonts, "fonts", []string{"go"}, "font files, folders, system, go, go:NAME")
	fl.Uint64Var(&o.Seed, "seed", 1, "random seed")
	fl.IntVar(&o.Workers, "workers", 0, "rendering goroutines (default: --threads)")
	fl.IntVar(&o.MinLen, "min-len", 1, "minimum text length in characters")
	fl.IntVar(&o.MaxLen, "max-len", 25, "maximum text length in characters (PaddleOCR's max_text_length)")
	fl.Float64Var(&o.MinSize, "min-size", 28, "minimum font size in pixels")
	fl.Float64Var(&o.MaxSize, "max-size", 40, "maximum font size in pixels")
	fl.BoolVar(&o.Clean, "clean", false, "no augmentation: dark text on white, straight, sharp")
	fl.BoolVar(&o.Det, "det", false, "render pages of several lines with detection labels")
	fl.IntVar(&o.PageW, "page-width", 640, "--det page width")
	fl.IntVar(&o.PageH, "page-height", 640, "--det page height")
	fl.IntVar(&o.MaxLines, "max-lines", 8, "--det: at most this many lines per page")
	fl.Float64Var(&o.WordGap, "word-gap", 0, "--det: widen each line's word gaps by up to this many space widths (uniform per line)")
	fl.StringVar(&o.ImageFormat, "image-format", "jpg", "jpg or png")
	fl.Float64Var(&o.Doc, "doc", 0, "share (0-1) of document-like lines: corpus words in varied case with prices, dates, times, e-mails, URLs, phone numbers, codes")
	fl.Float64Var(&o.Paper, "paper", 0, "share (0-1) of images on a paper texture (tint, mottling, grain, fibres)")
	fl.Float64Var(&o.Photo, "photo", 0, "share (0-1) of images drawn over a crop of a --backgrounds photo")
	fl.StringSliceVar(&o.Backgrounds, "backgrounds", nil, "photo files or folders (.jpg, .png) for --photo")
	return cmd
}

// Options turns the command's inputs into Generate's options.
func (o *CmdOptions) Options() (Options, error) {
	var corpus []string
	if o.Corpus != "" {
		var err error
		if corpus, err = ReadCorpus(o.Corpus); err != nil {
			return Options{}, err
		}
	}
	texts, err := NewTexts(corpus, o.Charset, o.MinLen, o.MaxLen)
	if err != nil {
		return Options{}, err
	}
	if o.Doc < 0 || o.Doc > 1 {
		return Options{}, fmt.Errorf("--doc %g: want a share between 0 and 1", o.Doc)
	}
	texts.Doc = o.Doc
	fonts, err := LoadFonts(o.Fonts...)
	if err != nil {
		return Options{}, err
	}
	aug := DefaultAugment()
	if o.Clean {
		aug = Augment{}
	}
	for _, v := range []struct {
		flag  string
		share float64
	}{{"--paper", o.Paper}, {"--photo", o.Photo}} {
		if v.share < 0 || v.share > 1 {
			return Options{}, fmt.Errorf("%s %g: want a share between 0 and 1", v.flag, v.share)
		}
	}
	aug.Paper, aug.Photo = o.Paper, o.Photo
	if o.Photo > 0 && len(o.Backgrounds) == 0 {
		return Options{}, fmt.Errorf("--photo %g needs --backgrounds (photo files or folders)", o.Photo)
	}
	if len(o.Backgrounds) > 0 {
		if aug.Photos, err = LoadPhotos(o.Backgrounds...); err != nil {
			return Options{}, err
		}
	}
	return Options{
		Out: o.Output, Count: o.Count, Texts: texts, Fonts: fonts, Seed: o.Seed, Workers: o.Workers,
		Format: o.ImageFormat, Line: LineOptions{MinSize: o.MinSize, MaxSize: o.MaxSize, Augment: aug},
		Det: o.Det, Page: PageOptions{Width: o.PageW, Height: o.PageH, MaxLines: o.MaxLines, WordGap: o.WordGap},
	}, nil
}

func synthRun(cmd *cobra.Command, o *CmdOptions) error {
	opts, err := o.Options()
	if err != nil {
		return config.Usage(err)
	}
	start := time.Now()
	slog.Info("synth", "count", o.Count, "fonts", len(opts.Fonts), "det", o.Det, "output", o.Output)
	bar := o.Factory.IOStreams.Progress(o.Count, "synth "+map[bool]string{false: "lines", true: "pages"}[o.Det])
	var mu sync.Mutex
	opts.Progress = func(n int) { mu.Lock(); bar.Add(n); mu.Unlock() }
	path, err := Generate(cmd.Context(), opts)
	bar.Finish()
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(o.Factory.IOStreams.Out, "%s: %d %s in %s\n", path, o.Count,
		map[bool]string{false: "lines", true: "pages"}[o.Det], time.Since(start).Round(time.Millisecond))
	return err
}
