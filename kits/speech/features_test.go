package speech

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/audio"
	"paddle/core/audio/kaldi"
	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	pio "paddle/core/io"
	"paddle/core/tensor"
)

func runFeatures(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	f := &cmdutil.Factory{IOStreams: ios}
	f.Settings.Threads = 2
	cmd := newCmdFeatures(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(errOut)
	cmd.SetErr(errOut)
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func writeTone(t *testing.T, path string, rate int, channels int) *audio.Audio {
	t.Helper()
	a := &audio.Audio{Rate: rate}
	for c := range channels {
		x := make([]float32, rate/2)
		for i := range x {
			x[i] = float32(0.3*math.Sin(2*math.Pi*440*float64(i)/float64(rate)+float64(c)) + 0.01*math.Sin(float64(i*i)))
		}
		a.Channels = append(a.Channels, x)
	}
	if err := audio.WriteWAV(path, a, audio.PCM16); err != nil {
		t.Fatal(err)
	}
	return a
}

func readNpy(t *testing.T, path string) *tensor.Tensor {
	t.Helper()
	a, err := pio.ReadNpy(path)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// The command on the committed 44.1 kHz pocketsphinx clip gives torchaudio's
// fbank / mfcc (float64 reference, scripts/ref/kaldi_features.py) to within
// float32 output rounding and the mel-table tolerance core/audio/kaldi documents.
func TestFeaturesMatchTorchaudio(t *testing.T) {
	dir := t.TempDir()
	clip := "../../core/audio/testdata/cards001_44k.wav"
	z, err := zip.OpenReader("../../core/audio/testdata/kaldi_ref.npz")
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	for _, kind := range []string{"fbank", "mfcc", "spectrogram"} {
		out, errOut, err := runFeatures(t, "", "--kind", kind, "--output", dir, clip)
		if err != nil {
			t.Fatalf("%s: %v\n%s", kind, err, errOut)
		}
		var res featuresResult
		if err := json.Unmarshal([]byte(out), &res); err != nil || res.Rate != 44100 || res.Frames != 108 {
			t.Fatalf("%s: stdout %q: %v", kind, out, err)
		}
		got := readNpy(t, filepath.Join(dir, "cards001_44k."+kind+".npy"))
		var ref *tensor.Tensor
		var frames []int64
		for _, f := range z.File {
			name := strings.TrimSuffix(f.Name, ".npy")
			if name != "cards_44k/"+kind+".f64" && name != "cards_44k/"+kind+".frames" {
				continue
			}
			r, _ := f.Open()
			a, err := pio.DecodeNpy(r)
			r.Close()
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(name, ".frames") {
				frames = a.I64()
			} else {
				ref = a
			}
		}
		cols := ref.Shape()[1]
		if got.DType() != tensor.Float32 || got.Shape()[0] != 108 || got.Shape()[1] != cols {
			t.Fatalf("%s: npy %v %v", kind, got.DType(), got.Shape())
		}
		g, want := got.F32(), ref.F64()
		tol := 2e-6
		if kind == "mfcc" {
			tol = 2e-5
		}
		for i, fi := range frames {
			for j := range cols {
				w := want[i*cols+j]
				if d := math.Abs(float64(g[int(fi)*cols+j]) - w); d > tol*max(1, math.Abs(w)) {
					t.Fatalf("%s frame %d col %d: %g, torchaudio %g", kind, fi, j, g[int(fi)*cols+j], w)
				}
			}
		}
	}
}

func TestFeaturesOptionsAndInputs(t *testing.T) {
	src, dir := t.TempDir(), t.TempDir()
	mono := writeTone(t, filepath.Join(src, "a.wav"), 16000, 1)
	writeTone(t, filepath.Join(src, "st.wav"), 22050, 2)
	if err := os.MkdirAll(filepath.Join(src, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTone(t, filepath.Join(src, "sub", "a.wav"), 8000, 1) // same stem as a.wav
	os.WriteFile(filepath.Join(src, "bad.wav"), []byte("RIFF\x10\x00\x00\x00WAVEfmt "), 0o644)

	// options reach kaldi.Options; compare with a direct call
	out, errOut, err := runFeatures(t, "", "--kind", "mfcc", "--num-ceps", "20", "--num-mel-bins", "30",
		"--use-energy", "--snip-edges=false", "--window-type", "hamming", "--high-freq", "-200",
		"--output", dir, filepath.Join(src, "a.wav"))
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	o := kaldi.Defaults()
	o.NumCeps, o.NumMelBins, o.UseEnergy, o.SnipEdges, o.WindowType, o.HighFreq = 20, 30, true, false, "hamming", -200
	x := make([]float64, len(mono.Channels[0]))
	for i, v := range mono.Channels[0] {
		x[i] = math.Round(float64(v) * 32768) // as stored in the 16-bit file
	}
	want, err := kaldi.MFCC(x, o)
	if err != nil {
		t.Fatal(err)
	}
	got := readNpy(t, filepath.Join(dir, "a.mfcc.npy"))
	if got.Shape()[0] != len(want) || got.Shape()[1] != 20 || len(want) != 50 {
		t.Fatalf("shape %v, want (%d, 20); stdout %s", got.Shape(), len(want), out)
	}
	for i, r := range want {
		for j, v := range r {
			if g := got.At(i, j); g != float64(float32(v)) {
				t.Fatalf("[%d,%d] = %g, want %g", i, j, g, v)
			}
		}
	}

	// a folder plus paths on stdin: per-input errors, the rest written
	dir2 := t.TempDir()
	out, errOut, err = runFeatures(t, filepath.Join(src, "missing.wav")+"\n"+filepath.Join(src, "x.ogg")+"\n",
		"--output", dir2, src, "-")
	if !errors.Is(err, cmdutil.ErrSilent) {
		t.Fatalf("err %v, want ErrSilent\n%s", err, errOut)
	}
	for _, w := range []string{
		"a.wav", // written once
	} {
		if _, err := os.Stat(filepath.Join(dir2, strings.TrimSuffix(w, ".wav")+".fbank.npy")); err != nil {
			t.Errorf("%s not written: %v", w, err)
		}
	}
	for _, w := range []string{
		"bad.wav: truncated",
		"st.wav: 2 channels; pick one with --channel",
		"output " + filepath.Join(dir2, "a.fbank.npy") + " is already written for " + filepath.Join(src, "a.wav"),
		"missing.wav: no such file",
		"x.ogg",
		"5 of 6 inputs failed",
	} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
	if n := strings.Count(out, "\n"); n != 1 {
		t.Errorf("stdout has %d lines, want 1:\n%s", n, out)
	}

	// --channel and --sample-frequency (resampling 22.05 kHz to 16 kHz)
	out, errOut, err = runFeatures(t, "", "--channel", "1", "--sample-frequency", "16000", "--output", dir2, filepath.Join(src, "st.wav"))
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	var res featuresResult
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Rate != 16000 || res.Frames != 48 || res.Dims != 23 {
		t.Errorf("stdout %q (%v)", out, err)
	}

	// raw PCM input, and a file shorter than --min-duration (no frames, but the width)
	rawPath := filepath.Join(src, "r.raw")
	rawBytes := make([]byte, 2*8000)
	for i := 0; i < len(rawBytes); i += 2 {
		v := int16(8000 * math.Sin(float64(i)*0.05))
		rawBytes[i], rawBytes[i+1] = byte(v), byte(uint16(v)>>8)
	}
	os.WriteFile(rawPath, rawBytes, 0o644)
	out, errOut, err = runFeatures(t, "", "--raw-sample-rate", "8000", "--output", dir2, rawPath)
	if err != nil || !strings.Contains(out, `"frames":98,"dims":23,"sample_rate":8000`) {
		t.Errorf("raw: %v %s %s", err, out, errOut)
	}
	out, errOut, err = runFeatures(t, "", "--min-duration", "2", "--kind", "spectrogram", "--output", dir2, filepath.Join(src, "a.wav"))
	if err != nil || !strings.Contains(out, `"frames":0,"dims":257`) {
		t.Errorf("min-duration: %v %s %s", err, out, errOut)
	}
	if got := readNpy(t, filepath.Join(dir2, "a.spectrogram.npy")); got.Shape()[0] != 0 || got.Shape()[1] != 257 {
		t.Errorf("min-duration npy shape %v", got.Shape())
	}

	// flag errors
	for _, args := range [][]string{
		{"--kind", "plp", "--output", dir, "a.wav"},
		{"--window-type", "kaiser", "--output", dir, "a.wav"},
		{"a.wav"},
	} {
		if _, _, err := runFeatures(t, "", args...); !errors.As(err, new(*cmdutil.FlagError)) {
			t.Errorf("%v: err %v, want a flag error", args, err)
		}
	}
}
