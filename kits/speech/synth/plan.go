package synth

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
)

// Keywords are the spoken commands of the keyword spotter: the digits,
// "oh", and Speech Commands' ten command words.
var Keywords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "oh",
	"yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"}

// Unknown and Silence are the two extra classes: any other word, and no word.
const (
	Unknown = "_unknown_"
	Silence = "_silence_"
)

// UnknownWords are spoken for the _unknown_ class: words that are not
// keywords, including near misses ("ten", "often", "gold", "tree", "fore").
var UnknownWords = []string{"ten", "eleven", "twenty", "hundred", "of", "clubs", "queen", "king", "spades", "hearts",
	"front", "rear", "side", "center", "back", "forward", "meters", "bed", "bird", "cat", "dog", "happy", "house",
	"marvin", "sheila", "tree", "wow", "learn", "follow", "visual", "often", "gold", "fore", "won", "to", "sticks",
	"nice", "done", "yet", "open", "hello", "the", "and", "water", "light", "red", "green", "blue", "yellow", "one two"}

// Classes returns the class list of a keyword set: the keywords, then
// _unknown_ and _silence_.
func Classes(words []string) []string {
	return append(slices.Clone(words), Unknown, Silence)
}

// EspeakAccents are espeak-ng's English voices.
var EspeakAccents = []string{"en-us", "en-gb", "en-gb-scotland", "en-gb-x-gbclan", "en-gb-x-rp", "en-gb-x-gbcwmd", "en-029"}

// EspeakVariants are espeak-ng variants (voice quality: male, female,
// klatt synthesis, whisper ...); "" is the accent's own voice.
var EspeakVariants = []string{"", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "f1", "f2", "f3", "f4", "f5",
	"klatt", "klatt2", "klatt3", "klatt4", "croak", "whisper", "whisperf", "Alicia", "Andy", "Annie", "aunty",
	"belinda", "benjamin", "caleb", "david", "ed", "edward", "grandma", "grandpa", "iven", "john", "linda",
	"max", "michel", "norbert", "paul", "rob", "robert", "steph", "travis", "victor", "zac"}

// FliteVoices are flite's voices (kal16: diphone; awb, rms, slt: from CMU
// ARCTIC recordings of real speakers).
var FliteVoices = []string{"kal16", "awb", "rms", "slt"}

// FestivalVoices are the Festival voices flite lacks that Debian packages:
// ked (festvox-kdlpc16k, an American male diphone voice).
var FestivalVoices = []string{"ked_diphone"}

// FestivalSpace lists the Festival voice settings: voices × duration
// stretches × mean F0 (the voice's own 105 Hz, and 85–160 Hz).
func FestivalSpace() []Voice {
	var out []Voice
	for _, v := range FestivalVoices {
		for _, st := range []float64{0.8, 1, 1.25} {
			for _, f0 := range []float64{0, 85, 130, 160} {
				out = append(out, Voice{Engine: "festival", Name: v, Speed: st, Pitch: f0})
			}
		}
	}
	return out
}

// VoiceSpace lists every voice setting: espeak accents × variants × speeds
// × pitches, and flite voices × duration stretches × (own pitch, lower,
// higher).
func VoiceSpace(espeak, flite bool) []Voice {
	var out []Voice
	if espeak {
		for _, acc := range EspeakAccents {
			for _, va := range EspeakVariants {
				name := acc
				if va != "" {
					name += "+" + va
				}
				for _, sp := range []float64{120, 150, 175, 200} {
					for _, p := range []float64{25, 40, 55, 70, 85} {
						out = append(out, Voice{Engine: "espeak-ng", Name: name, Speed: sp, Pitch: p})
					}
				}
			}
		}
	}
	if flite {
		for _, v := range FliteVoices {
			for _, st := range []float64{0.8, 1, 1.25} {
				for _, f0 := range []float64{0, 90, 130, 180} {
					out = append(out, Voice{Engine: "flite", Name: v, Speed: st, Pitch: f0})
				}
			}
		}
	}
	return out
}

// HeldOut says whether a voice belongs to the held-out (validation) split:
// the espeak variants m3, f4, klatt3, david and paul (in every accent) and
// flite's rms, so held-out speakers are never trained on.
func HeldOut(v Voice) bool {
	if v.Engine == "flite" {
		return v.Name == "rms"
	}
	for _, va := range []string{"+m3", "+f4", "+klatt3", "+david", "+paul"} {
		if len(v.Name) > len(va) && v.Name[len(v.Name)-len(va):] == va {
			return true
		}
	}
	return false
}

