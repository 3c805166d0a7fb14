package dettrain

import (
	"math"

	"paddle/core/imgproc"
)

// Label maps for DB training, as PaddleOCR's MakeBorderMap and MakeShrinkMap
// make them (both from DBNet.pytorch). Polygons are in pixels of the h×w image.

// BorderMapOpts are MakeBorderMap's options.
type BorderMapOpts struct {
	ShrinkRatio float64 `yaml:"shrink_ratio"` // default 0.4
	ThreshMin   float64 `yaml:"thresh_min"`   // default 0.3
	ThreshMax   float64 `yaml:"thresh_max"`   // default 0.7
}

// ShrinkMapOpts are MakeShrinkMap's options.
type ShrinkMapOpts struct {
	ShrinkRatio float64 `yaml:"shrink_ratio"`  // default 0.4
	MinTextSize float64 `yaml:"min_text_size"` // default 8
}

// MakeBorderMap returns the threshold map and its mask (h×w, row-major). For
// each polygon not ignored: pad it by D = area·(1−r²)/perimeter (Clipper round
// offset of the truncated coordinates), set the mask to 1 inside the padded
// polygon, and over the padded polygon's bounding box raise the canvas to
// 1 − min over edges of clip(dist(pixel, edge)/D, 0, 1). dist is DBNet's
// point-to-line distance, which uses the distance to the nearer end point
// whenever the angle the edge subtends at the pixel is acute. Finally the
// canvas maps to thresh_min + canvas·(thresh_max − thresh_min).
func MakeBorderMap(polys [][]imgproc.Point, ignore []bool, h, w int, o BorderMapOpts) (canvas, mask []float32) {
	canvas = make([]float32, h*w)
	mask8 := make([]uint8, h*w)
	for i, p := range polys {
		if ignore[i] {
			continue
		}
		drawBorderMap(p, canvas, mask8, h, w, o.ShrinkRatio)
	}
	mask = make([]float32, h*w)
	lo, span := float32(o.ThreshMin), float32(o.ThreshMax-o.ThreshMin)
	for i := range canvas {
		canvas[i] = canvas[i]*span + lo
		mask[i] = float32(mask8[i])
	}
	return canvas, mask
}

func drawBorderMap(poly []imgproc.Point, canvas []float32, mask []uint8, h, w int, ratio float64) {
	area := imgproc.PolygonArea(poly)
	if area <= 0 {
		return
	}
	dist := area * (1 - ratio*ratio) / imgproc.PolygonLength(poly)
	padded := imgproc.Pad(poly, ratio)
	if len(padded) == 0 {
		return
	}
	pp := padded[0]
	imgproc.FillPoly(mask, w, h, [][]imgproc.IPoint{pp}, 1)
	xmin, xmax, ymin, ymax := pp[0].X, pp[0].X, pp[0].Y, pp[0].Y
	for _, q := range pp {
		xmin, xmax = min(xmin, q.X), max(xmax, q.X)
		ymin, ymax = min(ymin, q.Y), max(ymax, q.Y)
	}
	// The part of the box inside the canvas.
	x0, x1 := min(max(0, xmin), w-1), min(max(0, xmax), w-1)
	y0, y1 := min(max(0, ymin), h-1), min(max(0, ymax), h-1)
	n := len(poly)
	for y := y0; y <= y1; y++ {
		py := float64(y - ymin)
		for x := x0; x <= x1; x++ {
			px := float64(x - xmin)
			d := 1.0
			for k := range n {
				a, b := poly[k], poly[(k+1)%n]
				e := segmentDistance(px, py, a.X-float64(xmin), a.Y-float64(ymin), b.X-float64(xmin), b.Y-float64(ymin))
				d = min(d, min(max(e/dist, 0), 1))
			}
			v := float32(1 - float32(d))
			if i := y*w + x; v > canvas[i] {
				canvas[i] = v
			}
		}
	}
}

