package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
)

// Models the project trains itself ship inside the binary (DESIGN §10,
// "Languages"): their files are bytes embedded by the kit that owns them, and
// the store lists and verifies them like pulled files, by the sha256 and size
// in their manifest entry. There is nothing to pull and no folder.

// EmbeddedDir is what Path reports as the folder of an embedded model.
const EmbeddedDir = "(in the binary)"

// Register adds an embedded model to the manifest. It is for package init
// functions; a name already known, a model without embedded files, or a file
// without its bytes is a programmer error and panics.
func Register(m Model) {
	if _, err := Lookup(m.Name); err == nil {
		panic(fmt.Sprintf("hub: model %q registered twice", m.Name))
	}
	if len(m.Embedded) == 0 || m.Package != "" {
		panic(fmt.Sprintf("hub: model %q: Register is for embedded models (Embedded set, no Package)", m.Name))
	}
	for _, f := range m.Files {
		if _, ok := m.Embedded[f.Name]; !ok {
			panic(fmt.Sprintf("hub: model %q: file %s has no embedded bytes", m.Name, f.Name))
		}
	}
	manifest = append(slices.Clone(manifest), m)
}

// IsEmbedded reports whether m's files are inside the binary.
func (m Model) IsEmbedded() bool { return m.Embedded != nil }

// EmbeddedFile returns the bytes of file of the embedded model name after
// checking them against the manifest's sha256 and size.
func EmbeddedFile(name, file string) ([]byte, error) {
	m, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if !m.IsEmbedded() {
		return nil, fmt.Errorf("model %s is not embedded in the binary", name)
	}
	for _, f := range m.Files {
		if f.Name == file {
			b := m.Embedded[file]
			if err := checkBytes(m.Name, f, b); err != nil {
				return nil, err
			}
			return b, nil
		}
	}
	return nil, fmt.Errorf("model %s has no file %s", name, file)
}

// checkBytes compares embedded bytes with their manifest record.
func checkBytes(model string, f File, b []byte) error {
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); int64(len(b)) != f.Size || got != f.SHA256 {
		return fmt.Errorf("model %s: embedded %s has %d bytes and sha256 %s, want %d and %s (a broken build)", model, f.Name, len(b), got, f.Size, f.SHA256)
	}
	return nil
}

// verifyEmbedded is Verify for an embedded model.
func verifyEmbedded(m Model) error {
	for _, f := range m.Files {
		if err := checkBytes(m.Name, f, m.Embedded[f.Name]); err != nil {
			return err
		}
	}
	return nil
}

// ensureEmbedded is Ensure/Pull for an embedded model: its files are already
// here, so it only verifies them.
func ensureEmbedded(_ context.Context, m Model) (string, error) {
	if err := verifyEmbedded(m); err != nil {
		return "", err
	}
	return EmbeddedDir, nil
}
