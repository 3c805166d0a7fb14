package dettrain

import (
	"math"
	"math/rand/v2"

	"paddle/core/imgproc"
)

// Geometric augmentation for detection pages: PaddleOCR's IaaAugment (imgaug
// Fliplr, Affine rotate, Resize) and EastRandomCropData. Polygons move with
// the pixels.

// flipLR mirrors the image; x becomes w − x (imgaug's keypoint rule).
func flipLR(img imgproc.Mat8, polys [][]imgproc.Point) imgproc.Mat8 {
	out := imgproc.NewMat8(img.H, img.W, img.C)
	c := img.C
	for y := range img.H {
		row := img.Pix[y*img.W*c : (y+1)*img.W*c]
		dst := out.Pix[y*img.W*c : (y+1)*img.W*c]
		for x := range img.W {
			copy(dst[(img.W-1-x)*c:(img.W-x)*c], row[x*c:(x+1)*c])
		}
	}
	for _, p := range polys {
		for j := range p {
			p[j].X = float64(img.W) - p[j].X
		}
	}
	return out
}

// rotate turns the image by deg degrees about its centre (w/2 − 0.5, h/2 − 0.5),
// keeping its size, with bilinear sampling and black outside (imgaug Affine's
// defaults: order 1, mode constant, cval 0).
func rotate(img imgproc.Mat8, polys [][]imgproc.Point, deg float64) imgproc.Mat8 {
	a := deg * math.Pi / 180
	cs, sn := math.Cos(a), math.Sin(a)
	cx, cy := float64(img.W)/2-0.5, float64(img.H)/2-0.5
	out := imgproc.NewMat8(img.H, img.W, img.C)
	c := img.C
	for y := range img.H {
		for x := range img.W {
			// inverse map: rotate the output pixel back by −a
			dx, dy := float64(x)-cx, float64(y)-cy
			sx, sy := cs*dx+sn*dy+cx, -sn*dx+cs*dy+cy
			x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
			fx, fy := sx-float64(x0), sy-float64(y0)
			for ch := range c {
				var v float64
				for k := range 4 {
					xx, yy := x0+k%2, y0+k/2
					if xx < 0 || yy < 0 || xx >= img.W || yy >= img.H {
						continue
					}
					wx, wy := 1-fx, 1-fy
					if k%2 == 1 {
						wx = fx
					}
					if k/2 == 1 {
						wy = fy
					}
					v += wx * wy * float64(img.Pix[(yy*img.W+xx)*c+ch])
				}
				out.Pix[(y*img.W+x)*c+ch] = uint8(min(max(math.Round(v), 0), 255))
			}
		}
	}
	for _, p := range polys {
		for j := range p {
			dx, dy := p[j].X-cx, p[j].Y-cy
			p[j].X, p[j].Y = cs*dx-sn*dy+cx, sn*dx+cs*dy+cy
		}
	}
	return out
}

// scaleImage resizes by s (both sides, rounded) with bilinear interpolation.
func scaleImage(img imgproc.Mat8, polys [][]imgproc.Point, s float64) imgproc.Mat8 {
	w, h := max(int(math.Round(float64(img.W)*s)), 1), max(int(math.Round(float64(img.H)*s)), 1)
	sx, sy := float64(w)/float64(img.W), float64(h)/float64(img.H)
	for _, p := range polys {
		for j := range p {
			p[j].X *= sx
			p[j].Y *= sy
		}
	}
	return imgproc.ResizeLinear(img, w, h)
}

// IaaArg is one augmenter of IaaAugment's augmenter_args.
type IaaArg struct {
	Type string         `yaml:"type"` // Fliplr | Affine | Resize
	Args map[string]any `yaml:"args"`
}

// iaa is a parsed augmenter.
type iaa struct {
	kind   string
	p      float64 // Fliplr
	lo, hi float64 // Affine rotate range (degrees) or Resize factor range
}

// defaultIaa is IaaAugment's default list.
var defaultIaa = []iaa{{kind: "Fliplr", p: 0.5}, {kind: "Affine", lo: -10, hi: 10}, {kind: "Resize", lo: 0.5, hi: 3}}

func applyIaa(augs []iaa, img imgproc.Mat8, polys [][]imgproc.Point, r *rand.Rand) imgproc.Mat8 {
	for _, a := range augs {
		switch a.kind {
		case "Fliplr":
			if r.Float64() < a.p {
				img = flipLR(img, polys)
			}
		case "Affine":
			if d := a.lo + (a.hi-a.lo)*r.Float64(); d != 0 {
				img = rotate(img, polys, d)
			}
		case "Resize":
			img = scaleImage(img, polys, a.lo+(a.hi-a.lo)*r.Float64())
		}
	}
	return img
}

// CropOpts are EastRandomCropData's options.
type CropOpts struct {
	Size             []int   `yaml:"size"`      // [w, h], default [640, 640]
	MaxTries         int     `yaml:"max_tries"` // default 10
	MinCropSideRatio float64 `yaml:"min_crop_side_ratio"`
	KeepRatio        *bool   `yaml:"keep_ratio"` // default true
}

