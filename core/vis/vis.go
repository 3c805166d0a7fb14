// Package vis draws predictions on images for the kits' --draw: boxes,
// tags and text in a real TrueType/OpenType font found on the system (or
// given), the same rendering in every kit.
package vis

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"os"
	"slices"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// fontPaths are CJK-capable fonts looked for when no font is given (Debian/Ubuntu,
// Fedora, Arch, macOS, Windows), then fonts without CJK glyphs.
var fontPaths = []string{
	"/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
	"/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc",
	"/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
	"/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
	"/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
	"/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
	"/usr/share/fonts/truetype/arphic/uming.ttc",
	"/System/Library/Fonts/PingFang.ttc",
	"/System/Library/Fonts/STHeiti Light.ttc",
	`C:\Windows\Fonts\msyh.ttc`,
	`C:\Windows\Fonts\simsun.ttc`,
	"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
}

// Font is the fonts text is drawn in: the first one that has a character's
// glyph draws it, so a CJK font without Latin letters (Droid Sans
// Fallback) is completed by a Latin one. A Font without any (none found)
// draws with a 7×13 bitmap face. Safe for concurrent use.
type Font struct {
	fonts []*opentype.Font
}

// coverage are the characters a Font should have glyphs for: Latin, and
// Chinese for OCR's texts. LoadFont stops looking once both are covered.
var coverage = []rune{'a', '中'}

// LoadFont loads the font at path, then system fonts for the characters it
// lacks; with path empty, system fonts only. Without a usable font it
// returns a Font that draws in the bitmap face, and a warning saying so.
func LoadFont(path string) (*Font, string) {
	f := &Font{}
	paths := fontPaths
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return f, fmt.Sprintf("--font: %v; texts are drawn in a bitmap font", err)
		}
		of, err := parseFont(b)
		if err != nil {
			return f, fmt.Sprintf("--font: %s: %v; texts are drawn in a bitmap font", path, err)
		}
		f.fonts = append(f.fonts, of)
	}
	for _, p := range paths {
		if f.covers() {
			break
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if of, err := parseFont(b); err == nil && f.adds(of) {
			f.fonts = append(f.fonts, of)
		}
	}
	if len(f.fonts) == 0 {
		return f, "no TrueType font found (install fonts-noto-cjk or fonts-dejavu-core, or give --font); texts are drawn in a bitmap font"
	}
	return f, ""
}

// has reports whether of has a glyph for r.
func has(of *opentype.Font, r rune) bool {
	x, err := of.GlyphIndex(nil, r)
	return err == nil && x != 0
}

// covers reports whether the fonts have every coverage character.
func (f *Font) covers() bool {
	for _, r := range coverage {
		if !slices.ContainsFunc(f.fonts, func(of *opentype.Font) bool { return has(of, r) }) {
			return false
		}
	}
	return true
}

// adds reports whether of has a coverage character the fonts lack.
func (f *Font) adds(of *opentype.Font) bool {
	for _, r := range coverage {
		if has(of, r) && !slices.ContainsFunc(f.fonts, func(o *opentype.Font) bool { return has(o, r) }) {
			return true
		}
	}
	return false
}

// HasFont reports whether a real font was loaded.
func (f *Font) HasFont() bool { return f != nil && len(f.fonts) > 0 }

// parseFont reads a font file or the first font of a collection (.ttc).
func parseFont(b []byte) (*opentype.Font, error) {
	if f, err := opentype.Parse(b); err == nil {
		return f, nil
	}
	c, err := opentype.ParseCollection(b)
	if err != nil {
		return nil, err
	}
	// Noto CJK collections hold JP, KR, SC, TC...: prefer the Simplified Chinese face
	for i := 0; i < c.NumFonts(); i++ {
		f, err := c.Font(i)
		if err != nil {
			continue
		}
		if name, err := f.Name(nil, 4); err == nil && (strings.Contains(name, " SC") || strings.Contains(name, "SC ")) {
			return f, nil
		}
	}
	return c.Font(0)
}

