package model

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestConformanceCommand(t *testing.T) {
	src := "/usr/share/libonnx-testdata/data/node"
	if _, err := os.Stat(filepath.Join(src, "test_relu")); err != nil {
		t.Skip("libonnx-testdata not installed")
	}
	dir := t.TempDir()
	// two in-scope tests and one whose op is out of scope
	for _, name := range []string{"test_relu", "test_softmax_axis_0", "test_acos"} {
		if err := exec.Command("cp", "-r", filepath.Join(src, name), dir).Run(); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if err := conformanceRun(&out, dir, "text", false); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "passed 2, failed 0, known failures 0, excluded 0 (out of scope: 1)") {
		t.Fatalf("got %q", got)
	}
}
