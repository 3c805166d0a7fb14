package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
)

func TestEmbeddedModel(t *testing.T) {
	saved := manifest
	t.Cleanup(func() { manifest = saved })
	data := []byte("weights")
	sum := sha256.Sum256(data)
	m := Model{
		Name:     "test-embedded",
		Files:    []File{{"w.bin", hex.EncodeToString(sum[:]), int64(len(data))}},
		Embedded: map[string][]byte{"w.bin": data},
	}
	Register(m)
	if dir, ok := Path(m.Name); !ok || dir != EmbeddedDir {
		t.Fatalf("Path = %q, %v; want %q, true", dir, ok, EmbeddedDir)
	}
	if err := Verify(m.Name); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if dir, err := Ensure(context.Background(), m.Name, true); err != nil || dir != EmbeddedDir {
		t.Fatalf("Ensure = %q, %v", dir, err)
	}
	b, err := EmbeddedFile(m.Name, "w.bin")
	if err != nil || string(b) != "weights" {
		t.Fatalf("EmbeddedFile = %q, %v", b, err)
	}
	if _, err := EmbeddedFile(m.Name, "other.bin"); err == nil {
		t.Fatal("EmbeddedFile of an unknown file: no error")
	}
	if _, err := EmbeddedFile("ppocrv4", "ppocr_keys_v1.txt"); err == nil {
		t.Fatal("EmbeddedFile of a pulled model: no error")
	}
	// A build whose bytes differ from the record fails, naming the file.
	data[0] = 'W'
	if err := Verify(m.Name); err == nil || !strings.Contains(err.Error(), "w.bin") {
		t.Fatalf("Verify of changed bytes = %v, want an error naming w.bin", err)
	}
	if _, err := EmbeddedFile(m.Name, "w.bin"); err == nil {
		t.Fatal("EmbeddedFile of changed bytes: no error")
	}
	if !slices.ContainsFunc(Models(), func(x Model) bool { return x.Name == m.Name }) {
		t.Fatal("Models does not list the registered model")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("registering a name twice did not panic")
		}
	}()
	Register(m)
}
