package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/bounded"
)

// A config file over bounded.ConfigBytes is refused before it is read, with
// an error naming the file and the limit.
func TestLoadRefusesHugeConfig(t *testing.T) {
	saved := bounded.ConfigBytes
	t.Cleanup(func() { bounded.ConfigBytes = saved })
	bounded.ConfigBytes = 64
	p := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(p, []byte("Global:\n  epochs: 1\n# "+strings.Repeat("x", 100)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(p)
	if err == nil || !strings.Contains(err.Error(), "big.yaml") || !strings.Contains(err.Error(), "64-byte limit for a config") {
		t.Fatalf("Load of a config over the limit: %v", err)
	}
}
