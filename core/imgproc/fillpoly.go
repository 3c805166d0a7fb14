package imgproc

import (
	"math"
	"sort"
)

const (
	xyShift = 16
	xyOne   = 1 << xyShift
)

// polyEdge is one non-horizontal polygon edge in 16.16 fixed point, as OpenCV's
// CollectPolyEdges stores it.
type polyEdge struct {
	y0, y1 int
	x, dx  int64
	next   *polyEdge
}

// FillPoly fills the polygons pts (integer vertices) into the single-channel w×h mask
// with value v, as cv2.fillPoly(mask, pts, v) does with lineType LINE_8 and shift 0:
// each outline is first drawn with 8-connected Bresenham lines, then the inside is filled
// scanline by scanline (even-odd over all polygons), with the bottom row of each edge
// excluded and pixel centres between ceil(left) and floor(right) set.
func FillPoly(mask []uint8, w, h int, pts [][]IPoint, v uint8) {
	var edges []polyEdge
	for _, p := range pts {
		edges = collectPolyEdges(mask, w, h, p, v, edges)
	}
	fillEdgeCollection(mask, w, h, edges, v)
}

func collectPolyEdges(mask []uint8, w, h int, v []IPoint, color uint8, edges []polyEdge) []polyEdge {
	n := len(v)
	if n == 0 {
		return edges
	}
	p0x, p0y := int64(v[n-1].X)<<xyShift, int64(v[n-1].Y)
	for i := 0; i < n; i++ {
		p1x, p1y := int64(v[i].X)<<xyShift, int64(v[i].Y)
		t0 := [2]int64{(p0x + xyOne/2) >> xyShift, p0y}
		t1 := [2]int64{(p1x + xyOne/2) >> xyShift, p1y}
		drawLine8(mask, w, h, t0, t1, color)
		if p0y != p1y {
			var e polyEdge
			if p0y < p1y {
				e.y0, e.y1, e.x = int(p0y), int(p1y), p0x
			} else {
				e.y0, e.y1, e.x = int(p1y), int(p0y), p1x
			}
			e.dx = (p1x - p0x) / (p1y - p0y) // C division: truncates toward zero
			edges = append(edges, e)
		}
		p0x, p0y = p1x, p1y
	}
	return edges
}

// drawLine8 draws the 8-connected line of cv::LineIterator (left to right, clipped).
func drawLine8(mask []uint8, w, h int, p1, p2 [2]int64, color uint8) {
	if p1[0] < 0 || p1[0] >= int64(w) || p2[0] < 0 || p2[0] >= int64(w) ||
		p1[1] < 0 || p1[1] >= int64(h) || p2[1] < 0 || p2[1] >= int64(h) {
		if !clipLine(int64(w), int64(h), &p1, &p2) {
			return
		}
	}
	dx, dy := p2[0]-p1[0], p2[1]-p1[1]
	if dx < 0 { // leftToRight
		dx, dy = -dx, -dy
		p1, p2 = p2, p1
	}
	sx, sy := int64(1), int64(1)
	if dy < 0 {
		dy, sy = -dy, -1
	}
	vert := dy > dx
	if vert {
		dx, dy = dy, dx
	}
	err := dx - (dy + dy)
	plusDelta, minusDelta := dx+dx, -(dy + dy)
	// minor axis step taken when err < 0; major axis step always
	x, y := p1[0], p1[1]
	for i := int64(0); i <= dx; i++ {
		mask[y*int64(w)+x] = color
		if err < 0 {
			err += minusDelta + plusDelta
			x += sx
			y += sy
		} else {
			err += minusDelta
			if vert {
				y += sy
			} else {
				x += sx
			}
		}
	}
}