// Face returns a face of size pixels (the bitmap face without a font). A
// face is not safe for concurrent use: each drawing asks for its own.
func (f *Font) Face(size int) font.Face {
	if !f.HasFont() {
		return basicfont.Face7x13
	}
	m := &multiFace{fonts: f.fonts}
	for _, of := range f.fonts {
		fc, err := opentype.NewFace(of, &opentype.FaceOptions{Size: float64(size), DPI: 72, Hinting: font.HintingFull})
		if err != nil {
			return basicfont.Face7x13
		}
		m.faces = append(m.faces, fc)
	}
	return m
}

// multiFace draws each character in the first face whose font has it
// (the first face when none does); metrics are the first face's.
type multiFace struct {
	fonts []*opentype.Font
	faces []font.Face
}

func (m *multiFace) pick(r rune) font.Face {
	for i, of := range m.fonts {
		if has(of, r) {
			return m.faces[i]
		}
	}
	return m.faces[0]
}

func (m *multiFace) Close() error {
	for _, f := range m.faces {
		f.Close()
	}
	return nil
}

func (m *multiFace) Glyph(dot fixed.Point26_6, r rune) (image.Rectangle, image.Image, image.Point, fixed.Int26_6, bool) {
	return m.pick(r).Glyph(dot, r)
}

func (m *multiFace) GlyphBounds(r rune) (fixed.Rectangle26_6, fixed.Int26_6, bool) {
	return m.pick(r).GlyphBounds(r)
}

func (m *multiFace) GlyphAdvance(r rune) (fixed.Int26_6, bool) { return m.pick(r).GlyphAdvance(r) }

func (m *multiFace) Kern(r0, r1 rune) fixed.Int26_6 {
	if f := m.pick(r0); f == m.pick(r1) {
		return f.Kern(r0, r1)
	}
	return 0
}

func (m *multiFace) Metrics() font.Metrics { return m.faces[0].Metrics() }

// Text draws s with its baseline at y (at least the face's ascent, so it
// stays inside the image) starting at x.
func Text(img *image.RGBA, face font.Face, s string, x, y int, c color.Color) {
	(&font.Drawer{Dst: img, Src: image.NewUniform(c), Face: face, Dot: fixed.P(x, max(y, face.Metrics().Ascent.Ceil()))}).DrawString(s)
}

// Tag draws s in white on a filled box of colour bg whose bottom-left
// corner is (x, y), moved down to stay inside the image; the box is sized
// to the text.
func Tag(img *image.RGBA, face font.Face, s string, x, y int, bg color.Color) {
	m := face.Metrics()
	h := TagHeight(face)
	w := font.MeasureString(face, s).Ceil() + 4
	y = max(y, h)
	draw.Draw(img, image.Rect(x, y-h, x+w, y), image.NewUniform(bg), image.Point{}, draw.Src)
	(&font.Drawer{Dst: img, Src: image.White, Face: face, Dot: fixed.P(x+2, y-1-m.Descent.Ceil())}).DrawString(s)
}

// TagHeight is the height of a Tag in face.
func TagHeight(face font.Face) int {
	m := face.Metrics()
	return (m.Ascent + m.Descent).Ceil() + 2
}

// Rect draws a 1-px rectangle outline, clipped to the image.
func Rect(img *image.RGBA, x1, y1, x2, y2 int, c color.RGBA) {
	r := img.Bounds()
	set := func(x, y int) {
		if image.Pt(x, y).In(r) {
			img.SetRGBA(x, y, c)
		}
	}
	for x := x1; x <= x2; x++ {
		set(x, y1)
		set(x, y2)
	}
	for y := y1; y <= y2; y++ {
		set(x1, y)
		set(x2, y)
	}
}

// LabelSize is the text size (pixels) for tags on an image of height h:
// readable on small images, not huge on large ones.
func LabelSize(h int) int { return min(max(12, h/40), 32) }