// Clip is one planned clip.
type Clip struct {
	Index int    `json:"index"`
	Label string `json:"label"` // class name
	Text  string `json:"text"`  // what is spoken ("" for _silence_)
	Voice Voice  `json:"voice"`
	Split string `json:"split"` // "train" or "val"
	Seed  uint64 `json:"seed"`  // the clip's augmentation seed
	// Phrase, when set, is the phrase spoken (words separated by spaces);
	// the clip is its word number At, cut out at the synthesiser's word
	// times (connected.go).
	Phrase string `json:"phrase,omitempty"`
	At     int    `json:"at,omitempty"`
}

// Name is the clip's file name: <label>/<split>_<index>.wav.
func (c Clip) Name() string { return fmt.Sprintf("%s/%s_%06d.wav", c.Label, c.Split, c.Index) }

// PlanOptions size a plan.
type PlanOptions struct {
	Words         []string // keywords (default Keywords)
	PerWord       int      // clips per keyword
	UnknownClips  int      // clips of _unknown_ (0: PerWord)
	SilenceClips  int      // clips of _silence_ (0: PerWord/2)
	Seed          uint64
	Espeak, Flite bool // which synthesisers to use
	// Festival adds Festival's voices (FestivalSpace); alone it speaks every
	// word clip, next to others FestivalShare of them (0: 0.25). Plans
	// without it are unchanged.
	Festival      bool
	FestivalShare float64
	// FliteShare is the fraction of word clips spoken by flite when both
	// synthesisers are used (0: 0.25). flite has far fewer settings than
	// espeak-ng, but its ARCTIC voices come from real speakers.
	FliteShare float64
	// Connected is the fraction of each word class's clips (keywords and
	// _unknown_) cut out of a spoken phrase (Phrase) instead of spoken
	// alone, by flite's and Festival's voices (the engines that report word
	// times). 0 leaves plans as they were.
	Connected float64
	// ConnectedEspeak is the fraction of the connected clips spoken by
	// espeak-ng, whose word times come from aligning the words spoken alone
	// to the phrase (align.go). 0 leaves plans as they were.
	ConnectedEspeak float64
	// Recorded are real speakers whose recorded words are used like a
	// voice (RecordedEngine, at each of RecordedSpeeds), in the train split.
	// Alone they speak every clip of the words they recorded (an _unknown_
	// clip: one of UnknownWords they recorded); next to synthesisers
	// RecordedShare of those (0: 0.25). Plans without them are unchanged.
	Recorded      []Speaker
	RecordedShare float64
}

