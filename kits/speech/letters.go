package speech

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"paddle/core/audio"
	"paddle/core/audio/vad"
	"paddle/core/hub"
	"paddle/datasets"
	"paddle/kits/speech/synth"
)

// Letters are the classes of the letter-spotting variant of the keyword
// spotter: the English letter names, spoken as "ay", "bee", ... "double-u".
var Letters = strings.Split("abcdefghijklmnopqrstuvwxyz", "")

// letterSpeakers are KLettres' English alphabets (one speaker each).
var letterSpeakers = []string{"en", "en_GB"}

// letterVAD finds the letter in a KLettres clip: Silero VAD with
// get_speech_timestamps' rules, no padding (the cut pads) and segments down
// to 100 ms. Isolated letters get low speech probabilities (en's "B" never
// reaches 0.5, en_GB's "p" not 0.2), so the threshold steps down through
// letterThresholds until a segment is found. A peak threshold cannot do it:
// some clips have clicks or breaths as loud as the letter far from it; the
// energy VAD keeps trailing noise ("W").
var letterVAD = vad.Options{MinSpeechMs: 100, MinSilenceMs: 100, MinSilenceAtMaxSpeechMs: 98}

// letterThresholds are the Silero thresholds letterVAD tries, in order.
var letterThresholds = []float64{0.5, 0.35, 0.2, 0.1}

// letterLead moves the cut's start this much earlier (seconds): Silero
// reports speech from the first voiced window, after the burst of b, d, p,
// t (its start falls 30-110 ms after the energy VAD's on those letters).
const letterLead = 0.05

// realLettersRun writes the letter spotter's real test set: KLettres'
// spoken English letter names (scripts/fetch_klettres.sh), resampled to
// opts.Rate, cut from the first to the last speech segment Silero VAD finds
// (letterVAD, letterLead) and padded by opts.PadMs with 10 ms fades as
// realwords cuts its words, into DIR/<letter>/real_<speaker>_<letter>.wav
// with DIR/real.list (= DIR/real_keywords.list: every clip is a letter)
// and DIR/speakers.tsv (the alphabet each clip comes from).
func realLettersRun(env datasets.Env, opts *RealWordsOptions) error {
	dir := opts.DataDir
	if dir == "" {
		dir = filepath.Join(hub.CacheDir(), "data", "klettres")
	}
	model, err := vad.DefaultModelPath()
	if err != nil {
		return err
	}
	silero, err := vad.LoadSilero(model, 16000)
	if err != nil {
		return err
	}
	var list, groups strings.Builder
	n := 0
	for _, sp := range letterSpeakers {
		for _, l := range Letters {
			src := filepath.Join(dir, sp, "alpha", l+".ogg")
			if _, err := os.Stat(src); err != nil { // en names its files A.ogg ... Z.ogg
				src = filepath.Join(dir, sp, "alpha", strings.ToUpper(l)+".ogg")
			}
			a, err := audio.Read(src, nil)
			if err != nil {
				return fmt.Errorf("%w\nhint: scripts/fetch_klettres.sh fetches KLettres' letters into %s", err, dir)
			}
			x16, err := audio.Resample(a.Mono(), a.Rate, 16000)
			if err != nil {
				return fmt.Errorf("%s: %w", src, err)
			}
			probs, err := silero.Probs(x16)
			if err != nil {
				return fmt.Errorf("%s: %w", src, err)
			}
			var segs []vad.Segment
			for _, th := range letterThresholds {
				o := letterVAD
				o.Threshold = th
				if segs = vad.Timestamps(probs, silero.Window(), len(x16), 16000, o); len(segs) > 0 {
					break
				}
			}
			if len(segs) == 0 {
				return fmt.Errorf("%s: no speech found", src)
			}
			x := x16 // the VAD's input is the clip already at the default rate
			if opts.Rate != 16000 {
				if x, err = audio.Resample(a.Mono(), a.Rate, opts.Rate); err != nil {
					return fmt.Errorf("%s: %w", src, err)
				}
			}
			start, end := float64(segs[0].Start)/16000-letterLead, float64(segs[len(segs)-1].End)/16000
			clip := synth.CutWord(x, opts.Rate, start, end, opts.PadMs/1000)
			name := filepath.Join(l, fmt.Sprintf("real_%s_%s.wav", sp, l))
			if err := os.MkdirAll(filepath.Join(opts.Output, l), 0o755); err != nil {
				return err
			}
			if err := audio.WriteWAV(filepath.Join(opts.Output, name), &audio.Audio{Rate: opts.Rate, Channels: [][]float32{clip}}, audio.PCM16); err != nil {
				return err
			}
			fmt.Fprintf(&list, "%s\t%s\n", name, l)
			fmt.Fprintf(&groups, "%s\t%s\n", name, sp)
			n++
		}
	}
	for f, s := range map[string]string{"real.list": list.String(), "real_keywords.list": list.String(), "speakers.tsv": groups.String()} {
		if err := os.WriteFile(filepath.Join(opts.Output, f), []byte(s), 0o644); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(env.Stdout(), "{\"output\":%q,\"audio_words\":%d,\"audio_keywords\":%d}\n", opts.Output, n, n)
	return err
}
