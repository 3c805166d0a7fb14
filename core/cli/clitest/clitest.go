// Package clitest is test support: it runs the paddle command line
// in-process, as cmd/paddle does, with the kits a test chooses.
package clitest

import (
	"testing"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/cli/root"
)

// Run runs `paddle args...` with only kits registered and stdin as the
// standard input, and returns the exit code, stdout and stderr.
func Run(t testing.TB, kits []*cmdutil.Kit, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	f := &cmdutil.Factory{IOStreams: ios, Version: "test"}
	code = root.Execute(root.NewCmdRoot(f, kits...), f, args)
	return code, out.String(), errOut.String()
}
