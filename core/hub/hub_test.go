package hub

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeModel builds a model entry over small files and a package tarball holding them
// (plus a file that must not be extracted), and a stand-in npm that "packs" it.
func fakeModel(t *testing.T, corrupt bool) (Model, string) {
	t.Helper()
	files := map[string]string{"a.onnx": "model bytes", "keys.txt": "a\nb\n"}
	m := Model{Name: "fake", Package: "@x/fake", Version: "1.0.0", Subdir: "package/assets"}
	for _, n := range []string{"a.onnx", "keys.txt"} {
		s := sha256.Sum256([]byte(files[n]))
		m.Files = append(m.Files, File{Name: n, SHA256: hex.EncodeToString(s[:]), Size: int64(len(files[n]))})
	}
	if corrupt {
		files["keys.txt"] = "a\nc\n"
	}
	files["README.md"] = "not a model file"
	bin := t.TempDir()
	tgz := filepath.Join(bin, "x-fake-1.0.0.tgz")
	f, err := os.Create(tgz)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for _, n := range []string{"README.md", "a.onnx", "keys.txt"} {
		name := "package/assets/" + n
		if n == "README.md" {
			name = "package/" + n
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(files[n])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(files[n])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// the stand-in checks its arguments like `npm pack --silent @x/fake@1.0.0` and
	// writes the tarball into its working folder
	script := "#!/bin/sh\n[ \"$1 $2 $3\" = \"pack --silent @x/fake@1.0.0\" ] || { echo bad args \"$@\" >&2; exit 3; }\n" +
		"cp " + tgz + " . && echo x-fake-1.0.0.tgz\n"
	npm := filepath.Join(bin, "npm")
	if err := os.WriteFile(npm, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return m, npm
}

func TestPullExtractsVerifiesAndRenames(t *testing.T) {
	m, npm := fakeModel(t, false)
	old := npmCommand
	npmCommand = npm
	defer func() { npmCommand = old }()
	root := t.TempDir()
	dir, err := pull(context.Background(), m, root)
	if err != nil {
		t.Fatal(err)
	}
	if dir != filepath.Join(root, "fake") {
		t.Errorf("dir %s", dir)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "a.onnx,keys.txt" {
		t.Errorf("extracted %v, want only the listed files", names)
	}
	if err := verifyDir(m, dir); err != nil {
		t.Error(err)
	}
	if !present(m, dir) {
		t.Error("present = false after pull")
	}
	// no temporary folders left behind
	ents, _ = os.ReadDir(root)
	if len(ents) != 1 {
		t.Errorf("root holds %d entries, want 1", len(ents))
	}
	// a second pull replaces the first
	if _, err := pull(context.Background(), m, root); err != nil {
		t.Fatal(err)
	}
	// a damaged file is caught by verify but not by the cheap presence check
	if err := os.WriteFile(filepath.Join(dir, "keys.txt"), []byte("a\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !present(m, dir) {
		t.Error("present should only check sizes")
	}
	if err := verifyDir(m, dir); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("verify of a damaged file: %v", err)
	}
	os.Remove(filepath.Join(dir, "a.onnx"))
	if present(m, dir) {
		t.Error("present with a missing file")
	}
	if err := verifyDir(m, dir); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("verify of a missing file: %v", err)
	}
}

func TestPullRejectsBadChecksum(t *testing.T) {
	m, npm := fakeModel(t, true)
	old := npmCommand
	npmCommand = npm
	defer func() { npmCommand = old }()
	root := t.TempDir()
	_, err := pull(context.Background(), m, root)
	if err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("err = %v, want a sha256 mismatch", err)
	}
	if _, err := os.Stat(filepath.Join(root, "fake")); err == nil {
		t.Error("a failed pull left the model folder")
	}
}

func TestPullWithoutNPM(t *testing.T) {
	old := npmCommand
	npmCommand = "npm-that-does-not-exist-here"
	defer func() { npmCommand = old }()
	_, err := pull(context.Background(), ppocrv4, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "paddle model pull ppocrv4") {
		t.Fatalf("err = %v", err)
	}
}

func TestEnsureOfflineAndPresent(t *testing.T) {
	t.Setenv("PADDLE_CACHE", t.TempDir())
	_, err := Ensure(context.Background(), "ppocrv4", true)
	want := "model ppocrv4 is not in " + Dir("ppocrv4") + "; run `paddle model pull ppocrv4`"
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if _, ok := Path("ppocrv4"); ok {
		t.Error("Path ok for an empty cache")
	}
	// files of the right size count as present: Ensure must not try the network
	dir := Dir("ppocrv4")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range ppocrv4.Files {
		if err := os.WriteFile(filepath.Join(dir, f.Name), make([]byte, f.Size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := npmCommand
	npmCommand = "npm-that-does-not-exist-here"
	defer func() { npmCommand = old }()
	got, err := Ensure(context.Background(), "ppocrv4", false)
	if err != nil || got != dir {
		t.Fatalf("Ensure = %q, %v", got, err)
	}
	if err := Verify("ppocrv4"); err == nil {
		t.Error("Verify accepted zero-filled files")
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "known: ppocrv4") {
		t.Errorf("Lookup: %v", err)
	}
}

// TestManifestMatchesCache checks the manifest against a real copy of the package when
// scripts/fetch_ppocrv4.sh has put one in the cache (skipped otherwise).
func TestManifestMatchesCache(t *testing.T) {
	dir := os.Getenv("PADDLE_MODELS_DIR")
	if dir == "" {
		dir = filepath.Join(CacheDir(), "npm", "ocr-models-1.4.2", "package", "assets")
	}
	if _, err := os.Stat(filepath.Join(dir, ppocrv4.Files[0].Name)); err != nil {
		if _, err2 := os.Stat(filepath.Join(dir, "package", "assets", ppocrv4.Files[0].Name)); err2 != nil {
			t.Skipf("no PP-OCRv4 files in %s (run scripts/fetch_ppocrv4.sh)", dir)
		}
		dir = filepath.Join(dir, "package", "assets")
	}
	if err := verifyDir(ppocrv4, dir); err != nil {
		t.Error(err)
	}
	if !present(ppocrv4, dir) {
		t.Error("sizes in the manifest do not match the package")
	}
}
