package root

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	_ "paddle/core/backend/all"
	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/config"
	"paddle/core/kit"
	"paddle/core/workflow"
)

// run executes the root command in-process and returns exit code, stdout, stderr.
func run(t *testing.T, kits []*cmdutil.Kit, args ...string) (int, string, string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Version: "test", Commit: "abc123"}
	code := Execute(NewCmdRoot(f, kits...), f, args)
	return code, out.String(), errOut.String()
}

func fakeKit() *cmdutil.Kit {
	return &cmdutil.Kit{
		Kit: &kit.Kit{Name: "fake", Short: "a test kit"},
		Commands: func(f *cmdutil.Factory, k *kit.Kit) []*cobra.Command {
			shared := &cobra.Command{Use: "predict", RunE: func(cmd *cobra.Command, _ []string) error {
				_, err := cmd.OutOrStdout().Write([]byte("shared predict\n"))
				return err
			}}
			own := &cobra.Command{Use: "predict", RunE: func(*cobra.Command, []string) error {
				_, err := f.IOStreams.Out.Write([]byte("kit predict\n"))
				return err
			}}
			boom := &cobra.Command{Use: "boom", RunE: func(*cobra.Command, []string) error { panic("kaboom") }}
			return []*cobra.Command{shared, own, boom}
		},
	}
}

func TestCommands(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		wantCode   int
		wantOut    []string // substrings of stdout
		wantErr    []string // substrings of stderr
		wantNotOut string
	}{
		{name: "version", args: []string{"version"}, wantOut: []string{"paddle test (commit abc123)", "backends:     cpu", "go:"}},
		{name: "version json", args: []string{"version", "--format", "json"}, wantOut: []string{`"version": "test"`, `"backends": [`}},
		{name: "version bad format", args: []string{"version", "--format", "csv"}, wantCode: 2,
			wantErr: []string{`--format "csv": "paddle version" supports text, json`}},
		{name: "bad flag", args: []string{"version", "--bogus"}, wantCode: 2, wantErr: []string{"unknown flag: --bogus", "paddle version --help"}},
		{name: "unknown command", args: []string{"frobnicate"}, wantCode: 2, wantErr: []string{`unknown command "frobnicate"`}},
		{name: "bad threads env", args: []string{"env"}, env: map[string]string{"PADDLE_THREADS": "zero"}, wantCode: 2, wantErr: []string{`--threads "zero"`}},
		{name: "threads from env", args: []string{"env"}, env: map[string]string{"PADDLE_THREADS": "3"}, wantOut: []string{"threads:     3"}},
		{name: "flag beats env", args: []string{"env", "--threads", "5"}, env: map[string]string{"PADDLE_THREADS": "3"}, wantOut: []string{"threads:     5"}},
		{name: "bad device", args: []string{"env", "--device", "tpu"}, wantCode: 2, wantErr: []string{`device "tpu": no such backend (available: cpu)`}},
		{name: "config show embedded with override", args: []string{"config", "show", "-c", "clas/lenet_mnist.yaml", "-o", "Global.epochs=2", "-o", "Arch.name=ResNet"},
			wantOut: []string{"Global:", "  epochs: 2", "  name: ResNet"}},
		{name: "config show needs -c", args: []string{"config", "show"}, wantCode: 2, wantErr: []string{"-c/--config is required"}},
		{name: "config missing file", args: []string{"config", "show", "-c", "testdata/none.yaml"}, wantCode: 2, wantErr: []string{"testdata/none.yaml"}},
		{name: "config syntax error", args: []string{"config", "show", "-c", "testdata/syntax_error.yaml"}, wantCode: 2, wantErr: []string{"testdata/syntax_error.yaml:"}},
		{name: "config bad override", args: []string{"config", "show", "-c", "clas/lenet_mnist.yaml", "-o", "Global"}, wantCode: 2, wantErr: []string{"Global"}},
		{name: "kit replaces shared verb", args: []string{"fake", "predict"}, wantOut: []string{"kit predict"}, wantNotOut: "shared predict"},
		{name: "panic becomes one line", args: []string{"fake", "boom"}, wantCode: 1, wantErr: []string{"paddle: internal error: kaboom", "hint: rerun with --log-level debug"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PADDLE_CONFIG", "")
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			code, out, errOut := run(t, []*cmdutil.Kit{fakeKit()}, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.wantCode, out, errOut)
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			if tt.wantNotOut != "" && strings.Contains(out, tt.wantNotOut) {
				t.Errorf("stdout has %q:\n%s", tt.wantNotOut, out)
			}
		})
	}
}

func TestVersionJSONParses(t *testing.T) {
	code, out, _ := run(t, nil, "version", "--format", "json")
	var v map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil || v["platform"] == "" {
		t.Fatalf("exit %d, output %q", code, out)
	}
}

func TestUserConfigFile(t *testing.T) {
	dir := t.TempDir()
	p := dir + "/config.yaml"
	if err := writeFile(p, "threads: 7\nlog-level: warn\n"); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PADDLE_CONFIG", p)
	code, out, errOut := run(t, nil, "env")
	if code != 0 || !strings.Contains(out, "threads:     7") || !strings.Contains(out, "user config: "+p) {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// TestSharedVerbs checks that the root gives the shared verbs to a kit that
// builds runners, lets the kit replace one, and gives none to a kit without
// a Build.
func TestSharedVerbs(t *testing.T) {
	building := &cmdutil.Kit{
		Kit: &kit.Kit{Name: "builds", Short: "a kit with runners",
			Build: func(*config.Config) (workflow.Runner, error) { return nil, nil }},
		Commands: func(f *cmdutil.Factory, _ *kit.Kit) []*cobra.Command {
			return []*cobra.Command{{Use: "eval", Short: "the kit's own eval", Run: func(*cobra.Command, []string) {}}}
		},
	}
	plain := &cmdutil.Kit{Kit: &kit.Kit{Name: "plain", Short: "a kit without runners"}}
	ios, _, _, _ := iostreams.Test()
	root := NewCmdRoot(&cmdutil.Factory{IOStreams: ios}, building, plain)
	verbs := func(kit string) map[string]string {
		c, _, err := root.Find([]string{kit})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, sub := range c.Commands() {
			got[sub.Name()] = sub.Short
		}
		return got
	}
	b := verbs("builds")
	for _, v := range []string{"train", "eval", "predict", "export"} {
		if _, ok := b[v]; !ok {
			t.Errorf("builds has no %s: %v", v, b)
		}
	}
	if b["eval"] != "the kit's own eval" {
		t.Errorf("builds eval = %q, want the kit's own", b["eval"])
	}
	if p := verbs("plain"); len(p) != 0 {
		t.Errorf("plain got verbs %v, want none", p)
	}
}
