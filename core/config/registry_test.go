package config_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"paddle/core/config"
)

type regOpts struct {
	Depth int     `yaml:"depth"`
	Scale float64 `yaml:"scale"`
}

// registryFixture registers two models whose builders report what they got.
func registryFixture() *config.Registry[string, string] {
	r := config.NewRegistry[string, string]("Arch")
	config.Add(r, "Zeta", regOpts{Depth: 18}, func(_ config.Component, o regOpts, env string) (string, error) {
		return fmt.Sprintf("Zeta depth=%d scale=%g env=%s", o.Depth, o.Scale, env), nil
	})
	config.Add(r, "Alpha", struct{}{}, func(config.Component, struct{}, string) (string, error) { return "Alpha", nil })
	return r
}

func TestRegistry(t *testing.T) {
	r := registryFixture()
	s := &config.Schema{Sections: map[string]any{"Arch": (*config.Component)(nil)}}
	config.Attach(s, "Arch", r)
	config.Register("regfixture", s)
	build := func(yaml string) (string, error) {
		cfg, err := config.Parse("regfixture", "m.yaml", []byte(yaml))
		if err != nil {
			t.Fatal(err)
		}
		var sec struct {
			Arch config.Component `yaml:"Arch"`
		}
		if err := cfg.Decode("", &sec); err != nil {
			return "", err
		}
		return r.Build(sec.Arch, "E")
	}
	// Defaults survive where the config is silent; set keys override them.
	if got, err := build("Arch: {name: Zeta, scale: 0.5}\n"); err != nil || got != "Zeta depth=18 scale=0.5 env=E" {
		t.Errorf("Zeta = %q, %v", got, err)
	}
	if got, err := build("Arch: {name: Zeta, depth: 50}\n"); err != nil || got != "Zeta depth=50 scale=0 env=E" {
		t.Errorf("Zeta depth 50 = %q, %v", got, err)
	}
	// Options decode strictly.
	if _, err := build("Arch: {name: Zeta, deep: 3}\n"); err == nil || !strings.Contains(err.Error(), "deep") {
		t.Errorf("unknown option: err = %v", err)
	}
	// An unknown name lists the known ones in registration order, at the name's line.
	_, err := build("\nArch: {name: Omega}\n")
	if err == nil || !strings.Contains(err.Error(), `unknown Arch "Omega" (known: Zeta, Alpha)`) || !strings.Contains(err.Error(), "m.yaml:2") {
		t.Errorf("unknown name: err = %v", err)
	}
	// The schema entry and the listing come from the same registration.
	if got := r.Names(); !slices.Equal(got, []string{"Zeta", "Alpha"}) {
		t.Errorf("Names = %v", got)
	}
	slot := s.ComponentSlots()["Arch"]
	if slot.Kind != "Arch" || !slices.Equal(slot.Names, []string{"Alpha", "Zeta"}) {
		t.Errorf("ComponentSlots[Arch] = %+v", slot)
	}
	cfg, err := config.Parse("regfixture", "m.yaml", []byte("Arch: {name: Omega}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(s); err == nil || !strings.Contains(err.Error(), "Alpha, Zeta") {
		t.Errorf("Validate of an unknown name: %v", err)
	}
}

func TestRegistryDuplicatePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("registering a name twice did not panic")
		}
	}()
	r := registryFixture()
	config.Add(r, "Alpha", struct{}{}, func(config.Component, struct{}, string) (string, error) { return "", nil })
}

func TestChoices(t *testing.T) {
	var c config.Choices[int]
	c.Add("Cosine", 1).Add("Step", 2)
	if v, ok := c.Get("Step"); !ok || v != 2 {
		t.Errorf("Get(Step) = %d, %v", v, ok)
	}
	if _, ok := c.Get("Linear"); ok {
		t.Error("Get(Linear) found an unregistered name")
	}
	if got := c.Known(); got != "Cosine, Step" {
		t.Errorf("Known = %q", got)
	}
	if s := config.NameSet("quad", "poly"); s.Known() != "quad, poly" {
		t.Errorf("NameSet Known = %q", s.Known())
	} else if _, ok := s.Get("poly"); !ok {
		t.Error("NameSet lacks poly")
	}
	defer func() {
		if recover() == nil {
			t.Error("a second Add of Step did not panic")
		}
	}()
	c.Add("Step", 3)
}
