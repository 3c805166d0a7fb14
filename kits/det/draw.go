package det

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"

	"paddle/core/data"
	"paddle/core/vis"
)

// classColors cycle over the classes.
var classColors = []color.RGBA{
	{230, 40, 40, 255}, {30, 130, 230, 255}, {30, 170, 60, 255}, {230, 140, 0, 255},
	{160, 50, 210, 255}, {0, 160, 160, 255}, {220, 60, 160, 255}, {120, 120, 0, 255},
}

// drawFile writes the image at src with each detection's box (2 px, one
// colour per class) and a "label score" tag in font (core/vis, the
// rendering of `ocr --draw`) as a PNG at dst.
func drawFile(src, dst string, ds []Detection, font *vis.Font) error {
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
	face := font.Face(vis.LabelSize(img.H))
	for _, d := range ds {
		c := classColors[d.ClassID%len(classColors)]
		b := d.BBox
		for t := range 2 {
			vis.Rect(out, b[0]+t, b[1]+t, b[2]-t, b[3]-t, c)
		}
		vis.Tag(out, face, fmt.Sprintf("%s %.2f", d.Label, d.Score), b[0], b[1], c)
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
