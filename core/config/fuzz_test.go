package config

import (
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// FuzzLoad: loading a config that inherits (`_BASE_`) from another never
// panics, whatever either file holds; what loads re-encodes, decodes, takes
// an override and validates against its kit's schema without panicking.
func FuzzLoad(f *testing.F) {
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", "inherit", name))
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	base := read("base.yaml")
	for _, name := range []string{"inherited.yaml", "list.yaml", "lower.yaml", "nested.yaml", "anchors.yaml", "empty.yaml", "missing.yaml"} {
		f.Add(read(name), base)
	}
	f.Add([]byte("_BASE_: base.yaml\n_BASE_: other.yaml\n"), []byte("_BASE_: top.yaml\n"))          // duplicate key, cycle
	f.Add([]byte("a: &a [*a]\n"), []byte("x: {y: [1, 2]}\n"))                                       // self-referencing anchor
	f.Add([]byte("_BASE_: [base.yaml, other.yaml]\nG: {<<: {a: 1}, b: 2}\n"), []byte("- 1\n- 2\n")) // merge key; a base that is no mapping
	f.Add([]byte("a: &a [1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c]\n"), base)
	f.Fuzz(func(t *testing.T, top, base []byte) {
		fsys := fstest.MapFS{
			"configs/det/top.yaml":   {Data: top},
			"configs/det/base.yaml":  {Data: base},
			"configs/det/other.yaml": {Data: []byte("Global: {seed: 3}\n")},
		}
		c, err := Options{FS: fsys, Embedded: fstest.MapFS{}}.Load("configs/det/top.yaml", "Global.seed=5")
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		if _, err := c.YAML(); err != nil {
			t.Logf("YAML: %v", err)
		}
		var v map[string]any
		_ = c.Decode("", &v)
		if c.Schema != nil {
			_ = c.Validate(c.Schema)
		}
	})
}
