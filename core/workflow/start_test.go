package workflow

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/config"
	"paddle/core/nn"
)

// Start fills the output folder from the config where the command line left
// it unset, calls Pretrained with the command line's env, Prepare in the
// existing output folder, and saves the config's YAML with the checkpoints.
func TestStart(t *testing.T) {
	cfg, err := config.Parse("", "s.yaml", []byte("Global: {epochs: 3}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, cmdline := range []bool{false, true} {
		task := toyTask(t, nil)
		dir := t.TempDir()
		e := Env{IO: IO{Out: io.Discard}}
		if cmdline {
			e.Output = filepath.Join(dir, "from-flag")
		}
		var sawResume, prepared string
		err := Start[nn.Module, batch]{
			Config:     cfg,
			Pretrained: func(_ nn.Module, env Env) error { sawResume = env.Resume + "|"; return nil },
			Task:       func(nn.Module) (*Task[batch], error) { return task, nil },
			Output:     filepath.Join(dir, "from-config"),
			Resume:     "",
			Prepare: func(env Env) error {
				prepared = env.Output
				return os.WriteFile(filepath.Join(env.Output, "label.txt"), []byte("a\n"), 0o644)
			},
			Attrs: []any{"arch", "toy"},
		}.Run(context.Background(), e, task.Model)
		if err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(dir, "from-config")
		if cmdline {
			want = e.Output
		}
		if prepared != want || sawResume != "|" {
			t.Errorf("command line %v: prepared in %q (want %q), Pretrained saw resume %q", cmdline, prepared, want, sawResume)
		}
		y, err := os.ReadFile(filepath.Join(want, LatestDir, "config.yaml"))
		if err != nil || !strings.Contains(string(y), "epochs: 3") {
			t.Errorf("command line %v: config.yaml = %q, %v", cmdline, y, err)
		}
	}
}
