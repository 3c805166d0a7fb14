package audio

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestReadOgg checks that Read decodes Ogg Vorbis by extension (the
// decoder itself is tested against libvorbis in core/audio/vorbis).
func TestReadOgg(t *testing.T) {
	a, err := Read("testdata/vorbis/stereo44k_q5.ogg", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Rate != 44100 || len(a.Channels) != 2 || a.Len() != 26460 {
		t.Errorf("got %d Hz × %d ch × %d, want 44100 × 2 × 26460", a.Rate, len(a.Channels), a.Len())
	}
	if !slices.Contains(Exts, ".ogg") {
		t.Error("Exts lacks .ogg")
	}
	if _, err := Read("testdata/wav/s16.wav.ogg", nil); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing ogg: %v", err)
	}
	if _, err := Read("testdata/wav/s16.wav", nil); err != nil {
		t.Fatal(err)
	}
}

// TestReadOggNotOgg checks a WAV named .ogg gets a clear error.
func TestReadOggNotOgg(t *testing.T) {
	_, err := Read("testdata/wav/s16.wav", nil)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/x.ogg"
	if err := copyFile("testdata/wav/s16.wav", path); err != nil {
		t.Fatal(err)
	}
	_, err = Read(path, nil)
	if err == nil || !strings.Contains(err.Error(), `x.ogg: ogg page at byte 0: no "OggS" capture pattern`) {
		t.Errorf("wav named .ogg: %v", err)
	}
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
