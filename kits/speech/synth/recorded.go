package synth

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"paddle/core/audio"
)

// RecordedEngine is the Voice.Engine of a recorded speaker: real recordings
// of single words instead of a synthesiser. The voice's Name is the
// speaker's folder and its Speed a sox-style speed factor.
const RecordedEngine = "recorded"

// RecordedSpeeds are the speed factors a recorded word is played at, as sox's
// `speed` does (tempo and pitch together, as a shorter or longer vocal tract
// would): the variation a recording lacks that a synthesiser's prosody
// settings give. The augmentation's own speed change comes on top.
var RecordedSpeeds = []float64{0.9, 0.95, 1, 1.05, 1.1}

// Speaker is one recorded speaker: a folder holding one recording per word,
// named by the word spoken (zero.wav, oh.wav, a.ogg).
type Speaker struct {
	Dir   string
	Words map[string]string // word → file name in Dir
}

// LoadSpeaker lists a speaker folder's recordings (.wav, .ogg; the word is
// the file name without its extension, lower case). A folder without any
// recording is an error.
func LoadSpeaker(dir string) (Speaker, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return Speaker{}, fmt.Errorf("recorded speaker: %w", err)
	}
	s := Speaker{Dir: dir, Words: map[string]string{}}
	for _, e := range ents {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if e.IsDir() || (ext != ".wav" && ext != ".ogg") {
			continue
		}
		w := strings.ToLower(strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())))
		if prev, ok := s.Words[w]; ok {
			return Speaker{}, fmt.Errorf("recorded speaker %s: two recordings of %q (%s, %s)", dir, w, prev, e.Name())
		}
		s.Words[w] = e.Name()
	}
	if len(s.Words) == 0 {
		return Speaker{}, fmt.Errorf("recorded speaker %s: no <word>.wav or <word>.ogg recordings", dir)
	}
	return s, nil
}

// has returns the words of candidates this speaker recorded, in order.
func (s Speaker) has(candidates []string) []string {
	var out []string
	for _, w := range candidates {
		if _, ok := s.Words[w]; ok {
			out = append(out, w)
		}
	}
	return out
}

// sayRecorded reads the recording of text by the speaker in v.Name, played
// at speed v.Speed (its samples relabelled at Speed times their rate).
func sayRecorded(text string, v Voice) (*audio.Audio, error) {
	s, err := LoadSpeaker(v.Name)
	if err != nil {
		return nil, err
	}
	f, ok := s.Words[strings.ToLower(text)]
	if !ok {
		known := make([]string, 0, len(s.Words))
		for w := range s.Words {
			known = append(known, w)
		}
		slices.Sort(known)
		return nil, fmt.Errorf("recorded speaker %s: no recording of %q (has: %s)", v.Name, text, strings.Join(known, ", "))
	}
	a, err := audio.Read(filepath.Join(v.Name, f), nil)
	if err != nil {
		return nil, err
	}
	if v.Speed > 0 && v.Speed != 1 {
		a.Rate = int(math.Round(float64(a.Rate) * v.Speed))
	}
	return a, nil
}
