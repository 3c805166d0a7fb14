package synth

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"paddle/core/audio"
)

// Connected speech. The real words the spotter is judged on are mostly cut
// out of connected digit strings and short phrases ("two nine three four
// zero", "four queen of clubs"), where each word runs into its neighbours;
// isolated synthetic words lack that coarticulation. A connected clip
// speaks a whole phrase and cuts its word out at the synthesiser's own word
// times, padded as `paddle speech realwords` pads the real words. Only
// flite (-psdur: each segment's end time) and Festival (the Word relation's
// word_start/word_end) report word times; espeak-ng's command line does not,
// so its words are found by alignment (align.go).

// DigitWords are the words of a digit string: zero…nine and "oh".
var DigitWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "oh"}

// CutPad is the padding around a cut word (seconds), as realwords pads.
const CutPad = 0.05

// TimedEngines are the synthesisers that report word times.
func TimedEngines() []string { return []string{"flite", "festival"} }

// Phrase builds the phrase a connected clip of word is cut from: half the
// time a digit string of 1–5 other digits, else 1–3 other words (keywords
// and _unknown_ words); word goes at a random place. It returns the words
// and word's index.
func Phrase(word string, r *rand.Rand) ([]string, int) {
	var ctx []string
	if r.IntN(2) == 0 {
		for range 1 + r.IntN(5) {
			ctx = append(ctx, DigitWords[r.IntN(len(DigitWords))])
		}
	} else {
		pool := append(append([]string(nil), Keywords...), singleWords(UnknownWords)...)
		for range 1 + r.IntN(3) {
			ctx = append(ctx, pool[r.IntN(len(pool))])
		}
	}
	at := r.IntN(len(ctx) + 1)
	out := append(append(append([]string(nil), ctx[:at]...), word), ctx[at:]...)
	return out, at
}

// singleWords drops the entries of more than one word.
func singleWords(ws []string) []string {
	var out []string
	for _, w := range ws {
		if !strings.Contains(w, " ") {
			out = append(out, w)
		}
	}
	return out
}

// Span is a word's start and end in seconds.
type Span struct{ Start, End float64 }

// SayWords speaks words as one phrase with voice v (flite or Festival) and
// returns the audio and each word's span.
func (e Engines) SayWords(ctx context.Context, words []string, v Voice) (*audio.Audio, []Span, error) {
	prog, err := e.path(v.Engine)
	if err != nil {
		return nil, nil, err
	}
	text := strings.Join(words, " ")
	f, err := os.CreateTemp("", "paddle-tts-*.wav")
	if err != nil {
		return nil, nil, err
	}
	tmp := f.Name()
	f.Close()
	defer os.Remove(tmp)
	var args []string
	switch v.Engine {
	case "flite":
		args = append(fliteArgs(v), "-psdur", "-t", text, "-o", tmp)
	case "festival":
		args = append(festivalVoiceArgs(v), `(set! paddle_utt (utt.synth (Utterance Text "`+festivalQuote(text)+`")))`,
			`(mapcar (lambda (w) (format t "@word %s %f %f\n" (item.name w) (item.feat w "word_start") (item.feat w "word_end"))) (utt.relation.items paddle_utt 'Word))`,
			`(utt.save.wave paddle_utt "`+festivalQuote(tmp)+`" 'riff)`)
	default:
		return nil, nil, fmt.Errorf("%s reports no word times (connected clips need %s)", v.Engine, strings.Join(TimedEngines(), " or "))
	}
	out, err := run(ctx, prog, args)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %q (%s): %w", v.Engine, text, v, err)
	}
	var spans []Span
	if v.Engine == "flite" {
		counts := make([]int, len(words))
		for i, w := range words {
			if counts[i], err = e.flitePhones(ctx, prog, w, v); err != nil {
				return nil, nil, err
			}
		}
		spans, err = fliteSpans(string(out), counts)
	} else {
		spans, err = festivalSpans(string(out), words)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s %q (%s): %w", v.Engine, text, v, err)
	}
	a, err := audio.ReadWAV(tmp)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %q (%s): %w", v.Engine, text, v, err)
	}
	return a, spans, nil
}

func run(ctx context.Context, prog string, args []string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, prog, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return stdout.Bytes(), nil
}

var phoneCache sync.Map // "voice\x00word" → int

