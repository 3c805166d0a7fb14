// Package iostreams carries stdin/stdout/stderr and what is known about
// them (terminals or pipes), so commands write results to Out, logs and
// progress to ErrOut, and tests can capture both.
package iostreams

import (
	"bytes"
	"io"
	"os"

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

// Progress is a progress indicator; a no-op one is used when stderr is not a terminal.
type Progress interface {
	Add(n int)
	Describe(s string)
	Finish()
}

type noProgress struct{}

func (noProgress) Add(int)         {}
func (noProgress) Describe(string) {}
func (noProgress) Finish()         {}

type bar struct{ b *progressbar.ProgressBar }

func (p bar) Add(n int)         { _ = p.b.Add(n) }
func (p bar) Describe(s string) { p.b.Describe(s) }
func (p bar) Finish()           { _ = p.b.Finish(); _, _ = io.WriteString(p.b, "") }

// Progress returns a bar of total steps (-1: unknown) on stderr, drawn only
// when stderr is a terminal, so pipelines and logs never see it.
func (s *IOStreams) Progress(total int, desc string) Progress {
	if !s.stderrTTY {
		return noProgress{}
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