// clipLine is cv::clipLine: clip the segment to [0,w-1]×[0,h-1]; false if nothing is left.
func clipLine(w, h int64, p1, p2 *[2]int64) bool {
	right, bottom := w-1, h-1
	if w <= 0 || h <= 0 {
		return false
	}
	x1, y1, x2, y2 := &p1[0], &p1[1], &p2[0], &p2[1]
	code := func(x, y int64) int {
		c := 0
		if x < 0 {
			c |= 1
		}
		if x > right {
			c |= 2
		}
		if y < 0 {
			c |= 4
		}
		if y > bottom {
			c |= 8
		}
		return c
	}
	c1, c2 := code(*x1, *y1), code(*x2, *y2)
	if c1&c2 == 0 && c1|c2 != 0 {
		if c1&12 != 0 {
			a := bottom
			if c1 < 8 {
				a = 0
			}
			*x1 += int64(float64(a-*y1) * float64(*x2-*x1) / float64(*y2-*y1))
			*y1 = a
			c1 = code(*x1, *y1) & 3
		}
		if c2&12 != 0 {
			a := bottom
			if c2 < 8 {
				a = 0
			}
			*x2 += int64(float64(a-*y2) * float64(*x2-*x1) / float64(*y2-*y1))
			*y2 = a
			c2 = code(*x2, *y2) & 3
		}
		if c1&c2 == 0 && c1|c2 != 0 {
			if c1 != 0 {
				a := right
				if c1 == 1 {
					a = 0
				}
				*y1 += int64(float64(a-*x1) * float64(*y2-*y1) / float64(*x2-*x1))
				*x1 = a
				c1 = 0
			}
			if c2 != 0 {
				a := right
				if c2 == 1 {
					a = 0
				}
				*y2 += int64(float64(a-*x2) * float64(*y2-*y1) / float64(*x2-*x1))
				*x2 = a
				c2 = 0
			}
		}
	}
	return c1|c2 == 0
}

func fillEdgeCollection(mask []uint8, w, h int, edges []polyEdge, color uint8) {
	total := len(edges)
	if total < 2 {
		return
	}
	yMax, yMin := math.MinInt, math.MaxInt
	xMax, xMin := int64(-1), int64(math.MaxInt64)
	for i := range edges {
		e := &edges[i]
		x1 := e.x + int64(e.y1-e.y0)*e.dx
		yMin, yMax = min(yMin, e.y0), max(yMax, e.y1)
		xMin, xMax = min(xMin, e.x, x1), max(xMax, e.x, x1)
	}
	if yMax < 0 || yMin >= h || xMax < 0 || xMin >= int64(w)<<xyShift {
		return
	}
	sort.Slice(edges, func(i, j int) bool {
		a, b := &edges[i], &edges[j]
		if a.y0 != b.y0 {
			return a.y0 < b.y0
		}
		if a.x != b.x {
			return a.x < b.x
		}
		return a.dx < b.dx
	})
	edges = append(edges, polyEdge{y0: math.MaxInt})
	var tmp polyEdge
	i := 0
	e := &edges[0]
	yMax = min(yMax, h)
	for y := e.y0; y < yMax; y++ {
		draw := false
		clip := y < 0
		prelast := &tmp
		last := tmp.next
		for last != nil || e.y0 == y {
			if last != nil && last.y1 == y { // edge ends at this row: drop it
				prelast.next = last.next
				last = last.next
				continue
			}
			keep := prelast
			if last != nil && (e.y0 > y || last.x < e.x) {
				prelast = last
				last = last.next
			} else if i < total {
				prelast.next = e
				e.next = last
				prelast = e
				i++
				e = &edges[i]
			} else {
				break
			}
			if draw {
				if !clip {
					var x1, x2 int
					if keep.x > prelast.x {
						x1 = int((prelast.x + xyOne - 1) >> xyShift)
						x2 = int(keep.x >> xyShift)
					} else {
						x1 = int((keep.x + xyOne - 1) >> xyShift)
						x2 = int(prelast.x >> xyShift)
					}
					if x1 < w && x2 >= 0 {
						x1 = max(x1, 0)
						x2 = min(x2, w-1)
						row := mask[y*w : y*w+w]
						for x := x1; x <= x2; x++ {
							row[x] = color
						}
					}
				}
				keep.x += keep.dx
				prelast.x += prelast.dx
			}
			draw = !draw
		}
		// bubble-sort the active list by x
		var keepPre *polyEdge
		sortFlag := false
		for {
			prelast = &tmp
			last = tmp.next
			for last != keepPre && last.next != nil {
				te := last.next
				if last.x > te.x {
					prelast.next = te
					last.next = te.next
					te.next = last
					prelast = te
					sortFlag = true
				} else {
					prelast = last
					last = te
				}
			}
			keepPre = prelast
			if !(sortFlag && keepPre != tmp.next && keepPre != &tmp) {
				break
			}
		}
	}
}