// flitePhones is the number of segments flite gives word alone (pauses
// not counted): it splits a phrase's segment stream into words.
func (e Engines) flitePhones(ctx context.Context, prog, word string, v Voice) (int, error) {
	key := v.Name + "\x00" + word
	if n, ok := phoneCache.Load(key); ok {
		return n.(int), nil
	}
	out, err := run(ctx, prog, []string{"-voice", v.Name, "-ps", "-t", word, "-o", "none"})
	if err != nil {
		return 0, fmt.Errorf("flite %q (%s): %w", word, v.Name, err)
	}
	n := 0
	for _, p := range strings.Fields(string(out)) {
		if p != "pau" {
			n++
		}
	}
	if n == 0 {
		return 0, fmt.Errorf("flite %q (%s): no segments", word, v.Name)
	}
	phoneCache.Store(key, n)
	return n, nil
}

// fliteSpans splits flite's -psdur output ("pau:0.193 t:0.277 uw:0.378 …",
// each segment with its end time) into words of counts[i] segments; pauses
// belong to no word. A word starts where the segment before it ends.
func fliteSpans(out string, counts []int) ([]Span, error) {
	type seg struct {
		name string
		end  float64
	}
	var segs []seg
	for _, f := range strings.Fields(out) {
		name, t, ok := strings.Cut(f, ":")
		if !ok {
			continue
		}
		end, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, fmt.Errorf("segment %q: %w", f, err)
		}
		segs = append(segs, seg{name, end})
	}
	spans := make([]Span, 0, len(counts))
	prev, i := 0.0, 0
	for _, n := range counts {
		for i < len(segs) && segs[i].name == "pau" {
			prev = segs[i].end
			i++
		}
		if i+n > len(segs) {
			return nil, fmt.Errorf("%d segments do not hold words of %v segments", len(segs), counts)
		}
		for _, s := range segs[i : i+n] {
			if s.name == "pau" {
				return nil, fmt.Errorf("a pause inside a word (segments %v, word sizes %v)", segs, counts)
			}
		}
		spans = append(spans, Span{prev, segs[i+n-1].end})
		prev = segs[i+n-1].end
		i += n
	}
	for ; i < len(segs); i++ {
		if segs[i].name != "pau" {
			return nil, fmt.Errorf("segments left over after words of %v segments", counts)
		}
	}
	return spans, nil
}

// festivalSpans reads the "@word NAME START END" lines the Festival script
// prints, which must name words in order.
func festivalSpans(out string, words []string) ([]Span, error) {
	var spans []Span
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) != 4 || f[0] != "@word" {
			continue
		}
		st, err1 := strconv.ParseFloat(f[2], 64)
		en, err2 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("word line %q: bad times", l)
		}
		if len(spans) >= len(words) || !strings.EqualFold(f[1], words[len(spans)]) {
			return nil, fmt.Errorf("festival word %q does not match the phrase %q", f[1], strings.Join(words, " "))
		}
		spans = append(spans, Span{st, en})
	}
	if len(spans) != len(words) {
		return nil, fmt.Errorf("festival gave %d word times for %d words", len(spans), len(words))
	}
	return spans, nil
}

// CutWord cuts [start-pad, end+pad] seconds out of x with 10 ms fades at
// both ends (`paddle speech realwords` cuts the real words so).
func CutWord(x []float32, rate int, start, end, pad float64) []float32 {
	lo := max(int(math.Round((start-pad)*float64(rate))), 0)
	hi := min(int(math.Round((end+pad)*float64(rate))), len(x))
	if hi <= lo {
		return nil
	}
	w := append([]float32(nil), x[lo:hi]...)
	fade := min(rate/100, len(w)/2)
	for i := range fade {
		g := float32(i) / float32(fade)
		w[i] *= g
		w[len(w)-1-i] *= g
	}
	return w
}

// connectedWord speaks clip c's phrase and cuts its word out at rate.
func connectedWord(ctx context.Context, eng Engines, c Clip, rate int) ([]float32, error) {
	words := strings.Fields(c.Phrase)
	if c.At < 0 || c.At >= len(words) {
		return nil, fmt.Errorf("word index %d outside the phrase %q", c.At, c.Phrase)
	}
	say := eng.SayWords
	if c.Voice.Engine == "espeak-ng" {
		say = eng.SayWordsAligned
	}
	a, spans, err := say(ctx, words, c.Voice)
	if err != nil {
		return nil, err
	}
	if a, err = a.Resample(rate); err != nil {
		return nil, err
	}
	s := spans[c.At]
	w := CutWord(a.Mono(), rate, s.Start, s.End, CutPad)
	if len(w) == 0 || RMSdB(w) < -100 {
		return nil, fmt.Errorf("word %d of %q (%.3f-%.3f s) is empty", c.At, c.Phrase, s.Start, s.End)
	}
	return w, nil
}
