package iostreams

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestLogProgress checks the progress of a job whose stderr is not a
// terminal: no bar, a log line at most every ProgressLogEvery, a last one
// when it logged any, nothing at all for a short job.
func TestLogProgress(t *testing.T) {
	var logs bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	})))
	defer slog.SetDefault(old)

	clock := time.Unix(0, 0)
	now := func() time.Time { return clock }
	short := newLogProgress(10, "quick", now)
	short.Add(10)
	short.Finish()
	if logs.Len() != 0 {
		t.Fatalf("a short job logged %q", logs.String())
	}

	p := newLogProgress(200, "synth clips", now)
	for range 200 {
		clock = clock.Add(time.Second) // a clip a second: a line every 10 clips
		p.Add(1)
	}
	p.Finish()
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 21 {
		t.Fatalf("%d lines, want 20 progress lines and one done:\n%s", len(lines), logs.String())
	}
	if want := `level=INFO msg=progress task="synth clips" done=10 total=200 percent=5 elapsed=10s`; lines[0] != want {
		t.Errorf("first line %q, want %q", lines[0], want)
	}
	if want := `level=INFO msg=done task="synth clips" done=200 total=200 percent=100 elapsed=3m20s`; lines[20] != want {
		t.Errorf("last line %q, want %q", lines[20], want)
	}
	// An unknown total says how many so far.
	logs.Reset()
	u := newLogProgress(-1, "pulling ppocrv4", now)
	clock = clock.Add(15 * time.Second)
	u.Add(0)
	if want := `level=INFO msg=progress task="pulling ppocrv4" done=0 elapsed=15s`; strings.TrimSpace(logs.String()) != want {
		t.Errorf("unknown total: %q, want %q", logs.String(), want)
	}
}

// A terminal gets a bar, a pipe the log lines.
func TestProgressKind(t *testing.T) {
	ios, _, _, _ := Test()
	ios.SetStderrTTY(true)
	if _, ok := ios.Progress(3, "work").(bar); !ok {
		t.Error("a terminal gets no bar")
	}
	ios.SetStderrTTY(false)
	if _, ok := ios.Progress(3, "work").(*logProgress); !ok {
		t.Error("a pipe gets a bar")
	}
}
