package root

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
)

// Execute runs the command tree with args and returns the process exit code.
// It is the only place errors become exit codes, and no panic passes it.
func Execute(cmd *cobra.Command, f *cmdutil.Factory, args []string) (code int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	errOut := f.IOStreams.ErrOut
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(errOut, "paddle: internal error: %v\n", r)
			if f.Settings.LogLevel == "debug" {
				fmt.Fprintf(errOut, "%s\n", debug.Stack())
			} else {
				fmt.Fprintln(errOut, "hint: rerun with --log-level debug to see the stack, and report it")
			}
			code = cmdutil.ExitFailure
		}
	}()
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(ctx)
	if err == nil {
		return cmdutil.ExitOK
	}
	var flagErr *cmdutil.FlagError
	var usageErr *config.UsageError
	var cfgErr *config.Error
	switch {
	case errors.Is(err, cmdutil.ErrSilent):
		return cmdutil.ExitFailure
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(errOut, "paddle: interrupted")
		return cmdutil.ExitInterrupt
	case errors.As(err, &flagErr) || isCobraUsage(err):
		fmt.Fprintf(errOut, "paddle: %v\n", err)
		if c, _, ferr := cmd.Find(args); ferr == nil && c != nil {
			fmt.Fprintf(errOut, "run '%s --help' for usage\n", c.CommandPath())
		}
		return cmdutil.ExitUsage
	case errors.As(err, &usageErr) || errors.As(err, &cfgErr):
		fmt.Fprintf(errOut, "paddle: %v\n", err)
		return cmdutil.ExitUsage
	}
	slog.Debug("command failed", "err", fmt.Sprintf("%+v", err))
	fmt.Fprintf(errOut, "paddle: %v\n", err)
	return cmdutil.ExitFailure
}

// isCobraUsage recognises cobra's own argument and unknown-command errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand", "accepts ", "requires at least", "requires at most", "invalid argument"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
