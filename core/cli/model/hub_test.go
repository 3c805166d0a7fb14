package model

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/config"
	"paddle/core/hub"
)

// runHub runs one model-store verb with args against an empty or prepared cache.
func runHub(t *testing.T, verb string, args ...string) (string, string, error) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios}
	var cmd *cobra.Command
	for _, c := range hubCmds(f) {
		if c.Name() == verb {
			cmd = c
		}
	}
	if cmd == nil {
		t.Fatalf("no %q command", verb)
	}
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestModelCommands(t *testing.T) {
	if hubCommands == nil {
		t.Fatal("hubCommands hook not set")
	}
	t.Setenv("PADDLE_CACHE", t.TempDir())
	t.Setenv("PATH", t.TempDir()) // no npm: nothing may touch the network

	out, _, err := runHub(t, "list")
	if err != nil || !strings.Contains(out, "ppocrv4") || !strings.Contains(out, " no ") {
		t.Fatalf("list: %q %v", out, err)
	}
	out, _, err = runHub(t, "list", "--files")
	for _, m := range hub.Models() {
		for _, fl := range m.Files {
			row := regexp.MustCompile(fmt.Sprintf(`(?m)^%s +%s +%d +%s$`, regexp.QuoteMeta(m.Name), regexp.QuoteMeta(fl.Name), fl.Size, fl.SHA256))
			if !row.MatchString(out) {
				t.Errorf("list --files has no row for %s's %s (%d bytes, %s): %v\n%s", m.Name, fl.Name, fl.Size, fl.SHA256, err, out)
			}
		}
	}
	_, _, err = runHub(t, "path", "ppocrv4")
	if err == nil || !strings.Contains(err.Error(), "paddle model pull ppocrv4") {
		t.Errorf("path of a missing model: %v", err)
	}
	_, _, err = runHub(t, "pull", "ppocrv4")
	if err == nil || !strings.Contains(err.Error(), "npm") {
		t.Errorf("pull without npm: %v", err)
	}
	_, _, err = runHub(t, "pull", "nope")
	var ue *config.UsageError
	if err == nil || !asUsage(err, &ue) {
		t.Errorf("pull of an unknown model: %v", err)
	}
	out, errOut, err := runHub(t, "verify")
	if err != nil || out != "" || !strings.Contains(errOut, "no models pulled") {
		t.Errorf("verify with nothing pulled: %q %q %v", out, errOut, err)
	}

	// zero-filled files of the right sizes: pulled for list/path, failed for verify
	m, _ := hub.Lookup("ppocrv4")
	dir := hub.Dir("ppocrv4")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, fl := range m.Files {
		if err := os.WriteFile(filepath.Join(dir, fl.Name), bytes.Repeat([]byte{0}, int(fl.Size)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err = runHub(t, "path", "ppocrv4")
	if err != nil || strings.TrimSpace(out) != dir {
		t.Errorf("path: %q %v", out, err)
	}
	out, _, _ = runHub(t, "list")
	if !strings.Contains(out, " yes ") {
		t.Errorf("list after pull: %q", out)
	}
	out, _, err = runHub(t, "verify")
	if err == nil || !strings.Contains(out, "ppocrv4: FAILED") || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("verify of damaged files: %q %v", out, err)
	}
}

func asUsage(err error, target **config.UsageError) bool {
	ue, ok := err.(*config.UsageError)
	*target = ue
	return ok
}
