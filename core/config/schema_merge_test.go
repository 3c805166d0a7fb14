package config_test

import (
	"strings"
	"testing"

	"paddle/core/config"
)

type mergeA struct {
	Epochs int    `yaml:"epochs"`
	Dict   string `yaml:"dict"`
}

type mergeB struct {
	Epochs int     `yaml:"epochs"`
	Thresh float64 `yaml:"thresh"`
}

// A merged schema accepts each schema's keys and component names, and still
// rejects keys neither knows.
func TestMergeSchemas(t *testing.T) {
	a := &config.Schema{Sections: map[string]any{"Global": (*mergeA)(nil), "Arch": (*config.Component)(nil)},
		Components: map[string]map[string]any{"Arch": {"CRNN": (*mergeA)(nil)}}, Kinds: map[string]string{"Arch": "model"}}
	b := &config.Schema{Sections: map[string]any{"Global": (*mergeB)(nil), "Arch": (*config.Component)(nil), "Post": (*mergeB)(nil)},
		Components: map[string]map[string]any{"Arch": {"DB": (*mergeB)(nil)}}, Kinds: map[string]string{"Arch": "detector"}}
	m := config.MergeSchemas(a, b)
	for _, tt := range []struct{ yaml, wantErr string }{
		{"Global: {epochs: 2, dict: d.txt, thresh: 0.3}\n", ""},
		{"Arch: {name: DB, thresh: 0.3}\nPost: {thresh: 1}\n", ""},
		{"Arch: {name: CRNN, dict: x}\n", ""},
		{"Global: {bogus: 1}\n", "bogus"},
		{"Arch: {name: SVTR}\n", "SVTR"},
	} {
		cfg, err := config.Parse("", "m.yaml", []byte(tt.yaml))
		if err != nil {
			t.Fatal(err)
		}
		err = cfg.Validate(m)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%q: err = %v, want %q", tt.yaml, err, tt.wantErr)
		}
	}
	if k := m.ComponentSlots()["Arch"]; k.Kind != "model / detector" || len(k.Names) != 2 {
		t.Errorf("merged Arch slot = %+v", k)
	}
}
