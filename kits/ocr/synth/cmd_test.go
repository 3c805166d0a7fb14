package synth

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
)

func runCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ios, _, out, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Settings: cmdutil.Settings{Threads: 2}}
	cmd := NewCmdSynth(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.Execute()
	return out.String(), err
}

func TestCmdSynth(t *testing.T) {
	dir := t.TempDir()
	corpus := filepath.Join(dir, "c.txt")
	os.WriteFile(corpus, []byte("hello there world\n%\nsecond line of text\n"), 0o644)
	out, err := runCmd(t, "--output", filepath.Join(dir, "o"), "--corpus", corpus, "--charset", "lower", "--count", "5", "--fonts", "go:GoMono", "--image-format", "png", "--clean")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "rec_gt.txt: 5 lines") {
		t.Fatalf("output %q", out)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "o", "rec_gt.txt"))
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		p, text, _ := strings.Cut(l, "\t")
		if !strings.HasSuffix(p, ".png") || !strings.Contains("hello there world second line of text", text) {
			t.Fatalf("label %q", l)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--charset", "digits"}, "--output is required"},
		{[]string{"--output", dir}, "give --corpus or --charset"},
		{[]string{"--output", dir, "--charset", "digits", "--fonts", filepath.Join(dir, "nope.ttf")}, "nope.ttf"},
		{[]string{"--output", dir, "--charset", "digits", "--image-format", "gif", "--count", "1"}, "image format"},
		{[]string{"--output", dir, "--charset", "digits", "--paper", "2"}, "--paper 2: want a share"},
		{[]string{"--output", dir, "--charset", "digits", "--photo", "0.5"}, "--photo 0.5 needs --backgrounds"},
		{[]string{"--output", dir, "--charset", "digits", "--photo", "0.5", "--backgrounds", filepath.Join(dir, "none")}, "backgrounds"},
	} {
		if _, err := runCmd(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want %q", c.args, err, c.want)
		}
	}
}