// cropArea is EastRandomCropData's crop_area: a random rectangle whose sides
// avoid the rows and columns the care polygons span, containing at least one
// polygon partly, within max_tries; else the whole image.
func cropArea(w, h int, polys [][]imgproc.Point, minRatio float64, tries int, r *rand.Rand) (x, y, cw, ch int) {
	hArr, wArr := make([]bool, h), make([]bool, w)
	for _, p := range polys {
		x0, x1 := math.Inf(1), math.Inf(-1)
		y0, y1 := math.Inf(1), math.Inf(-1)
		for _, q := range p {
			x0, x1 = min(x0, math.RoundToEven(q.X)), max(x1, math.RoundToEven(q.X))
			y0, y1 = min(y0, math.RoundToEven(q.Y)), max(y1, math.RoundToEven(q.Y))
		}
		for i := max(int(x0), 0); i < min(int(x1), w); i++ {
			wArr[i] = true
		}
		for i := max(int(y0), 0); i < min(int(y1), h); i++ {
			hArr[i] = true
		}
	}
	hAxis, wAxis := freeAxis(hArr), freeAxis(wArr)
	if len(hAxis) == 0 || len(wAxis) == 0 {
		return 0, 0, w, h
	}
	hReg, wReg := splitRegions(hAxis), splitRegions(wAxis)
	for range tries {
		xmin, xmax := selectRange(wAxis, wReg, w, r)
		ymin, ymax := selectRange(hAxis, hReg, h, r)
		if float64(xmax-xmin) < minRatio*float64(w) || float64(ymax-ymin) < minRatio*float64(h) {
			continue
		}
		for _, p := range polys {
			if !outsideRect(p, float64(xmin), float64(ymin), float64(xmax-xmin), float64(ymax-ymin)) {
				return xmin, ymin, xmax - xmin, ymax - ymin
			}
		}
	}
	return 0, 0, w, h
}

func freeAxis(used []bool) []int {
	var out []int
	for i, u := range used {
		if !u {
			out = append(out, i)
		}
	}
	return out
}

// splitRegions cuts a sorted axis into runs of consecutive values; as
// PaddleOCR's split_regions, the last run is not included.
func splitRegions(axis []int) [][]int {
	var regs [][]int
	start := 0
	for i := 1; i < len(axis); i++ {
		if axis[i] != axis[i-1]+1 {
			regs = append(regs, axis[start:i])
			start = i
		}
	}
	return regs
}

func selectRange(axis []int, regs [][]int, size int, r *rand.Rand) (lo, hi int) {
	var a, b int
	if len(regs) > 1 {
		ra, rb := regs[r.IntN(len(regs))], regs[r.IntN(len(regs))]
		a, b = ra[r.IntN(len(ra))], rb[r.IntN(len(rb))]
	} else {
		a, b = axis[r.IntN(len(axis))], axis[r.IntN(len(axis))]
	}
	lo, hi = min(a, b), max(a, b)
	return min(max(lo, 0), size-1), min(max(hi, 0), size-1)
}

// outsideRect is is_poly_outside_rect.
func outsideRect(p []imgproc.Point, x, y, w, h float64) bool {
	x0, x1, y0, y1 := p[0].X, p[0].X, p[0].Y, p[0].Y
	for _, q := range p {
		x0, x1 = min(x0, q.X), max(x1, q.X)
		y0, y1 = min(y0, q.Y), max(y1, q.Y)
	}
	return x1 < x || x0 > x+w || y1 < y || y0 > y+h
}

// eastRandomCrop crops s to a random text-respecting area, scales it to fit
// size (keep_ratio: pasted top-left on a black size[1]×size[0] canvas) and
// keeps the polygons not wholly outside the scaled crop.
func eastRandomCrop(s *Sample, o CropOpts, r *rand.Rand) {
	var care [][]imgproc.Point
	for i, p := range s.Polys {
		if !s.Ignore[i] {
			care = append(care, p)
		}
	}
	cx, cy, cw, ch := cropArea(s.Image.W, s.Image.H, care, o.MinCropSideRatio, o.MaxTries, r)
	sw, sh := o.Size[0], o.Size[1]
	scale := min(float64(sw)/float64(cw), float64(sh)/float64(ch))
	h, w := int(float64(ch)*scale), int(float64(cw)*scale)
	crop := imgproc.NewMat8(ch, cw, s.Image.C)
	c := s.Image.C
	for y := range ch {
		copy(crop.Pix[y*cw*c:(y+1)*cw*c], s.Image.Pix[((cy+y)*s.Image.W+cx)*c:((cy+y)*s.Image.W+cx+cw)*c])
	}
	if o.KeepRatio == nil || *o.KeepRatio {
		pad := imgproc.NewMat8(sh, sw, c)
		rs := imgproc.ResizeLinear(crop, max(w, 1), max(h, 1))
		for y := range rs.H {
			copy(pad.Pix[y*sw*c:], rs.Pix[y*rs.W*c:(y+1)*rs.W*c])
		}
		s.Image = pad
	} else {
		s.Image = imgproc.ResizeLinear(crop, sw, sh)
	}
	var polys [][]imgproc.Point
	var ignore []bool
	for i, p := range s.Polys {
		q := make([]imgproc.Point, len(p))
		for j, pt := range p {
			q[j] = imgproc.Point{X: (pt.X - float64(cx)) * scale, Y: (pt.Y - float64(cy)) * scale}
		}
		if !outsideRect(q, 0, 0, float64(w), float64(h)) {
			polys = append(polys, q)
			ignore = append(ignore, s.Ignore[i])
		}
	}
	s.Polys, s.Ignore = polys, ignore
}