// BoxScoreFast is PaddleOCR's DBPostProcess.box_score_fast: the mean of pred over the
// quad box, where the quad is rasterised by FillPoly after shifting it into its
// floor/ceil bounding box (clipped to the map) and truncating to int32, and the mean is
// cv2.mean's: a float64 sum in row order times 1/count.
func BoxScoreFast(pred MatF, box [4]Point) float64 {
	h, w := pred.H, pred.W
	minX, maxX := math.Min(math.Min(box[0].X, box[1].X), math.Min(box[2].X, box[3].X)), math.Max(math.Max(box[0].X, box[1].X), math.Max(box[2].X, box[3].X))
	minY, maxY := math.Min(math.Min(box[0].Y, box[1].Y), math.Min(box[2].Y, box[3].Y)), math.Max(math.Max(box[0].Y, box[1].Y), math.Max(box[2].Y, box[3].Y))
	xmin := clampInt(int(math.Floor(minX)), 0, w-1)
	xmax := clampInt(int(math.Ceil(maxX)), 0, w-1)
	ymin := clampInt(int(math.Floor(minY)), 0, h-1)
	ymax := clampInt(int(math.Ceil(maxY)), 0, h-1)
	var q [4]IPoint
	for i, p := range box {
		// box is float32 in PaddleOCR, so the shifted value is rounded to float32 too
		q[i] = IPoint{int(float32(p.X) - float32(xmin)), int(float32(p.Y) - float32(ymin))}
	}
	return maskedMean(pred, xmin, ymin, xmax-xmin+1, ymax-ymin+1, q[:])
}

// maskedMean is cv2.mean(pred[ymin:ymin+mh, xmin:xmin+mw], mask) with mask = the polygon
// poly filled by FillPoly: a float64 sum in row order times 1/count (0 if empty).
func maskedMean(pred MatF, xmin, ymin, mw, mh int, poly []IPoint) float64 {
	mask := make([]uint8, mw*mh)
	FillPoly(mask, mw, mh, [][]IPoint{poly}, 1)
	var sum float64
	n := 0
	for y := 0; y < mh; y++ {
		row := pred.Pix[(ymin+y)*pred.W+xmin : (ymin+y)*pred.W+xmin+mw]
		mrow := mask[y*mw : y*mw+mw]
		for x, m := range mrow {
			if m != 0 {
				sum += float64(row[x])
				n++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return sum * (1 / float64(n))
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// BoxScoreSlow is PaddleOCR's DBPostProcess.box_score_slow: the mean of pred inside the
// contour polygon itself (FillPoly of the contour shifted into its clipped bounding box).
func BoxScoreSlow(pred MatF, contour []IPoint) float64 {
	if len(contour) == 0 {
		return 0
	}
	h, w := pred.H, pred.W
	minX, maxX, minY, maxY := contour[0].X, contour[0].X, contour[0].Y, contour[0].Y
	for _, p := range contour[1:] {
		minX, maxX = min(minX, p.X), max(maxX, p.X)
		minY, maxY = min(minY, p.Y), max(maxY, p.Y)
	}
	xmin, xmax := clampInt(minX, 0, w-1), clampInt(maxX, 0, w-1)
	ymin, ymax := clampInt(minY, 0, h-1), clampInt(maxY, 0, h-1)
	shifted := make([]IPoint, len(contour))
	for i, p := range contour {
		shifted[i] = IPoint{p.X - xmin, p.Y - ymin}
	}
	return maskedMean(pred, xmin, ymin, xmax-xmin+1, ymax-ymin+1, shifted)
}
