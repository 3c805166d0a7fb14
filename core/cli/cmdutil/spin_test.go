package cmdutil

import (
	"testing"
	"time"

	"paddle/core/cli/iostreams"
)

// Spin ticks a bar while the step runs and stops when told: a terminal
// gets the spinner on stderr, a pipe nothing for a short step.
func TestSpin(t *testing.T) {
	ios, _, out, errOut := iostreams.Test()
	stop := Spin(ios, "pulling x")
	time.Sleep(300 * time.Millisecond)
	stop()
	if out.Len() != 0 || errOut.Len() != 0 {
		t.Errorf("a short step in a pipe wrote %q / %q", out, errOut)
	}
	ios.SetStderrTTY(true)
	stop = Spin(ios, "pulling y")
	time.Sleep(300 * time.Millisecond)
	stop()
	if out.Len() != 0 {
		t.Errorf("the spinner wrote to stdout: %q", out)
	}
}
