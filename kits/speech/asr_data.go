package speech

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/hub"
	"paddle/datasets"
	"paddle/kits/speech/synth"
)

// Real speech for the recogniser: the spoken Tux Paint stamp descriptions
// (tuxpaint-stamps-default: <stamp>_desc[_<lang>].ogg, transcripts in
// <stamp>.txt) and pocketsphinx-testdata's LibriVox and "cards" utterances.

// tuxpaintItems lists the description recordings of lang ("en" for the
// files without a language suffix) under soundDir whose transcript in
// textDir normalises to a–z, apostrophe and space (accents folded; texts
// with digits or other letters are skipped). It returns them sorted by path
// and the number skipped.
func tuxpaintItems(soundDir, textDir, lang string) ([]asrItem, int, error) {
	suffix := "_desc_" + lang + ".ogg"
	if lang == "en" {
		suffix = "_desc.ogg"
	}
	var out []asrItem
	skipped := 0
	err := filepath.WalkDir(soundDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, suffix) {
			return err
		}
		rel, err := filepath.Rel(soundDir, path)
		if err != nil {
			return err
		}
		txt := filepath.Join(textDir, strings.TrimSuffix(rel, suffix)+".txt")
		text, err := stampText(txt, lang)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				skipped++
				return nil
			}
			return err
		}
		if text = synth.NormalizeText(foldAccents(text)); text == "" {
			skipped++
			return nil
		}
		out = append(out, asrItem{Path: path, Text: text})
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, skipped, nil
}

// asteriskItems lists the recorded Asterisk prompts under dir (prompts/<name>.wav,
// scripts/fetch_asterisk.sh) with their transcripts from dir/core-sounds-en.txt
// ("<name>: <text>" lines; ";" comments). Single digits are spelled out as the
// speaker reads them ("press 1" → "press one"); texts with symbols she reads
// as words ("#", "*") or that are not speech ("[tones]", "<beep>"), texts that
// do not normalise to a–z, apostrophe and space, and prompts without a
// recording are skipped. It returns them sorted by path and the number
// skipped.
func asteriskItems(dir string) ([]asrItem, int, error) {
	f, err := os.Open(filepath.Join(dir, "core-sounds-en.txt"))
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var out []asrItem
	skipped := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		name, text, ok := strings.Cut(line, ":")
		if line == "" || strings.HasPrefix(line, ";") || !ok {
			continue
		}
		path := filepath.Join(dir, "prompts", filepath.FromSlash(strings.TrimSpace(name))+".wav")
		if strings.ContainsFunc(text, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsSpace(r) && !strings.ContainsRune(".,?!;:'\"-", r)
		}) {
			skipped++
			continue
		}
		if _, err := os.Stat(path); err != nil {
			skipped++
			continue
		}
		if text = synth.NormalizeText(foldAccents(spellDigits(text))); text == "" {
			skipped++
			continue
		}
		out = append(out, asrItem{Path: path, Text: text})
	}
	if err := sc.Err(); err != nil {
		return nil, 0, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, skipped, nil
}

