package det

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"paddle/core/data"
)

// classColors cycle over the classes.
var classColors = []color.RGBA{
	{230, 40, 40, 255}, {30, 130, 230, 255}, {30, 170, 60, 255}, {230, 140, 0, 255},
	{160, 50, 210, 255}, {0, 160, 160, 255}, {220, 60, 160, 255}, {120, 120, 0, 255},
}

// drawFile writes the image at src with each detection's box (2 px, one
// colour per class) and a "label score" tag as a PNG at dst.
func drawFile(src, dst string, ds []Detection) error {
	img, err := data.DecodeFile(src, data.RGB)
	if err != nil {
		return err
	}
	out := image.NewRGBA(image.Rect(0, 0, img.W, img.H))
	for y := range img.H {
		for x := range img.W {
			i := (y*img.W + x) * img.C
			if img.C >= 3 {
				out.SetRGBA(x, y, color.RGBA{img.Pix[i], img.Pix[i+1], img.Pix[i+2], 255})
			} else {
				out.SetRGBA(x, y, color.RGBA{img.Pix[i], img.Pix[i], img.Pix[i], 255})
			}
		}
	}
	face := basicfont.Face7x13
	for _, d := range ds {
		c := classColors[d.ClassID%len(classColors)]
		b := d.BBox
		for t := range 2 {
			rect(out, b[0]+t, b[1]+t, b[2]-t, b[3]-t, c)
		}
		tag := fmt.Sprintf("%s %.2f", d.Label, d.Score)
		tw := font.MeasureString(face, tag).Ceil()
		ty := max(b[1], 13)
		draw.Draw(out, image.Rect(b[0], ty-13, b[0]+tw+4, ty), &image.Uniform{c}, image.Point{}, draw.Src)
		dr := &font.Drawer{Dst: out, Src: image.White, Face: face, Dot: fixed.P(b[0]+2, ty-3)}
		dr.DrawString(tag)
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	if err := png.Encode(f, out); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", dst, err)
	}
	return f.Close()
}

// rect draws a 1-px rectangle outline, clipped to the image.
func rect(img *image.RGBA, x1, y1, x2, y2 int, c color.RGBA) {
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
