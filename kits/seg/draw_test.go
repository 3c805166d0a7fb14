package seg

import (
	"image/color"
	"testing"

	"paddle/core/data"
	"paddle/core/vis"
)

// TestOverlayLegend checks the --draw overlay's legend: each predicted
// class tagged with its name on its colour, the largest class first, in a
// TrueType face (anti-aliased), as `ocr --draw` and `det --draw` draw text.
func TestOverlayLegend(t *testing.T) {
	font, warn := vis.LoadFont("")
	if !font.HasFont() {
		t.Skipf("no TrueType font on this machine (%s)", warn)
	}
	w, h := 200, 120
	img := &data.Image{W: w, H: h, C: 3, Pix: make([]uint8, w*h*3)}
	pred := make([]uint8, w*h)
	for i := range pred {
		if i%w >= 150 { // a quarter is class 2, the rest class 1
			pred[i] = 2
		} else {
			pred[i] = 1
		}
	}
	pal := colorMap(3)
	ov := overlay(img, pred, pal)
	legend(ov, font, pred, pal, []string{"background", "road", "car"})
	step := vis.TagHeight(font.Face(vis.LabelSize(h))) + 2
	tagColour := func(y int) color.RGBA { return ov.RGBAAt(3, y) }
	if got := tagColour(step - 2); got != pal[1].(color.RGBA) {
		t.Errorf("first tag (the largest class, road) colour %v, want %v", got, pal[1])
	}
	if got := tagColour(2*step - 2); got != pal[2].(color.RGBA) {
		t.Errorf("second tag (car) colour %v, want %v", got, pal[2])
	}
	blends := map[color.RGBA]bool{}
	for y := range step {
		for x := range 60 {
			c := ov.RGBAAt(x, y)
			if c != pal[1].(color.RGBA) && c != (color.RGBA{255, 255, 255, 255}) && c != ov.RGBAAt(199, 60) {
				blends[c] = true
			}
		}
	}
	if len(blends) < 5 {
		t.Errorf("%d blended colours in the first tag: want anti-aliased text", len(blends))
	}
}
