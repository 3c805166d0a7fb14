package config_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"paddle/configs"
	"paddle/core/config"
)

func mustLoad(t *testing.T, path string, overrides ...string) *config.Config {
	t.Helper()
	c, err := config.Load(path, overrides...)
	if err != nil {
		t.Fatalf("Load(%q): %v", path, err)
	}
	return c
}

func yamlOf(t *testing.T, c *config.Config) string {
	t.Helper()
	out, err := c.YAML()
	if err != nil {
		t.Fatalf("YAML: %v", err)
	}
	return string(out)
}

func TestInheritance(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{
			name: "single base: maps merge, lists replace, base order leads",
			file: "testdata/inherit/single.yaml",
			want: `Global:
  epoch_num: 20
  lr: 0.1
  tags: [c]
Architecture:
  model_type: det
  Backbone:
    name: ResNet
    layers: 18
`,
		},
		{
			name: "list of bases merge left to right",
			file: "testdata/inherit/list.yaml",
			want: `Global:
  epoch_num: 30
  lr: 0.2
  tags: [x]
  seed: 7
Architecture:
  model_type: det
  Backbone:
    name: ResNet
    layers: 18
`,
		},
		{
			name: "base of a base",
			file: "testdata/inherit/nested.yaml",
			want: `Global:
  epoch_num: 20
  lr: 0.1
  tags: [c]
Architecture:
  model_type: det
  Backbone:
    name: ResNet
    layers: 50
`,
		},
		{
			name: "relative path from a sub folder",
			file: "testdata/inherit/sub/relative.yaml",
			want: `Global:
  epoch_num: 10
  lr: 0.1
  tags: [a, b]
  seed: 1
Architecture:
  model_type: det
  Backbone:
    name: ResNet
    layers: 18
`,
		},
		{
			name: "_base_ spelling",
			file: "testdata/inherit/lower.yaml",
			want: `Global:
  epoch_num: 10
  lr: 0.1
  tags: [a, b]
  seed: 2
Architecture:
  model_type: det
  Backbone:
    name: ResNet
    layers: 18
`,
		},
		{
			name: "_inherited_: false replaces the base map",
			file: "testdata/inherit/inherited.yaml",
			want: `Global:
  epoch_num: 10
  lr: 0.1
  tags: [a, b]
Architecture:
  model_type: rec
`,
		},
		{
			name: "an empty file is an empty map",
			file: "testdata/inherit/empty.yaml",
			want: "{}\n",
		},
		{
			name: "anchors and merge keys are expanded",
			file: "testdata/inherit/anchors.yaml",
			want: `defaults:
  lr: 0.5
  seed: 9
Global:
  lr: 0.5
  seed: 4
  shape: [3, 32, 32]
Eval:
  shape: [3, 32, 32]
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, tt.file)
			if got := yamlOf(t, c); got != tt.want {
				t.Errorf("resolved %s =\n%s\nwant\n%s", tt.file, got, tt.want)
			}
			if c.Has("_BASE_") || c.Has("_base_") || c.Has("Architecture._inherited_") {
				t.Errorf("resolved config keeps inheritance keys")
			}
		})
	}
}

func TestSources(t *testing.T) {
	c := mustLoad(t, "testdata/inherit/nested.yaml")
	want := "testdata/inherit/nested.yaml testdata/inherit/single.yaml testdata/inherit/base.yaml"
	if got := strings.Join(c.Sources, " "); got != want {
		t.Errorf("Sources = %q, want %q", got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{
			name: "cycle shows the chain",
			file: "testdata/cycle/a.yaml",
			want: "testdata/cycle/c.yaml:1: _BASE_: inheritance cycle: testdata/cycle/a.yaml -> testdata/cycle/b.yaml -> testdata/cycle/c.yaml -> testdata/cycle/a.yaml",
		},
		{
			name: "a file including itself",
			file: "testdata/cycle/self.yaml",
			want: "testdata/cycle/self.yaml:1: _BASE_: inheritance cycle: testdata/cycle/self.yaml -> testdata/cycle/self.yaml",
		},
		{
			name: "missing base names the including line",
			file: "testdata/inherit/missing.yaml",
			want: "testdata/inherit/missing.yaml:3: _BASE_: open testdata/inherit/nowhere.yaml: no such file or directory",
		},
		{
			name: "the error names the key as spelled",
			file: "testdata/inherit/lower_missing.yaml",
			want: "testdata/inherit/lower_missing.yaml:1: _base_: open testdata/inherit/nope.yaml: no such file or directory",
		},
		{
			name: "yaml syntax error has file and line",
			file: "testdata/bad/syntax.yaml",
			want: "testdata/bad/syntax.yaml:3: did not find expected ',' or ']'",
		},
		{
			name: "duplicate key",
			file: "testdata/bad/dupkey.yaml",
			want: "testdata/bad/dupkey.yaml:4: Global.epoch_num: duplicate key (first at line 2)",
		},
		{
			name: "one document per file",
			file: "testdata/bad/twodocs.yaml",
			want: "testdata/bad/twodocs.yaml:3: more than one YAML document (---) in a config",
		},
		{
			name: "top level must be a map",
			file: "testdata/bad/list.yaml",
			want: "testdata/bad/list.yaml:1: expected a map at the top, got a list",
		},
		{
			name: "no such config",
			file: "testdata/nothere.yaml",
			want: `config "testdata/nothere.yaml": file does not exist (not on disk, not an embedded config)`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Load(tt.file)
			if err == nil {
				t.Fatalf("Load(%q) succeeded, want error %q", tt.file, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Load(%q) error\n got %q\nwant %q", tt.file, err, tt.want)
			}
		})
	}
}

func TestErrorIsTyped(t *testing.T) {
	_, err := config.Load("testdata/bad/dupkey.yaml")
	var ce *config.Error
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *config.Error", err)
	}
	if ce.File != "testdata/bad/dupkey.yaml" || ce.Line != 4 || ce.Path != "Global.epoch_num" {
		t.Errorf("Error = %+v", *ce)
	}
}

func TestEmbeddedNames(t *testing.T) {
	emb := fstest.MapFS{
		"clas/base.yaml":             {Data: []byte("Global:\n  epochs: 1\n  seed: 5\n")},
		"clas/net.yaml":              {Data: []byte("_BASE_: base.yaml\nGlobal:\n  epochs: 3\n")},
		"testdata/inherit/base.yaml": {Data: []byte("Global:\n  from: embedded\n")},
		"bad/cycle.yaml":             {Data: []byte("_BASE_: ../bad/cycle.yaml\n")},
		"bad/escape.yaml":            {Data: []byte("_BASE_: ../../x.yaml\n")},
	}
	tests := []struct {
		name, path, want, wantErr string
	}{
		{name: "embedded name with base", path: "clas/net.yaml", want: "Global:\n  epochs: 3\n  seed: 5\n"},
		{name: "configs/ prefix and no extension", path: "configs/clas/net", want: "Global:\n  epochs: 3\n  seed: 5\n"},
		{name: "a real path wins", path: "testdata/inherit/base.yaml",
			want: "Global:\n  epoch_num: 10\n  lr: 0.1\n  tags: [a, b]\nArchitecture:\n  model_type: det\n  Backbone:\n    name: ResNet\n    layers: 18\n"},
		{name: "a near miss gets a hint", path: "clas/nett.yaml",
			wantErr: `config "clas/nett.yaml": file does not exist (not on disk, not an embedded config; did you mean "clas/net.yaml"?)`},
		{name: "cycle inside the embedded tree", path: "bad/cycle.yaml",
			wantErr: "bad/cycle.yaml:1: _BASE_: inheritance cycle: bad/cycle.yaml -> bad/cycle.yaml"},
		{name: "base outside the tree", path: "bad/escape.yaml",
			wantErr: "bad/escape.yaml:1: _BASE_: ../../x.yaml is outside the config tree"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Options{Embedded: emb}.Load(tt.path)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Load(%q) error = %v, want %q", tt.path, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load(%q): %v", tt.path, err)
			}
			if got := yamlOf(t, c); got != tt.want {
				t.Errorf("Load(%q) =\n%s\nwant\n%s", tt.path, got, tt.want)
			}
		})
	}
}

func TestNames(t *testing.T) {
	emb := fstest.MapFS{
		"clas/_base_/b.yaml": {Data: []byte("a: 1\n")},
		"clas/x.yaml":        {Data: []byte("a: 1\n")},
		"det/y/z.yaml":       {Data: []byte("a: 1\n")},
		"README.md":          {Data: []byte("hi\n")},
	}
	if got, want := strings.Join(config.Names(emb), " "), "clas/x.yaml det/y/z.yaml"; got != want {
		t.Errorf("Names = %q, want %q", got, want)
	}
	if !slices.Contains(config.Names(nil), "clas/lenet_mnist.yaml") {
		t.Errorf("embedded Names lack clas/lenet_mnist.yaml: %v", config.Names(nil))
	}
}

func TestDiskBaseFallsBackToEmbedded(t *testing.T) {
	emb := fstest.MapFS{"clas/base.yaml": {Data: []byte("Global:\n  epochs: 1\n  seed: 5\n")}}
	dir := t.TempDir()
	p := filepath.Join(dir, "mine.yaml")
	if err := os.WriteFile(p, []byte("_BASE_: clas/base.yaml\nGlobal:\n  epochs: 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.Options{Embedded: emb}.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := yamlOf(t, c), "Global:\n  epochs: 9\n  seed: 5\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestLoadFS(t *testing.T) {
	fsys := fstest.MapFS{
		"fixture/_base_/global.yaml": {Data: []byte("Global:\n  epoch_num: 1\n  lr: 0.5\n")},
		"fixture/x.yaml":             {Data: []byte("_base_: _base_/global.yaml\nGlobal:\n  lr: 0.25\n")},
	}
	c, err := config.LoadFS(fsys, "fixture/x.yaml", "Global.seed=3")
	if err != nil {
		t.Fatal(err)
	}
	if c.Kit != "fixture" {
		t.Errorf("Kit = %q, want fixture", c.Kit)
	}
	if got, want := yamlOf(t, c), "Global:\n  epoch_num: 1\n  lr: 0.25\n  seed: 3\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	_, err = config.LoadFS(fsys, "fixture/x.yaml", "Global.sed=3")
	if want := `-o "Global.sed=3": unknown key "Global.sed" (did you mean "Global.seed"?)`; err == nil || err.Error() != want {
		t.Errorf("error = %v, want %q", err, want)
	}
}

func TestSaveRoundTrip(t *testing.T) {
	c := mustLoad(t, "testdata/inherit/nested.yaml", "Global.extra={a: 1, b: [x, y]}", "Architecture.Backbone.name=MobileNetV3")
	want := yamlOf(t, c)
	p := filepath.Join(t.TempDir(), "out", "config.yaml")
	if err := c.Save(p); err != nil {
		t.Fatal(err)
	}
	again := mustLoad(t, p)
	if got := yamlOf(t, again); got != want {
		t.Errorf("saved and reloaded =\n%s\nwant\n%s", got, want)
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("save left %d files, want 1 (no temp files)", len(entries))
	}
	var g globalOpts
	if err := again.Decode("Global", &g); err != nil {
		t.Fatal(err)
	}
	if g.EpochNum != 20 || len(g.Extra) != 2 {
		t.Errorf("decoded %+v", g)
	}
}

func TestParse(t *testing.T) {
	c, err := config.Parse("fixture", "inline.yaml", []byte("Global:\n  seed: 1\n  lr: x\n"), "Global.epoch_num=3")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := yamlOf(t, c), "Global:\n  seed: 1\n  lr: x\n  epoch_num: 3\n"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	err = c.Validate(c.Schema)
	if want := `inline.yaml:3: Global.lr: expected a number, got "x"`; err == nil || err.Error() != want {
		t.Errorf("Validate = %v, want %q", err, want)
	}
	_, err = config.Parse("", "inline.yaml", []byte("_BASE_: a.yaml\n"))
	if want := "inline.yaml:1: _BASE_: bases cannot be resolved here: load the config from a file"; err == nil || err.Error() != want {
		t.Errorf("Parse with a base = %v, want %q", err, want)
	}
}

func TestKitOf(t *testing.T) {
	tests := map[string]string{
		"configs/det/x.yaml":                  "det",
		"/src/paddle/configs/det/yolo/x.yaml": "det",
		"configs/seg/_base_/cityscapes.yaml":  "seg",
		"det/x.yaml":                          "det",
		"clas/lenet_mnist.yaml":               "clas",
		"x.yaml":                              "",
		"./x.yaml":                            "",
		"/tmp/x.yaml":                         "",
		"../x/y.yaml":                         "",
	}
	for in, want := range tests {
		if got := config.KitOf(in); got != want {
			t.Errorf("KitOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAllConfigsLoad loads every config shipped in the binary and, when its
// kit has registered a schema, validates it.
func TestAllConfigsLoad(t *testing.T) {
	n := 0
	err := fs.WalkDir(configs.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		n++
		t.Run(p, func(t *testing.T) {
			c, err := config.LoadFS(configs.FS, p)
			if err != nil {
				t.Fatal(err)
			}
			if c.Schema != nil {
				if err := c.Validate(c.Schema); err != nil {
					t.Error(err)
				}
			}
			if _, err := config.Load(p); err != nil { // by embedded name
				t.Error(err)
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no configs embedded")
	}
}
