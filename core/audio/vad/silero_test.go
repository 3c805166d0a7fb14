package vad

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"paddle/core/audio"
	"paddle/core/hub"
)

// refCase is one recording of testdata/silero_ref.json
// (scripts/ref/silero_vad_golden.sh).
type refCase struct {
	Name    string    `json:"name"`
	Model   string    `json:"model"`
	Rate    int       `json:"rate"`
	Window  int       `json:"window"`
	Samples int       `json:"samples"`
	Probs   []float32 `json:"probs"`
	Cases   []struct {
		Options  map[string]float64 `json:"options"`
		Segments [][2]int           `json:"segments"`
	} `json:"cases"`
}

// refAudio is where each reference case's recording is, under the speech data cache.
var refAudio = map[string]string{
	"numbers":           "pocketsphinx/numbers.raw",
	"hts1a_8k":          "codec2/wav/hts1a.wav",
	"goforward_op15":    "pocketsphinx/goforward.raw",
	"librivox0880_op18": "pocketsphinx/librivox/sense_and_sensibility_01_austen_64kb-0880.wav",
	"cards001_half":     "pocketsphinx/cards/001.wav",
	"concat":            "", // concatSpeech
}

func loadRefs(t *testing.T) []refCase {
	t.Helper()
	b, err := os.ReadFile("testdata/silero_ref.json")
	if err != nil {
		t.Fatal(err)
	}
	var refs []refCase
	if err := json.Unmarshal(b, &refs); err != nil {
		t.Fatal(err)
	}
	real := 0
	for _, r := range refs {
		if r.Model != "" {
			real++
		}
	}
	if real != len(refAudio) || len(refs) < real+3 {
		t.Fatalf("%d reference cases (%d recordings), want %d recordings and 3 synthetic", len(refs), real, len(refAudio))
	}
	return refs
}

func cacheDir() string { return hub.CacheDir() }

func modelPath(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(cacheDir(), "npm", "silero-vad-1.0.3", "package", "weights", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("Silero VAD model %s not found: run scripts/setup.sh", p)
	}
	return p
}

// readSpeech reads a cached recording (16-bit, mono) as float32 x/32768.
func readSpeech(t *testing.T, rel string, rate int) []float32 {
	t.Helper()
	p := filepath.Join(cacheDir(), "data", "speech", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not found: run scripts/setup.sh", p)
	}
	a, err := audio.Read(p, &audio.RawFormat{Rate: rate, Encoding: audio.PCM16})
	if err != nil {
		t.Fatal(err)
	}
	if a.Rate != rate || len(a.Channels) != 1 {
		t.Fatalf("%s: %d Hz, %d channels", p, a.Rate, len(a.Channels))
	}
	return a.Channels[0]
}

// Per-window probabilities of every model variant, 16 and 8 kHz, on real
// recordings agree with ONNX Runtime running the same window loop.
func TestSileroProbsMatchORT(t *testing.T) {
	for _, r := range loadRefs(t) {
		if r.Model == "" {
			continue // synthetic probabilities, for the post-processing test
		}
		m := modelPath(t, r.Model)
		x := caseSamples(t, r.Name, r.Rate)
		if len(x) != r.Samples {
			t.Fatalf("%s: %d samples, reference has %d", r.Name, len(x), r.Samples)
		}
		s, err := LoadSilero(m, r.Rate)
		if err != nil {
			t.Fatal(err)
		}
		if s.Window() != r.Window {
			t.Fatalf("%s: window %d, reference %d", r.Name, s.Window(), r.Window)
		}
		got, err := s.Probs(x)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(r.Probs) {
			t.Fatalf("%s: %d windows, reference %d", r.Name, len(got), len(r.Probs))
		}
		worst := 0.0
		for i := range got {
			worst = math.Max(worst, math.Abs(float64(got[i]-r.Probs[i])))
		}
		t.Logf("%s (%s, %d Hz, %d windows): max |p - p_ort| = %.2g", r.Name, r.Model, r.Rate, len(got), worst)
		if worst > 1e-4 {
			t.Errorf("%s: probabilities differ from ONNX Runtime by %g", r.Name, worst)
		}
	}
}

// Timestamps on the reference probabilities (of the recordings, and three
// synthetic sequences at 16 and 8 kHz) gives the segments of the Python
// transcription of get_speech_timestamps for every option set.
func TestTimestampsMatchReference(t *testing.T) {
	n := 0
	for _, r := range loadRefs(t) {
		for _, c := range r.Cases {
			o := DefaultOptions()
			for k, v := range c.Options {
				switch k {
				case "threshold":
					o.Threshold = v
				case "min_speech_duration_ms":
					o.MinSpeechMs = v
				case "min_silence_duration_ms":
					o.MinSilenceMs = v
				case "speech_pad_ms":
					o.SpeechPadMs = v
				case "neg_threshold":
					o.NegThreshold = v
				case "max_speech_duration_s":
					o.MaxSpeechS = v
				default:
					t.Fatalf("unknown option %s", k)
				}
			}
			got := Timestamps(r.Probs, r.Window, r.Samples, r.Rate, o)
			if !sameSegments(got, c.Segments) {
				t.Errorf("%s %v: segments %v, reference %v", r.Name, c.Options, got, c.Segments)
			}
			n++
		}
	}
	if n < 50 {
		t.Fatalf("only %d cases", n)
	}
}

func sameSegments(got []Segment, want [][2]int) bool {
	if len(got) != len(want) {
		return false
	}
	for i, s := range got {
		if s.Start != want[i][0] || s.End != want[i][1] {
			return false
		}
	}
	return true
}

func caseSamples(t *testing.T, name string, rate int) []float32 {
	t.Helper()
	if name == "concat" {
		x, _ := concatSpeech(t)
		return x
	}
	return readSpeech(t, refAudio[name], rate)
}

// concatSpeech is the golden script's real speech with real pauses:
// numbers.raw, 0.6 s of zeros, goforward.raw, 0.3 s of zeros, cards/001.wav
// (16 kHz); it also returns where each recording lies.
func concatSpeech(t *testing.T) ([]float32, []Segment) {
	t.Helper()
	var x []float32
	var parts []Segment
	for i, rel := range []string{"pocketsphinx/numbers.raw", "pocketsphinx/goforward.raw", "pocketsphinx/cards/001.wav"} {
		if i > 0 {
			x = append(x, make([]float32, []int{9600, 4800}[i-1])...)
		}
		y := readSpeech(t, rel, 16000)
		parts = append(parts, Segment{len(x), len(x) + len(y)})
		x = append(x, y...)
	}
	return x, parts
}
