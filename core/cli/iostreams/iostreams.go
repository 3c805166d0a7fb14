// Package iostreams carries stdin/stdout/stderr and what is known about
// them (terminals or pipes), so commands write results to Out, logs and
// progress to ErrOut, and tests can capture both.
package iostreams

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// IOStreams are a command's standard streams.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	stdoutTTY, stderrTTY bool
}

// System returns the process's streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		stdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		stderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// Test returns streams backed by buffers: stdin, stdout, stderr.
func Test() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}

// IsStdoutTTY reports whether stdout is a terminal.
func (s *IOStreams) IsStdoutTTY() bool { return s.stdoutTTY }

// IsStderrTTY reports whether stderr is a terminal.
func (s *IOStreams) IsStderrTTY() bool { return s.stderrTTY }

// SetStderrTTY overrides terminal detection (tests).
func (s *IOStreams) SetStderrTTY(b bool) { s.stderrTTY = b }

// Progress is a progress indicator: a bar when stderr is a terminal, else
// a log line every ProgressLogEvery (none for a job that ends sooner).
type Progress interface {
	Add(n int)
	Describe(s string)
	Finish()
}

// ProgressLogEvery is how often a long job logs its progress when stderr
// is not a terminal (a pipe, a file, CI).
const ProgressLogEvery = 10 * time.Second

// logProgress logs "progress" lines (slog: --log-format text or json) at
// most every ProgressLogEvery, and a last one at Finish when it logged any.
type logProgress struct {
	mu     sync.Mutex
	desc   string
	total  int
	n      int
	start  time.Time
	last   time.Time
	logged bool
	now    func() time.Time
}

func newLogProgress(total int, desc string, now func() time.Time) *logProgress {
	t := now()
	return &logProgress{desc: desc, total: total, start: t, last: t, now: now}
}

func (p *logProgress) Add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n += n
	if t := p.now(); t.Sub(p.last) >= ProgressLogEvery {
		p.last, p.logged = t, true
		p.log("progress")
	}
}

func (p *logProgress) Describe(s string) {
	p.mu.Lock()
	p.desc = s
	p.mu.Unlock()
}

func (p *logProgress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.logged {
		p.log("done")
	}
}

// log writes one line: what, how many done (of how many) and the time taken.
func (p *logProgress) log(msg string) {
	args := []any{"task", p.desc, "done", p.n}
	if p.total > 0 {
		args = append(args, "total", p.total, "percent", 100*p.n/p.total)
	}
	args = append(args, "elapsed", p.now().Sub(p.start).Round(time.Second).String())
	slog.Info(msg, args...)
}

type bar struct{ b *progressbar.ProgressBar }

func (p bar) Add(n int)         { _ = p.b.Add(n) }
func (p bar) Describe(s string) { p.b.Describe(s) }
func (p bar) Finish()           { _ = p.b.Finish(); _, _ = io.WriteString(p.b, "") }

// Progress returns a bar of total steps (-1: unknown) on stderr, drawn only
// when stderr is a terminal, so pipelines and logs never see it; elsewhere
// a long job logs a progress line every ProgressLogEvery instead.
func (s *IOStreams) Progress(total int, desc string) Progress {
	if !s.stderrTTY {
		return newLogProgress(total, desc, time.Now)
	}
	return bar{progressbar.NewOptions(total,
		progressbar.OptionSetWriter(s.ErrOut),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionThrottle(100_000_000),
	)}
}