// Plan draws every clip: for each class, PerWord voices from the voice
// space (without replacement while they last), each clip's split from its
// voice. The plan depends only on the options.
func Plan(o PlanOptions) ([]Clip, error) {
	if len(o.Words) == 0 {
		o.Words = Keywords
	}
	if o.PerWord <= 0 {
		return nil, fmt.Errorf("synth plan: clips per word %d must be positive", o.PerWord)
	}
	espeak, flite := VoiceSpace(o.Espeak, false), VoiceSpace(false, o.Flite)
	var fest []Voice
	festShare := 0.0
	if o.Festival {
		fest, festShare = FestivalSpace(), o.FestivalShare
		if len(espeak)+len(flite) == 0 {
			festShare = 1
		} else if festShare <= 0 {
			festShare = 0.25
		}
	}
	synthesised := len(espeak) + len(flite) + len(fest) // voice settings of the synthesisers
	recShare := 0.0
	if len(o.Recorded) > 0 {
		recShare = o.RecordedShare
		if synthesised == 0 {
			recShare = 1
		} else if recShare <= 0 {
			recShare = 0.25
		}
		if recShare > 1 {
			return nil, fmt.Errorf("synth plan: recorded share %g: want 0 to 1", recShare)
		}
	}
	if synthesised+len(o.Recorded) == 0 {
		return nil, fmt.Errorf("synth plan: no synthesiser selected")
	}
	share := o.FliteShare
	switch {
	case len(flite) == 0:
		share = 0
	case len(espeak) == 0:
		share = 1
	case share <= 0:
		share = 0.25
	}
	timed := append(append([]Voice(nil), flite...), fest...)
	if o.Connected < 0 || o.Connected > 1 {
		return nil, fmt.Errorf("synth plan: connected share %g: want 0 to 1", o.Connected)
	}
	if o.ConnectedEspeak < 0 || o.ConnectedEspeak > 1 {
		return nil, fmt.Errorf("synth plan: espeak-ng share of connected clips %g: want 0 to 1", o.ConnectedEspeak)
	}
	if o.ConnectedEspeak > 0 && len(espeak) == 0 {
		return nil, fmt.Errorf("synth plan: an espeak-ng share of connected clips without espeak-ng")
	}
	if o.Connected > 0 && len(timed) == 0 && o.ConnectedEspeak < 1 {
		return nil, fmt.Errorf("synth plan: connected clips need a synthesiser that reports word times (%s)", strings.Join(TimedEngines(), ", "))
	}
	var clips []Clip
	add := func(label, text string, v Voice, r *rand.Rand) {
		split := "train"
		if HeldOut(v) {
			split = "val"
		}
		clips = append(clips, Clip{Index: len(clips), Label: label, Text: text, Voice: v, Split: split, Seed: r.Uint64()})
	}
	draw := func(label string, n int, candidates []string, text func(r *rand.Rand) string) error {
		// recorded clips draw from their own stream, before the synthesised
		// ones: without recorded speakers the plan is unchanged
		var recVoices []Voice
		recWords := map[string][]string{}
		for _, s := range o.Recorded {
			if ws := s.has(candidates); len(ws) > 0 {
				recWords[s.Dir] = ws
				for _, sp := range RecordedSpeeds {
					recVoices = append(recVoices, Voice{Engine: RecordedEngine, Name: s.Dir, Speed: sp})
				}
			}
		}
		if len(recVoices) > 0 {
			nrec := int(float64(n)*recShare + 0.5)
			n -= nrec
			rr := rand.New(rand.NewPCG(o.Seed, hash(label+"\x00recorded")))
			for _, v := range cycle(recVoices, nrec, rr) {
				ws := recWords[v.Name]
				add(label, ws[rr.IntN(len(ws))], v, rr)
			}
		}
		if n > 0 && synthesised == 0 {
			return fmt.Errorf("synth plan: no recorded speaker said %q (%s) and no synthesiser is selected", label, strings.Join(candidates, ", "))
		}
		nc := int(float64(n)*o.Connected + 0.5)
		n -= nc
		r := rand.New(rand.NewPCG(o.Seed, hash(label)))
		nfest := int(float64(n)*festShare + 0.5)
		nf := int(float64(n-nfest)*share + 0.5)
		voices := append(cycle(espeak, n-nfest-nf, r), cycle(flite, nf, r)...)
		for _, v := range append(voices, cycle(fest, nfest, r)...) {
			add(label, text(r), v, r)
		}
		// connected clips draw from their own stream: the isolated ones
		// above are those of a plan with fewer clips
		rc := rand.New(rand.NewPCG(o.Seed, hash(label+"\x00connected")))
		nce := int(float64(nc)*o.ConnectedEspeak + 0.5)
		for _, v := range append(cycle(timed, nc-nce, rc), cycle(espeak, nce, rc)...) {
			w := text(rc)
			for strings.Contains(w, " ") { // one word is cut out
				w = text(rc)
			}
			words, at := Phrase(w, rc)
			add(label, w, v, rc)
			clips[len(clips)-1].Phrase, clips[len(clips)-1].At = strings.Join(words, " "), at
		}
		return nil
	}
	for _, w := range o.Words {
		if err := draw(w, o.PerWord, []string{w}, func(*rand.Rand) string { return w }); err != nil {
			return nil, err
		}
	}
	if err := draw(Unknown, cmpOr(o.UnknownClips, o.PerWord), UnknownWords, func(r *rand.Rand) string { return UnknownWords[r.IntN(len(UnknownWords))] }); err != nil {
		return nil, err
	}
	n := cmpOr(o.SilenceClips, max(o.PerWord/2, 1))
	r := rand.New(rand.NewPCG(o.Seed, hash(Silence)))
	for i := range n {
		split := "train"
		if i%10 == 9 {
			split = "val"
		}
		clips = append(clips, Clip{Index: len(clips), Label: Silence, Split: split, Seed: r.Uint64()})
	}
	return clips, nil
}

// cycle draws n voices from space, without replacement while they last.
func cycle(space []Voice, n int, r *rand.Rand) []Voice {
	out := make([]Voice, 0, n)
	var perm []int
	for i := range n {
		if i%len(space) == 0 {
			perm = r.Perm(len(space))
		}
		out = append(out, space[perm[i%len(space)]])
	}
	return out
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func cmpOr(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}
