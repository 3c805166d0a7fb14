package data

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
)

// FuzzDecode: Decode never panics on any bytes (every format, with a JPEG's
// EXIF orientation applied), refuses more than MaxPixels from the header, and
// what decodes has the size its header declared (turned for orientations 5–8).
func FuzzDecode(f *testing.F) {
	for o := 1; o <= 8; o++ {
		addFile(f, fmt.Sprintf("exif_%d.jpg", o))
	}
	for _, name := range []string{"photo.png", "pattern.webp", "photo_420.jpg", "huge_100000x100000.png"} {
		addFile(f, name)
	}
	small := image.NewPaletted(image.Rect(0, 0, 5, 3), color.Palette{color.Black, color.White})
	small.Pix[3] = 1
	for _, enc := range []func(*bytes.Buffer) error{
		func(b *bytes.Buffer) error { return gif.Encode(b, small, nil) },
		func(b *bytes.Buffer) error { return bmp.Encode(b, small) },
		func(b *bytes.Buffer) error { return tiff.Encode(b, small, nil) },
	} {
		var b bytes.Buffer
		if err := enc(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	old := MaxPixels()
	SetMaxPixels(1 << 16) // keeps each input fast and small
	f.Cleanup(func() { SetMaxPixels(old) })
	f.Fuzz(func(t *testing.T, b []byte) {
		if o := jpegOrientation(b); o < 1 || o > 8 {
			t.Fatalf("EXIF orientation %d, want 1..8", o)
		}
		codec, ok := codecs[Format(b)]
		if !ok {
			if _, err := Decode(b, BGR); err == nil {
				t.Fatal("unknown format decoded")
			}
			return
		}
		for _, mode := range []ColorMode{BGR, Gray} {
			m, err := Decode(b, mode)
			if err != nil {
				continue
			}
			cfg, err := codec.config(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("decoded, but its header does not: %v", err)
			}
			if int64(cfg.Width)*int64(cfg.Height) > MaxPixels() {
				t.Fatalf("decoded %d×%d, over the limit %d", cfg.Width, cfg.Height, MaxPixels())
			}
			w, h := cfg.Width, cfg.Height
			if Format(b) == "jpeg" && jpegOrientation(b) >= 5 {
				w, h = h, w
			}
			if m.W != w || m.H != h || len(m.Pix) != m.W*m.H*m.C {
				t.Fatalf("decoded %d×%d×%d (%d bytes), header says %d×%d", m.W, m.H, m.C, len(m.Pix), w, h)
			}
		}
	})
}

func addFile(f *testing.F, name string) {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
}
