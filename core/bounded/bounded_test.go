package bounded

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile(p, 10, "config")
	if err != nil || string(b) != "0123456789" {
		t.Fatalf("at the limit: %q, %v", b, err)
	}
	_, err = ReadFile(p, 9, "config")
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "9-byte limit for a config") {
		t.Fatalf("over the limit: %v, want an error naming the file and the limit", err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "missing"), 9, "config"); !os.IsNotExist(err) {
		t.Fatalf("missing file: %v", err)
	}
}
