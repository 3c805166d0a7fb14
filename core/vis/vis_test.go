package vis

import (
	"image"
	"image/color"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const dejavu = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"

func needFont(t *testing.T) *Font {
	t.Helper()
	if _, err := os.Stat(dejavu); err != nil {
		t.Skip("fonts-dejavu-core is not installed (scripts/setup.sh installs it)")
	}
	f, warn := LoadFont(dejavu)
	if warn != "" || !f.HasFont() {
		t.Fatalf("LoadFont(%s): %s", dejavu, warn)
	}
	return f
}

// greys counts the distinct grey levels strictly between black and white
// in the rectangle: a TrueType face is anti-aliased, the bitmap face is not.
func greys(img *image.RGBA, r image.Rectangle) int {
	seen := map[uint8]bool{}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.RGBAAt(x, y)
			if c.R == c.G && c.G == c.B && c.R != 0 && c.R != 255 {
				seen[c.R] = true
			}
		}
	}
	return len(seen)
}

func TestTagIsTrueType(t *testing.T) {
	f := needFont(t)
	img := image.NewRGBA(image.Rect(0, 0, 200, 60))
	Tag(img, f.Face(20), "cat 0.91", 10, 40, color.Black)
	// The tag is a black box holding white, anti-aliased text.
	if n := greys(img, img.Rect); n < 5 {
		t.Errorf("%d grey levels in the tag: want the anti-aliasing of a TrueType face", n)
	}
	if c := img.RGBAAt(11, 39); c != (color.RGBA{0, 0, 0, 255}) {
		t.Errorf("tag background at (11, 39) = %v, want black", c)
	}
	if c := img.RGBAAt(150, 50); c != (color.RGBA{}) {
		t.Errorf("outside the tag (150, 50) = %v, want untouched", c)
	}
	// The bitmap face, for comparison, has no grey at all.
	img2 := image.NewRGBA(image.Rect(0, 0, 200, 60))
	Tag(img2, (&Font{}).Face(20), "cat 0.91", 10, 40, color.Black)
	if n := greys(img2, img2.Rect); n != 0 {
		t.Errorf("bitmap face: %d grey levels, want 0", n)
	}
}

func TestTagStaysInside(t *testing.T) {
	f := needFont(t)
	img := image.NewRGBA(image.Rect(0, 0, 100, 100))
	Tag(img, f.Face(16), "top", 0, 0, color.RGBA{255, 0, 0, 255}) // a box at the top edge
	if c := img.RGBAAt(1, 1); c != (color.RGBA{255, 0, 0, 255}) {
		t.Errorf("the tag of a box at y=0 is not moved inside the image: (1, 1) = %v", c)
	}
}

func TestLoadFontErrors(t *testing.T) {
	f, warn := LoadFont(filepath.Join(t.TempDir(), "none.ttf"))
	if f.HasFont() || !strings.Contains(warn, "--font") || !strings.Contains(warn, "bitmap") {
		t.Errorf("missing font: HasFont %v, warning %q", f.HasFont(), warn)
	}
	bad := filepath.Join(t.TempDir(), "bad.ttf")
	os.WriteFile(bad, []byte("not a font"), 0o644)
	if f, warn := LoadFont(bad); f.HasFont() || !strings.Contains(warn, "bad.ttf") {
		t.Errorf("broken font: HasFont %v, warning %q", f.HasFont(), warn)
	}
	if (&Font{}).Face(30) == nil {
		t.Error("a Font without a file has no face")
	}
}

func TestLabelSize(t *testing.T) {
	for h, want := range map[int]int{48: 12, 800: 20, 4000: 32} {
		if got := LabelSize(h); got != want {
			t.Errorf("LabelSize(%d) = %d, want %d", h, got, want)
		}
	}
}

// A CJK font without Latin letters is completed by a system font that has
// them, so "cat 0.91" is not drawn as empty boxes.
func TestFallbackFont(t *testing.T) {
	const droid = "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"
	for _, p := range []string{droid, dejavu} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("%s is not installed", p)
		}
	}
	f, warn := LoadFont(droid)
	if warn != "" || len(f.fonts) != 2 {
		t.Fatalf("LoadFont(droid): %d fonts, warning %q; want droid and a Latin font", len(f.fonts), warn)
	}
	if has(f.fonts[0], 'a') || !has(f.fonts[0], '中') {
		t.Fatalf("the test's premise: Droid Sans Fallback has 中 and no a")
	}
	m := f.Face(20).(*multiFace)
	if m.pick('a') != m.faces[1] || m.pick('中') != m.faces[0] {
		t.Error("a is not drawn in the Latin font, or 中 not in the CJK one")
	}
}
