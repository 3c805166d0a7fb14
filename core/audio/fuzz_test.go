package audio

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecodeWAV: DecodeWAV never panics, names the input in its errors, and
// decodes no more samples than the input's bytes can hold.
func FuzzDecodeWAV(f *testing.F) {
	names, err := filepath.Glob(filepath.Join("testdata", "wav", "*.wav"))
	if err != nil || len(names) == 0 {
		f.Fatalf("no WAV seeds: %v", err)
	}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 4096 {
			b = b[:4096] // a truncated file is a seed too, and keeps the corpus small
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := DecodeWAV(bytes.NewReader(b), "in.wav")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "in.wav: ") {
				t.Fatalf("error %q does not name the input", err)
			}
			return
		}
		if n := a.Len() * len(a.Channels); n > len(b) {
			t.Fatalf("%d samples from %d bytes", n, len(b))
		}
		a.Mono()
		a.Duration()
	})
}
