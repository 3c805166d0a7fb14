package hub

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDerive: the first call builds, the second reuses without building, a
// corrupted file (same size, other bytes), a truncated one, a new key or a
// lost sidecar are each remade with the reason, and a failed build leaves
// nothing in place.
func TestDerive(t *testing.T) {
	dir := t.TempDir()
	builds := 0
	content := "int8 model bytes"
	build := func(p string) error {
		builds++
		return os.WriteFile(p, []byte(content), 0o644)
	}
	r, err := Derive(dir, "m.onnx", "k1", build)
	if err != nil || !r.Built || r.Stale != "" || builds != 1 {
		t.Fatalf("first: %+v, %v, builds %d", r, err, builds)
	}
	if b, _ := os.ReadFile(r.Path); string(b) != content {
		t.Fatalf("file holds %q", b)
	}
	r, err = Derive(dir, "m.onnx", "k1", build)
	if err != nil || r.Built || builds != 1 {
		t.Fatalf("second: %+v, %v, builds %d (want reuse)", r, err, builds)
	}
	for _, c := range []struct {
		name, key, want string
		spoil           func(p string)
	}{
		{"flipped byte", "k1", "sha256", func(p string) { os.WriteFile(p, []byte("int8 model byteS"), 0o644) }},
		{"truncated", "k1", "bytes, want", func(p string) { os.WriteFile(p, []byte("int8"), 0o644) }},
		{"new recipe", "k2", `recipe "k1"`, func(string) {}},
		{"no sidecar", "k2", "m.onnx.json", func(p string) { os.Remove(p + ".json") }},
	} {
		c.spoil(r.Path)
		n := builds
		r, err = Derive(dir, "m.onnx", c.key, build)
		if err != nil || !r.Built || builds != n+1 || !strings.Contains(r.Stale, c.want) {
			t.Fatalf("%s: %+v, %v (want rebuilt, stale mentioning %q)", c.name, r, err, c.want)
		}
		if r2, _ := Derive(dir, "m.onnx", c.key, build); r2.Built {
			t.Fatalf("%s: the remade file is not reused", c.name)
		}
	}
	boom := errors.New("boom")
	_, err = Derive(dir, "n.onnx", "k", func(p string) error { os.WriteFile(p, []byte("half"), 0o644); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("failed build: err %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*n.onnx*"))
	if len(left) != 0 {
		t.Fatalf("a failed build left %v", left)
	}
}
