package synth

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"unicode"

	"paddle/core/audio"
)

// Sentence mode: whole sentences spoken by the same voices as the keyword
// clips, for training speech recognition.

// NormalizeText lowercases s and keeps the letters a–z, apostrophes inside
// words and single spaces; hyphens and other punctuation become spaces. It
// returns "" when s has a digit or a letter outside a–z (numbers and
// foreign words would need spelling out).
func NormalizeText(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r == '\'':
			b.WriteRune(r)
		case unicode.IsDigit(r), unicode.IsLetter(r):
			return ""
		default:
			b.WriteByte(' ')
		}
	}
	words := strings.Fields(b.String())
	for i, w := range words {
		words[i] = strings.Trim(w, "'")
	}
	return strings.Join(strings.Fields(strings.Join(words, " ")), " ")
}

// ReadBrownSentences reads the Brown corpus files in dir (one tagged
// sentence per line: "The/at jury/nn ...") and returns the distinct
// normalised sentences of minWords to maxWords words, sorted.
func ReadBrownSentences(dir string, minWords, maxWords int) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "c[a-r][0-9][0-9]"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no Brown corpus files (ca01 ...)\nhint: scripts/setup.sh fetches the corpus into $PADDLE_CACHE/data/brown", dir)
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			var words []string
			for _, tok := range strings.Fields(sc.Text()) {
				if i := strings.LastIndexByte(tok, '/'); i > 0 {
					tok = tok[:i]
				}
				words = append(words, tok)
			}
			s := NormalizeText(strings.Join(words, " "))
			if n := len(strings.Fields(s)); s == "" || n < minWords || n > maxWords || seen[s] {
				continue
			}
			seen[s] = true
			out = append(out, s)
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	sort.Strings(out)
	return out, nil
}

// SentenceClip is one planned sentence recording.
type SentenceClip struct {
	Index int    `json:"index"`
	Text  string `json:"text"`
	Voice Voice  `json:"voice"`
	Split string `json:"split"` // "train" or "val"
}

// Name is the clip's file name under the output folder.
func (c SentenceClip) Name() string { return fmt.Sprintf("%s_%06d.wav", c.Split, c.Index) }

// PlanSentences assigns n clips: each a sentence and a voice drawn from
// VoiceSpace. A sentence is in the validation split when its hash says so
// (valFrac of the sentences); validation clips use held-out voices
// (HeldOut) and training clips the others, so neither the text nor the
// voice of a validation clip is trained on.
func PlanSentences(sentences []string, n int, valFrac float64, seed uint64, espeak, flite bool) ([]SentenceClip, error) {
	var train, val []Voice
	for _, v := range VoiceSpace(espeak, flite) {
		if HeldOut(v) {
			val = append(val, v)
		} else {
			train = append(train, v)
		}
	}
	if len(train) == 0 || len(val) == 0 || len(sentences) == 0 {
		return nil, fmt.Errorf("sentence plan: %d sentences, %d training and %d held-out voices (enable espeak-ng or flite)", len(sentences), len(train), len(val))
	}
	var trS, vaS []string
	for _, s := range sentences {
		if float64(hash(s)%1000) < valFrac*1000 {
			vaS = append(vaS, s)
		} else {
			trS = append(trS, s)
		}
	}
	if len(trS) == 0 || len(vaS) == 0 {
		return nil, fmt.Errorf("sentence plan: %d sentences give %d training and %d validation ones", len(sentences), len(trS), len(vaS))
	}
	r := rand.New(rand.NewPCG(seed, 0x5e47))
	out := make([]SentenceClip, n)
	for i := range out {
		if int(float64(i+1)*valFrac) > int(float64(i)*valFrac) { // every 1/valFrac-th clip
			out[i] = SentenceClip{Index: i, Text: vaS[r.IntN(len(vaS))], Voice: val[r.IntN(len(val))], Split: "val"}
		} else {
			out[i] = SentenceClip{Index: i, Text: trS[r.IntN(len(trS))], Voice: train[r.IntN(len(train))], Split: "train"}
		}
	}
	return out, nil
}

// RunSentences synthesises every clip into dir (16-bit PCM at rate, with a
// random gain of ±6 dB from the clip's index) and writes dir/train.list and
// dir/val.list: "<file>.wav<TAB><text>" per line, in plan order. Clips whose
// file exists are kept (a rerun resumes).
func RunSentences(ctx context.Context, eng Engines, clips []SentenceClip, dir string, rate, workers int) error {
	var voices []Voice
	for _, c := range clips {
		voices = append(voices, c.Voice)
	}
	if err := eng.Check(voices); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	work := make(chan int)
	errs := make(chan error, len(clips))
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				errs <- sayClip(ctx, eng, clips[i], filepath.Join(dir, clips[i].Name()), rate)
			}
		}()
	}
	for i := range clips {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	lists := map[string]*strings.Builder{"train": {}, "val": {}}
	for _, c := range clips {
		fmt.Fprintf(lists[c.Split], "%s\t%s\n", c.Name(), c.Text)
	}
	for split, b := range lists {
		if err := os.WriteFile(filepath.Join(dir, split+".list"), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func sayClip(ctx context.Context, eng Engines, c SentenceClip, path string, rate int) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	a, err := eng.Say(ctx, c.Text, c.Voice)
	if err != nil {
		return err
	}
	if a.Rate != rate {
		if a, err = a.Resample(rate); err != nil {
			return err
		}
	}
	x := a.Mono()
	r := rand.New(rand.NewPCG(uint64(c.Index), 0x9a1))
	g := float32(math.Pow(10, (r.Float64()*12-6)/20))
	for i := range x {
		x[i] *= g
	}
	tmp := path + ".tmp.wav"
	if err := audio.WriteWAV(tmp, &audio.Audio{Rate: rate, Channels: [][]float32{x}}, audio.PCM16); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
