package speech

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/hub"
)

func runVAD(t *testing.T, stdin, format string, args ...string) (string, string, error) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	f := &cmdutil.Factory{IOStreams: ios}
	f.Settings.Threads = 2
	f.Settings.Format = format
	cmd := newCmdVAD(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(errOut)
	cmd.SetErr(errOut)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func cacheBase() string { return hub.CacheDir() }

// speechData returns a cached speech recording or skips.
func speechData(t *testing.T, rel string) string {
	t.Helper()
	base := cacheBase()
	p := filepath.Join(base, "data", "speech", rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not found: run scripts/setup.sh", p)
	}
	if _, err := os.Stat(filepath.Join(base, "npm", "silero-vad-1.0.3", "package", "weights", "silero_vad.onnx")); err != nil {
		t.Skip("Silero VAD model not cached: run scripts/setup.sh")
	}
	return p
}

func parseVAD(t *testing.T, out string) []vadResult {
	t.Helper()
	var rs []vadResult
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r vadResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		rs = append(rs, r)
	}
	return rs
}

// The segments of the 16 kHz and (run natively) 8 kHz recordings are those of
// core/audio/vad's reference (testdata/silero_ref.json: ONNX Runtime's
// probabilities through the Python get_speech_timestamps), in seconds.
func TestVADText(t *testing.T) {
	numbers := speechData(t, "pocketsphinx/numbers.raw")
	out, errOut, err := runVAD(t, "", "", "--raw-sample-rate", "16000", numbers)
	if err != nil || out != "0.482-3.390\n" { // samples 7712-54240
		t.Fatalf("numbers.raw: %q, %v\n%s", out, err, errOut)
	}
	hts := speechData(t, "codec2/wav/hts1a.wav")
	out, errOut, err = runVAD(t, "", "jsonl", hts)
	if err != nil {
		t.Fatal(err, errOut)
	}
	r := parseVAD(t, out)[0]
	if r.Method != "silero" || r.Duration != 3 || len(r.Segments) != 1 || r.Segments[0] != (vadSegment{0.194, 2.622}) { // samples 1552-20976 at 8 kHz
		t.Fatalf("hts1a.wav: %+v", r)
	}
	// a 16 kHz-only model gets the 8 kHz file resampled to 16 kHz: about the
	// same speech (ONNX Runtime on sox's 16 kHz resampling gives 0.226-2.590 s
	// with this model and silero_vad.onnx; the half model splits it in two)
	op15 := filepath.Join(cacheBase(), "npm", "silero-vad-1.0.3", "package", "weights", "silero_vad_16k_op15.onnx")
	out, errOut, err = runVAD(t, "", "jsonl", "--model", op15, hts)
	if err != nil {
		t.Fatal(err, errOut)
	}
	r = parseVAD(t, out)[0]
	if len(r.Segments) != 1 || math.Abs(r.Segments[0].Start-0.226) > 0.04 || math.Abs(r.Segments[0].End-2.59) > 0.04 || r.Duration != 3 {
		t.Fatalf("hts1a.wav resampled for the 16k model: %+v", r)
	}
	t.Logf("hts1a.wav at 16 kHz, 16k_op15 model: %+v", r.Segments)
}

// Real two-word recordings at 48 kHz (alsa-utils' "Front Left", "Side Left",
// resampled to 16 kHz) give one segment per word, its noise recording none;
// per-input errors leave the others alone; the energy method agrees on the
// word count where the words are apart.
func TestVADRealWordsAndErrors(t *testing.T) {
	dir := speechData(t, "alsa")
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "truncated.wav")
	if err := os.WriteFile(bad, []byte("RIFF\x24\x00\x00\x00WAVEfmt "), 0o644); err != nil {
		t.Fatal(err)
	}
	list := strings.Join([]string{filepath.Join(dir, "Front_Left.wav"), bad, filepath.Join(dir, "Side_Left.wav"), filepath.Join(dir, "Noise.wav"), filepath.Join(dir, "Front_Right.wav")}, "\n")
	for _, method := range []string{"silero", "energy"} {
		out, errOut, err := runVAD(t, list, "jsonl", "--method", method, "-")
		if !errors.Is(err, cmdutil.ErrSilent) || !strings.Contains(errOut, "truncated.wav") || !strings.Contains(errOut, "1 of 5 inputs failed") {
			t.Fatalf("%s: err %v, stderr %q", method, err, errOut)
		}
		rs := parseVAD(t, out)
		want := map[string]int{"Front_Left.wav": 2, "Side_Left.wav": 2, "Noise.wav": 0, "Front_Right.wav": 2}
		if method == "energy" {
			want["Side_Left.wav"] = 1 // its gap between "side" and "left" is under 100 ms above the floor
		}
		if len(rs) != 4 {
			t.Fatalf("%s: %d results", method, len(rs))
		}
		for _, r := range rs {
			name := filepath.Base(r.Audio)
			if r.Method != method || len(r.Segments) != want[name] {
				t.Errorf("%s %s: %+v, want %d segments", method, name, r, want[name])
			}
			for i, s := range r.Segments {
				if s.Start < 0 || s.End > r.Duration || s.End <= s.Start || (i > 0 && s.Start < r.Segments[i-1].End) {
					t.Errorf("%s %s: bad segments %+v", method, name, r.Segments)
				}
			}
		}
	}
}

// Without a cached model (and no --model) the command warns and uses the
// energy detector; bad flags are usage errors.
func TestVADFallbackAndFlags(t *testing.T) {
	numbers := speechData(t, "pocketsphinx/numbers.raw")
	t.Setenv("PADDLE_CACHE", t.TempDir())
	out, errOut, err := runVAD(t, "", "jsonl", "--raw-sample-rate", "16000", numbers)
	if err != nil || !strings.Contains(errOut, "using --method energy") {
		t.Fatalf("fallback: %v %q", err, errOut)
	}
	if r := parseVAD(t, out)[0]; r.Method != "energy" || len(r.Segments) != 1 {
		t.Fatalf("fallback: %+v", r)
	}
	for _, args := range [][]string{{"--method", "webrtc", numbers}, {"--threshold", "1.5", numbers}, {"--min-silence-ms", "-1", numbers}} {
		if _, _, err := runVAD(t, "", "", args...); err == nil || !strings.Contains(err.Error(), "--") {
			t.Errorf("%v: err %v", args, err)
		}
	}
	if _, _, err := runVAD(t, "", "", "--model", filepath.Join(t.TempDir(), "none.onnx"), numbers); err == nil || !strings.Contains(err.Error(), "--model") {
		t.Errorf("missing --model file: %v", err)
	}
}
