package speech

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
)

// `synth --recorded DIR` alone needs no synthesiser: the real speaker's words,
// augmented, with the usual lists and a JSON summary.
func TestSynthRecordedSpeaker(t *testing.T) {
	spk := t.TempDir()
	for _, w := range []string{"yes", "no", "hello"} {
		writeTone(t, filepath.Join(spk, w+".wav"), 8000, 1)
	}
	out := filepath.Join(t.TempDir(), "clips")
	ios, _, stdout, stderr := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios}
	cmd := newCmdSynth(f, nil)
	cmd.SetArgs([]string{"--output", out, "--recorded", spk, "--words", "yes,no", "--per-word", "6", "--unknown", "4",
		"--silence", "2", "--rate", "8000", "--noise-dir", t.TempDir()})
	cmd.SetOut(stderr)
	cmd.SetErr(stderr)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var s synthSummary
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		t.Fatalf("summary %q: %v", stdout, err)
	}
	if s.Clips != 18 || s.Engines["recorded"] != 16 || s.Train != 18 {
		t.Errorf("summary %+v: want 18 clips, 16 recorded, all in train", s)
	}
	list, err := os.ReadFile(filepath.Join(out, "train.list"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(list), "\tyes\n"); n != 6 {
		t.Errorf("train.list has %d yes clips, want 6", n)
	}

	// a word the speaker did not record is an error naming it
	cmd = newCmdSynth(f, nil)
	cmd.SetArgs([]string{"--output", t.TempDir(), "--recorded", spk, "--words", "up", "--per-word", "2", "--noise-dir", t.TempDir()})
	cmd.SetOut(stderr)
	cmd.SetErr(stderr)
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), `"up"`) {
		t.Errorf("unrecorded word: err = %v", err)
	}
}
