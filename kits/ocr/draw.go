package ocr

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"os"
	"strconv"
	"strings"

	"golang.org/x/image/font/basicfont"

	"paddle/core/imgproc"
	"paddle/core/vis"
)

// Drawer renders OCR results: the image with numbered boxes on the left, the
// recognised texts at the boxes' places on a white panel on the right (like
// PaddleOCR's draw_ocr_box_txt). Safe for concurrent use.
type Drawer struct {
	font *vis.Font
}

// NewDrawer loads the font at path, or the first system font found when path is
// empty (core/vis). Without a usable font it still draws boxes and numbers and
// returns a warning.
func NewDrawer(path string) (*Drawer, string) {
	f, warn := vis.LoadFont(path)
	if warn != "" {
		warn = strings.Replace(warn, "texts are drawn in a bitmap font", "texts are not drawn", 1)
	}
	return &Drawer{font: f}, warn
}

// boxColors cycle over the boxes.
var boxColors = []color.RGBA{
	{220, 40, 40, 255}, {30, 130, 220, 255}, {30, 160, 60, 255}, {200, 120, 0, 255},
	{150, 50, 200, 255}, {0, 150, 150, 255},
}

// Save writes the annotated PNG for a BGR image and its results to path.
func (d *Drawer) Save(path string, img imgproc.Mat8, res []Result) error {
	w, h := img.W, img.H
	out := image.NewRGBA(image.Rect(0, 0, 2*w, h))
	draw.Draw(out, out.Bounds(), image.White, image.Point{}, draw.Src)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := (y*w + x) * img.C
			if img.C >= 3 {
				out.SetRGBA(x, y, color.RGBA{img.Pix[i+2], img.Pix[i+1], img.Pix[i], 255})
			} else {
				out.SetRGBA(x, y, color.RGBA{img.Pix[i], img.Pix[i], img.Pix[i], 255})
			}
		}
	}
	for n, r := range res {
		c := boxColors[n%len(boxColors)]
		for k := 0; k < 4; k++ {
			a, b := r.Box[k], r.Box[(k+1)%4]
			line(out, a, b, c, 0)
			line(out, a, b, c, w)
		}
		label := strconv.Itoa(n + 1)
		vis.Text(out, basicfont.Face7x13, label, int(r.Box[0].X)+2, int(r.Box[0].Y)-2, c)
		if d.font.HasFont() && r.Text != "" {
			bh := math.Hypot(r.Box[3].X-r.Box[0].X, r.Box[3].Y-r.Box[0].Y)
			size := max(10, int(bh*0.8))
			x := w + int(r.Box[0].X) + 3
			y := int(r.Box[0].Y) + int(math.Min(bh, float64(size))*0.9)
			vis.Text(out, d.font.Face(size), label+" "+r.Text, x, y, color.RGBA{0, 0, 0, 255})
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, out); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// line draws a 2-px line from a to b shifted right by dx.
func line(img *image.RGBA, a, b imgproc.Point, c color.RGBA, dx int) {
	steps := int(math.Max(math.Abs(b.X-a.X), math.Abs(b.Y-a.Y))) + 1
	for i := 0; i <= steps; i++ {
		t := float64(i) / float64(steps)
		x := int(math.Round(a.X+(b.X-a.X)*t)) + dx
		y := int(math.Round(a.Y + (b.Y-a.Y)*t))
		for _, o := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
			if image.Pt(x+o[0], y+o[1]).In(img.Rect) {
				img.SetRGBA(x+o[0], y+o[1], c)
			}
		}
	}
}
