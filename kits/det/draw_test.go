package det

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"paddle/core/vis"
)

// TestDrawTrueType draws one detection and checks the box outline in its
// class colour and the tag in a TrueType face (anti-aliased text), the
// rendering `ocr --draw` uses.
func TestDrawTrueType(t *testing.T) {
	font, warn := vis.LoadFont("")
	if !font.HasFont() {
		t.Skipf("no TrueType font on this machine (%s)", warn)
	}
	src := filepath.Join("..", "ocr", "testdata", "images", "photo.png")
	dst := filepath.Join(t.TempDir(), "out.png")
	d := Detection{Label: "cat", ClassID: 1, Score: 0.9, BBox: [4]int{60, 80, 200, 220}}
	if err := drawFile(src, dst, []Detection{d}, font); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	m, err := png.Decode(fh)
	if err != nil {
		t.Fatal(err)
	}
	c := classColors[1]
	for _, p := range []image.Point{{60, 150}, {61, 150}, {200, 150}, {130, 220}} {
		if got := color.RGBAModel.Convert(m.At(p.X, p.Y)).(color.RGBA); got != c {
			t.Errorf("box outline at %v = %v, want the class colour %v", p, got, c)
		}
	}
	// The tag sits above the box's top-left corner: the class colour, white
	// text, and the blends between them that only an anti-aliased face makes.
	blends := map[color.RGBA]bool{}
	for y := 80 - vis.LabelSize(m.Bounds().Dy()); y < 80; y++ {
		for x := 60; x < 110; x++ {
			got := color.RGBAModel.Convert(m.At(x, y)).(color.RGBA)
			if got != c && got != (color.RGBA{255, 255, 255, 255}) {
				blends[got] = true
			}
		}
	}
	if len(blends) < 5 {
		t.Errorf("%d blended colours in the tag: want anti-aliased TrueType text", len(blends))
	}
}
