package kit_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"paddle/core/config"
	"paddle/core/kit"
	"paddle/core/workflow"
)

// fakeRunner is a Runner that says which task built it.
type fakeRunner struct {
	workflow.Runner
	task string
}

func (fakeRunner) Train(context.Context, workflow.Env) error { return nil }

type detGlobal struct {
	Thresh float64 `yaml:"thresh"`
}

type recGlobal struct {
	Dict string `yaml:"dict"`
}

func task(name string, match func(*config.Config) bool, global any) kit.Task {
	return kit.Task{Name: name, Match: match,
		Schema: &config.Schema{Sections: map[string]any{"Global": global, "Architecture": (*map[string]string)(nil)}},
		Build:  func(*config.Config) (workflow.Runner, error) { return fakeRunner{task: name}, nil }}
}

func isDet(cfg *config.Config) bool {
	n, ok := cfg.Node("Architecture.model_type")
	return ok && n.Value == "det"
}

func TestWithTasks(t *testing.T) {
	k := (&kit.Kit{Name: "ocr"}).WithTasks(task("det", isDet, (*detGlobal)(nil)), task("rec", nil, (*recGlobal)(nil)))
	parse := func(y string) *config.Config {
		cfg, err := config.Parse("", "t.yaml", []byte(y))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	for y, want := range map[string]string{
		"Architecture: {model_type: det}\n": "det",
		"Architecture: {model_type: rec}\n": "rec",
		"Global: {dict: d.txt}\n":           "rec",
	} {
		r, err := k.Build(parse(y))
		if err != nil || r.(fakeRunner).task != want {
			t.Errorf("%q built %v, %v; want the %s task", y, r, err, want)
		}
	}
	// The kit's schema knows both tasks' keys.
	if err := parse("Global: {dict: d.txt, thresh: 0.3}\n").Validate(k.Schema); err != nil {
		t.Errorf("merged schema: %v", err)
	}
	if err := parse("Global: {bogus: 1}\n").Validate(k.Schema); err == nil {
		t.Error("merged schema accepted an unknown key")
	}
	// Without a fallback, a config no task recognises is a usage error naming the tasks.
	k2 := (&kit.Kit{Name: "ocr"}).WithTasks(task("det", isDet, (*detGlobal)(nil)))
	_, err := k2.Build(parse("Global: {dict: d.txt}\n"))
	var u *config.UsageError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "t.yaml: not a config of any ocr task (det)") {
		t.Errorf("unrecognised config: %v", err)
	}
}
