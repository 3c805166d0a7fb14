package synth

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/font/sfnt"
)

// A collection whose tables do not start on 4-byte boundaries (as in
// WenQuanYi's .ttc files) is refused by x/image/font/sfnt; loadFile copies
// the face out with aligned tables, and it draws the same glyphs.
func TestMisalignedCollection(t *testing.T) {
	src := goregular.TTF
	be := binary.BigEndian
	n := int(be.Uint16(src[4:]))
	dir := 12 + 16*n
	// ttcf header, one font at offset 16, its table directory, then each
	// table 2 bytes past a 4-byte boundary
	b := []byte("ttcf")
	b = be.AppendUint32(b, 0x00010000)
	b = be.AppendUint32(b, 1)
	b = be.AppendUint32(b, 16)
	face := len(b)
	b = append(b, src[:dir]...)
	for i := range n {
		rec := 12 + 16*i
		o, l := int(be.Uint32(src[rec+8:])), int(be.Uint32(src[rec+12:]))
		for len(b)%4 != 2 {
			b = append(b, 0)
		}
		be.PutUint32(b[face+rec+8:], uint32(len(b)))
		b = append(b, src[o:o+l]...)
	}
	if c, err := opentype.ParseCollection(b); err == nil {
		if _, err := c.Font(0); err == nil {
			t.Fatal("x/image/font/sfnt reads the misaligned collection itself: the test no longer tests the copy")
		}
	}
	path := filepath.Join(t.TempDir(), "odd.ttc")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	fs, err := loadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := sfnt.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	var buf sfnt.Buffer
	for _, r := range "Aa9?é" {
		g, err1 := fs[0].Font.GlyphIndex(&buf, r)
		w, err2 := want.GlyphIndex(&buf, r)
		if err1 != nil || err2 != nil || g != w || g == 0 {
			t.Errorf("%q: glyph %d (%v), want %d (%v)", r, g, err1, w, err2)
		}
	}
	if !fs[0].HasAll("Hello") || fs[0].Name != "odd.ttc#0" {
		t.Errorf("face %q lacks glyphs", fs[0].Name)
	}
	if _, err := alignedFace(b[:40], 0); err == nil {
		t.Error("a truncated collection: want an error")
	}
}
