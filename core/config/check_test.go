package config_test

import (
	"errors"
	"strings"
	"testing"

	"paddle/core/config"
)

type checkedOpts struct {
	Epochs int      `yaml:"epochs" check:"min=1"`
	Prob   *float64 `yaml:"prob" check:"prob"`
	LR     float64  `yaml:"lr" check:"min=0,max=10"`
	Free   int      `yaml:"free"`
}

// Values a config sets are range-checked by their fields' check tags, with
// the file, line and key in the error; unset fields keep their defaults
// unchecked.
func TestRangeChecks(t *testing.T) {
	for _, c := range []struct{ yaml, override, want string }{
		{"Global:\n  epochs: 3\n  prob: 0.5\n  lr: 0.1\n  free: -4\n", "", ""},
		{"Global:\n  epochs: 0\n", "", "x.yaml:2: Global.epochs: must be at least 1, got 0"},
		{"Global:\n  prob: 1.5\n", "", "x.yaml:2: Global.prob: must be a probability in [0, 1], got 1.5"},
		{"Global:\n  lr: -0.1\n", "", "Global.lr: must be at least 0, got -0.1"},
		{"Global:\n  lr: 11\n", "", "Global.lr: must be at most 10, got 11"},
		{"Global:\n  epochs: 2\n", "Global.epochs=-5", "Global.epochs: must be at least 1, got -5"},
	} {
		var ov []string
		if c.override != "" {
			ov = append(ov, c.override)
		}
		cfg, err := config.Parse("", "x.yaml", []byte(c.yaml), ov...)
		if err != nil {
			t.Fatal(err)
		}
		o := checkedOpts{Epochs: 0} // a default out of range is not the config's doing
		err = cfg.Decode("Global", &o)
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.yaml, err)
			}
			continue
		}
		var ce *config.Error
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &ce) {
			t.Errorf("%q %s: error %v, want %q (a *config.Error)", c.yaml, c.override, err, c.want)
		}
	}
}