// segmentDistance is MakeBorderMap._distance for one pixel (x, y) and edge
// (ax, ay)-(bx, by): the distance to the line, or to the nearer end point
// when cos(angle at the pixel) > 0 (the quantity named cosin there is < 0).
func segmentDistance(x, y, ax, ay, bx, by float64) float64 {
	d1 := (x-ax)*(x-ax) + (y-ay)*(y-ay)
	d2 := (x-bx)*(x-bx) + (y-by)*(y-by)
	d := (ax-bx)*(ax-bx) + (ay-by)*(ay-by)
	cosin := (d - d1 - d2) / (2 * math.Sqrt(d1*d2))
	sin2 := 1 - cosin*cosin
	if math.IsNaN(sin2) {
		sin2 = 0
	} else if math.IsInf(sin2, -1) {
		sin2 = -math.MaxFloat64
	}
	if cosin < 0 {
		return math.Sqrt(min(d1, d2))
	}
	r := math.Sqrt(d1 * d2 * sin2 / d)
	if math.IsNaN(r) {
		return 0
	}
	return r
}

// ValidatePolygons is MakeShrinkMap.validate_polygons: clamp each point to
// the image, mark polygons of |area| < 1 ignored, and reverse those with
// positive shoelace area (in place).
func ValidatePolygons(polys [][]imgproc.Point, ignore []bool, h, w int) {
	for i, p := range polys {
		for j := range p {
			p[j].X = min(max(p[j].X, 0), float64(w-1))
			p[j].Y = min(max(p[j].Y, 0), float64(h-1))
		}
		var area float64
		q := p[len(p)-1]
		for _, c := range p {
			area += c.X*q.Y - c.Y*q.X
			q = c
		}
		area /= 2
		if math.Abs(area) < 1 {
			ignore[i] = true
		}
		if area > 0 {
			for a, b := 0, len(p)-1; a < b; a, b = a+1, b-1 {
				p[a], p[b] = p[b], p[a]
			}
		}
	}
}

// MakeShrinkMap returns the shrink (probability target) map and its mask
// (h×w). Polygons are validated first (ValidatePolygons). An ignored polygon,
// or one whose bounding box is under min_text_size on a side, or whose shrink
// is empty, is zeroed in the mask and marked ignored; the others are shrunk by
// D = area·(1−r²)/perimeter (r = shrink_ratio, then 2·shrink_ratio if the first
// does not give one polygon, as PaddleOCR's possible_ratios loop) and filled
// with 1. Polygon points are truncated to integers for filling, as astype(int32).
func MakeShrinkMap(polys [][]imgproc.Point, ignore []bool, h, w int, o ShrinkMapOpts) (gt, mask []float32) {
	ValidatePolygons(polys, ignore, h, w)
	gt8 := make([]uint8, h*w)
	mask8 := make([]uint8, h*w)
	for i := range mask8 {
		mask8[i] = 1
	}
	for i, p := range polys {
		x0, x1, y0, y1 := p[0].X, p[0].X, p[0].Y, p[0].Y
		for _, q := range p {
			x0, x1 = min(x0, q.X), max(x1, q.X)
			y0, y1 = min(y0, q.Y), max(y1, q.Y)
		}
		if ignore[i] || min(y1-y0, x1-x0) < o.MinTextSize {
			imgproc.FillPoly(mask8, w, h, [][]imgproc.IPoint{truncate(p)}, 0)
			ignore[i] = true
			continue
		}
		var shrunk [][]imgproc.IPoint
		for r := o.ShrinkRatio; r < 1; r += o.ShrinkRatio {
			if shrunk = imgproc.Shrink(p, r); len(shrunk) == 1 {
				break
			}
		}
		if len(shrunk) == 0 {
			imgproc.FillPoly(mask8, w, h, [][]imgproc.IPoint{truncate(p)}, 0)
			ignore[i] = true
			continue
		}
		for _, s := range shrunk {
			imgproc.FillPoly(gt8, w, h, [][]imgproc.IPoint{s}, 1)
		}
	}
	gt, mask = make([]float32, h*w), make([]float32, h*w)
	for i := range gt8 {
		gt[i], mask[i] = float32(gt8[i]), float32(mask8[i])
	}
	return gt, mask
}

// truncate is astype(np.int32) of a float polygon.
func truncate(p []imgproc.Point) []imgproc.IPoint {
	out := make([]imgproc.IPoint, len(p))
	for i, q := range p {
		out[i] = imgproc.IPoint{X: int(q.X), Y: int(q.Y)}
	}
	return out
}
