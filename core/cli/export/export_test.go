package export_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/cli/root"
	"paddle/core/config"
	"paddle/core/kit"
	"paddle/core/metric"
	"paddle/core/workflow"
)

// plain is a Runner without the Exporter capability.
type plain struct{}

func (plain) Train(context.Context, workflow.Env) error { return nil }
func (plain) Eval(context.Context, workflow.Env) (metric.Report, error) {
	return metric.Report{}, nil
}
func (plain) Predict(context.Context, workflow.Env, []string) error { return nil }

// exporting records the Export call.
type exporting struct {
	plain
	got *workflow.Env
	dir *string
}

func (e exporting) Export(_ context.Context, env workflow.Env, dir string) error {
	*e.got, *e.dir = env, dir
	return nil
}

func paddle(t *testing.T, r workflow.Runner, args ...string) (int, string, string) {
	t.Helper()
	k := &cmdutil.Kit{Kit: &kit.Kit{Name: "fake", Short: "a test kit",
		Build: func(*config.Config) (workflow.Runner, error) { return r, nil }}} // the root attaches export
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Version: "test"}
	code := root.Execute(root.NewCmdRoot(f, k), f, args)
	return code, out.String(), errOut.String()
}

func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	ckpt := filepath.Join(dir, "ckpt")
	os.MkdirAll(ckpt, 0o755)
	os.WriteFile(filepath.Join(ckpt, "config.yaml"), []byte("Global: {x: 1}\n"), 0o644)
	var env workflow.Env
	var got string
	ex := exporting{got: &env, dir: &got}

	code, out, errOut := paddle(t, ex, "fake", "export", "--weights", ckpt, "--output", filepath.Join(dir, "exp"))
	if code != 0 || strings.TrimSpace(out) != filepath.Join(dir, "exp") || got != filepath.Join(dir, "exp") || env.Weights != ckpt {
		t.Fatalf("exit %d, stdout %q, stderr %q; Export(dir %q, weights %q)", code, out, errOut, got, env.Weights)
	}
	if env.Config == nil || !env.Config.Has("Global") {
		t.Error("the checkpoint's config.yaml was not passed on")
	}
	for _, tt := range []struct {
		name string
		r    workflow.Runner
		args []string
		want string
	}{
		{"no weights", ex, []string{"fake", "export", "--output", "x"}, "--weights is required"},
		{"no output", ex, []string{"fake", "export", "--weights", ckpt}, "--output is required"},
		{"not an exporter", plain{}, []string{"fake", "export", "--weights", ckpt, "--output", "x"}, "cannot export"},
		{"no checkpoint config", ex, []string{"fake", "export", "--weights", dir, "--output", "x"}, "config.yaml"},
		{"no model for pdparams", ex, []string{"fake", "export", "--weights", ckpt, "--format", "pdparams", "--output", "x.pdparams"}, "cannot write PaddlePaddle weights"},
		{"pdparams file name", ex, []string{"fake", "export", "--weights", ckpt, "--format", "pdparams", "--output", "x"}, "must end in .pdparams"},
		{"unknown format", ex, []string{"fake", "export", "--weights", ckpt, "--format", "tflite", "--output", "x"}, "supports onnx, pdparams"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errOut := paddle(t, tt.r, tt.args...)
			if code != cmdutil.ExitUsage || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, tt.want)
			}
		})
	}
}
