package clitest

import (
	"paddle/core/cli/cmdutil"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	code, out, errOut := Run(t, []*cmdutil.Kit{}, "", "version")
	if code != 0 || !strings.Contains(out, "test") {
		t.Errorf("version: exit %d, stdout %q, stderr %q; want 0 and the version", code, out, errOut)
	}
	if code, _, errOut := Run(t, nil, "", "no-such-verb"); code == 0 || errOut == "" {
		t.Errorf("unknown verb: exit %d, stderr %q; want an error", code, errOut)
	}
}