// spellDigits spells each single digit that stands alone as a word ("press
// 1, 2 or 3" → "press one, two or three"); longer numbers and digits inside
// words ("3D") are left as they are.
func spellDigits(s string) string {
	isDigit := func(i int) bool { return i >= 0 && i < len(s) && s[i] >= '0' && s[i] <= '9' }
	isWord := func(i int) bool {
		return i >= 0 && i < len(s) && (isDigit(i) || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= 0x80)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if isDigit(i) && !isWord(i-1) && !isWord(i+1) {
			b.WriteString(synth.DigitWords[s[i]-'0'])
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// stampText returns a stamp description's text in lang from its .txt file:
// the first line without "=" for English, else the "<lang>.utf8=" line.
func stampText(path, lang string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if lang == "en" && line != "" && !strings.Contains(line, "=") {
			return line, nil
		}
		if v, ok := strings.CutPrefix(line, lang+".utf8="); ok {
			return strings.TrimSpace(v), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("%s: no %s text: %w", path, lang, os.ErrNotExist)
}

// foldAccents maps the accented Latin letters of Western European languages
// to their base letters (é → e, ñ → n, ç → c, œ → oe, ß → ss).
func foldAccents(s string) string {
	var b strings.Builder
	for _, r := range s {
		if f, ok := accentFold[r]; ok {
			b.WriteString(f)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

var accentFold = func() map[rune]string {
	m := map[rune]string{'œ': "oe", 'Œ': "oe", 'æ': "ae", 'Æ': "ae", 'ß': "ss", '’': "'", 'ʼ': "'"}
	for base, chars := range map[string]string{
		"a": "áàâäãåÁÀÂÄÃÅ", "e": "éèêëÉÈÊË", "i": "íìîïÍÌÎÏ", "o": "óòôöõøÓÒÔÖÕØ",
		"u": "úùûüÚÙÛÜ", "n": "ñÑ", "c": "çÇ", "y": "ýÿÝ",
	} {
		for _, r := range chars {
			m[r] = base
		}
	}
	return m
}()

// splitByText puts an utterance in the test set when the hash of its
// transcript falls in the first testPct percent, so a sentence is never in
// both sets (several stamps share a description).
func splitByText(items []asrItem, testPct int) (train, test []asrItem) {
	for _, it := range items {
		h := fnv.New32a()
		h.Write([]byte(it.Text))
		if int(h.Sum32()%100) < testPct {
			test = append(test, it)
		} else {
			train = append(train, it)
		}
	}
	return train, test
}

// writeManifest writes "<path><TAB><text>" lines.
func writeManifest(path string, items []asrItem) error {
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "%s\t%s\n", it.Path, it.Text)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// ASRDataOptions are the inputs of WriteASRData; an empty folder means the
// pulled copy in the cache.
type ASRDataOptions struct {
	Output       string
	Langs        []string // Tux Paint description languages
	TestPercent  int      // percent of the transcripts held out
	Sounds       string   // stamps folder with the .ogg files
	Texts        string   // stamps folder with the .txt files
	Pocketsphinx string   // pocketsphinx-testdata folder
	Asterisk     string   // Asterisk prompts folder (used when given or pulled)
}

// DefaultASRDataOptions returns the flags' defaults of `paddle speech
// asr-data`, which `paddle dataset build asr-real` uses.
func DefaultASRDataOptions(output string) ASRDataOptions {
	return ASRDataOptions{Output: output, Langs: []string{"es", "en"}, TestPercent: 15}
}

// WriteASRData writes the manifests of real speech (see `paddle speech
// asr-data --help`) into o.Output and prints a JSON summary.
func WriteASRData(env datasets.Env, o ASRDataOptions) error {
	cache := filepath.Join(hub.CacheDir(), "data")
	if o.Sounds == "" {
		o.Sounds = filepath.Join(cache, "tuxpaint-sounds", "usr", "share", "tuxpaint", "stamps")
	}
	if o.Texts == "" {
		o.Texts = filepath.Join(cache, "tuxpaint-text", "usr", "share", "tuxpaint", "stamps")
	}
	if o.Pocketsphinx == "" {
		o.Pocketsphinx = filepath.Join(cache, "speech", "pocketsphinx")
	}
	for _, d := range []struct{ dir, script string }{{o.Sounds, "fetch_tuxpaint_sounds.sh"}, {o.Texts, "fetch_tuxpaint_text.sh"}} {
		if _, err := os.Stat(d.dir); err != nil {
			return fmt.Errorf("%w\nhint: run `paddle dataset pull asr-real` (scripts/%s)", err, d.script)
		}
	}
	out := o.Output
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	summary := map[string]any{}
	real, err := realASRItems(o.Pocketsphinx)
	if err != nil {
		return err
	}
	if err := writeManifest(filepath.Join(out, "real.list"), real); err != nil {
		return err
	}
	summary["real"] = len(real)
	asterisk := o.Asterisk
	if asterisk == "" {
		if _, err := os.Stat(filepath.Join(cache, "asterisk", "core-sounds-en.txt")); err == nil {
			asterisk = filepath.Join(cache, "asterisk")
		}
	}
	if asterisk != "" {
		items, skipped, err := asteriskItems(asterisk)
		if err != nil {
			return fmt.Errorf("%w\nhint: run `paddle dataset pull asterisk` (scripts/fetch_asterisk.sh)", err)
		}
		if err := writeManifest(filepath.Join(out, "asterisk_en.list"), items); err != nil {
			return err
		}
		summary["asterisk"] = map[string]int{"train": len(items), "skipped": skipped}
	}
	for _, lang := range o.Langs {
		items, skipped, err := tuxpaintItems(o.Sounds, o.Texts, lang)
		if err != nil {
			return err
		}
		if len(items) == 0 {
			return fmt.Errorf("%s: no Tux Paint description of language %q with a usable transcript", o.Sounds, lang)
		}
		train, test := splitByText(items, o.TestPercent)
		for _, l := range []struct {
			name  string
			items []asrItem
		}{{"train", train}, {"test", test}} {
			if err := writeManifest(filepath.Join(out, "tuxpaint_"+lang+"_"+l.name+".list"), l.items); err != nil {
				return err
			}
		}
		summary[lang] = map[string]int{"train": len(train), "test": len(test), "skipped": skipped}
	}
	return json.NewEncoder(env.Stdout()).Encode(summary)
}

// newCmdASRData is `paddle speech asr-data --output DIR`, an alias of
// `paddle dataset build asr-real` (datasets/catalog): both run WriteASRData.
func newCmdASRData(f *cmdutil.Factory) *cobra.Command {
	o := DefaultASRDataOptions("")
	cmd := &cobra.Command{
		Use:   "asr-data --output DIR [--langs es,en]",
		Short: "Write manifests of real speech: Tux Paint stamp descriptions and pocketsphinx-testdata",
		Long: "Writes DIR/real.list (pocketsphinx-testdata's 5 LibriVox sentences and 5 \"cards\"\n" +
			"utterances) and, per language, DIR/tuxpaint_<lang>_train.list and _test.list: the spoken\n" +
			"Tux Paint stamp descriptions with their transcripts (accents folded to a-z; texts with\n" +
			"digits or other letters skipped), split by transcript so that no sentence is in both,\n" +
			"and DIR/asterisk_en.list: the Asterisk prompts of one real US English speaker with their\n" +
			"transcripts (scripts/fetch_asterisk.sh; training data only, no test speaker is hers), when\n" +
			"that folder is there or --asterisk names it.\n" +
			"Lines are <absolute path><TAB><text>. Prints a JSON summary.",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Output == "" {
				return cmdutil.FlagErrorf("--output is required")
			}
			return WriteASRData(cmdutil.DatasetEnv(f), o)
		},
	}
	cmd.Flags().StringVar(&o.Output, "output", "", "output folder")
	cmd.Flags().StringSliceVar(&o.Langs, "langs", o.Langs, "Tux Paint description languages (en: the files without a suffix)")
	cmd.Flags().IntVar(&o.TestPercent, "test-percent", o.TestPercent, "percent of the transcripts held out")
	cmd.Flags().StringVar(&o.Sounds, "sounds", "", "stamps folder with the .ogg files (default from scripts/fetch_tuxpaint_sounds.sh)")
	cmd.Flags().StringVar(&o.Texts, "texts", "", "stamps folder with the .txt files (default from scripts/fetch_tuxpaint_text.sh)")
	cmd.Flags().StringVar(&o.Asterisk, "asterisk", "", "Asterisk prompts folder with prompts/ and core-sounds-en.txt (default from scripts/fetch_asterisk.sh, if fetched)")
	cmd.Flags().StringVar(&o.Pocketsphinx, "pocketsphinx", "", "pocketsphinx-testdata folder (default $PADDLE_CACHE/data/speech/pocketsphinx)")
	return cmd
}
