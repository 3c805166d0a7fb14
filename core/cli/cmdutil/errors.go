// Package cmdutil holds what every command shares: the Factory of lazy
// dependencies, the error types that map to exit codes, and flag helpers.
// It is a leaf: it imports no command package.
package cmdutil

import (
	"errors"
	"fmt"
)

// Exit codes of the paddle binary. A *config.UsageError or *config.Error
// exits with ExitUsage, context.Canceled (Ctrl-C) with ExitInterrupt.
const (
	ExitOK        = 0   // success
	ExitFailure   = 1   // runtime failure, or some inputs failed
	ExitUsage     = 2   // bad flags, arguments or configuration
	ExitInterrupt = 130 // interrupted (Ctrl-C)
)

// FlagError is a usage mistake: the command's usage is printed, exit 2.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// FlagErrorf returns a *FlagError with a formatted message.
func FlagErrorf(format string, args ...any) error {
	return &FlagError{Err: fmt.Errorf(format, args...)}
}

// ErrSilent ends a command with exit 1 without printing anything more (the
// command already reported, e.g. per-input failures).
var ErrSilent = errors.New("silent error")
