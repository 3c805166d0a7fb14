package dettrain

import (
	"math"

	"paddle/core/imgproc"
	"paddle/core/metric"
)

// DetMetric is PaddleOCR's DetMetric: DetectionIoUEvaluator (from MhLiao/DB's
// ICDAR 2015 evaluation) with iou_constraint 0.5 and area_precision_constraint
// 0.5, summed over images. Per image: GT polygons that are not valid simple
// polygons are dropped, and so are such detections; a detection covering more
// than half its own area with one don't-care GT (checked in GT order) is
// don't-care; then GTs (outer loop) and detections (inner loop) are matched
// greedily one to one when neither is matched or don't-care and IoU > 0.5.
// precision = matched / care detections, recall = matched / care GTs.
type DetMetric struct {
	Main                     string
	gtCare, detCare, matched int
	images                   int
}

// Reset clears the counts.
func (m *DetMetric) Reset() { m.gtCare, m.detCare, m.matched, m.images = 0, 0, 0, 0 }

// Update adds one image: its GT polygons with their don't-care flags, and the detected polygons.
func (m *DetMetric) Update(gt [][]imgproc.Point, ignore []bool, det [][]imgproc.Point) {
	g, d, k := EvaluateImage(gt, ignore, det)
	m.gtCare += g
	m.detCare += d
	m.matched += k
	m.images++
}

// Result returns precision, recall and hmean (main), 0 when undefined, as combine_results.
func (m *DetMetric) Result() metric.Report {
	var p, r, h float64
	if m.gtCare > 0 {
		r = float64(m.matched) / float64(m.gtCare)
	}
	if m.detCare > 0 {
		p = float64(m.matched) / float64(m.detCare)
	}
	if p+r > 0 {
		h = 2 * r * p / (r + p)
	}
	main := m.Main
	if main == "" {
		main = "hmean"
	}
	return metric.Report{Main: main, Values: map[string]float64{"precision": p, "recall": r, "hmean": h}, Count: m.images}
}

// EvaluateImage is DetectionIoUEvaluator.evaluate_image: it returns the
// number of care GTs, care detections and matched pairs of one image.
func EvaluateImage(gt [][]imgproc.Point, ignore []bool, det [][]imgproc.Point) (gtCare, detCare, matched int) {
	var gts [][]imgproc.Point
	var dontCare []int
	for i, p := range gt {
		if !ValidPolygon(p) {
			continue
		}
		gts = append(gts, p)
		if ignore[i] {
			dontCare = append(dontCare, len(gts)-1)
		}
	}
	var dets [][]imgproc.Point
	detDontCare := map[int]bool{}
	for _, p := range det {
		if !ValidPolygon(p) {
			continue
		}
		dets = append(dets, p)
		for _, gi := range dontCare {
			inter := IntersectionArea(gts[gi], p)
			area := imgproc.PolygonArea(p)
			prec := 0.0
			if area != 0 {
				prec = inter / area
			}
			if prec > 0.5 {
				detDontCare[len(dets)-1] = true
				break
			}
		}
	}
	gtDontCare := map[int]bool{}
	for _, gi := range dontCare {
		gtDontCare[gi] = true
	}
	if len(gts) > 0 && len(dets) > 0 {
		gtUsed := make([]bool, len(gts))
		detUsed := make([]bool, len(dets))
		for gi := range gts {
			for di := range dets {
				if gtUsed[gi] || detUsed[di] || gtDontCare[gi] || detDontCare[di] {
					continue
				}
				if IoU(dets[di], gts[gi]) > 0.5 {
					gtUsed[gi], detUsed[di] = true, true
					matched++
				}
			}
		}
	}
	return len(gts) - len(dontCare), len(dets) - len(detDontCare), matched
}

// IoU is intersection area / union area of two valid polygons (shapely's
// Polygon(a).intersection(Polygon(b)).area / ….union(…).area).
func IoU(a, b []imgproc.Point) float64 {
	inter := IntersectionArea(a, b)
	union := imgproc.PolygonArea(a) + imgproc.PolygonArea(b) - inter
	if union <= 0 {
		return 0
	}
	return inter / union
}

// ValidPolygon reports whether p is what shapely calls a valid simple
// polygon: at least 3 points, non-zero area, and no two edges meeting except
// adjacent ones at their shared vertex.
func ValidPolygon(p []imgproc.Point) bool {
	n := len(p)
	if n < 3 || imgproc.PolygonArea(p) == 0 {
		return false
	}
	for i := range n {
		a, b := p[i], p[(i+1)%n]
		if a == b {
			return false // a repeated point: shapely drops it, but a box with one is degenerate here
		}
		for j := i + 1; j < n; j++ {
			c, d := p[j], p[(j+1)%n]
			switch {
			case j == i+1: // b == c: adjacent, must not fold back
				if collinearOverlap(a, b, d) {
					return false
				}
			case i == 0 && j == n-1: // d == a
				if collinearOverlap(c, a, b) {
					return false
				}
			default:
				if segmentsTouch(a, b, c, d) {
					return false
				}
			}
		}
	}
	return true
}

func cross(o, a, b imgproc.Point) float64 { return (a.X-o.X)*(b.Y-o.Y) - (a.Y-o.Y)*(b.X-o.X) }

// collinearOverlap reports whether the edges a-b and b-c overlap (c folds back along a-b).
func collinearOverlap(a, b, c imgproc.Point) bool {
	if cross(a, b, c) != 0 {
		return false
	}
	return (b.X-a.X)*(c.X-b.X)+(b.Y-a.Y)*(c.Y-b.Y) < 0
}

func onSegment(a, b, p imgproc.Point) bool {
	return min(a.X, b.X) <= p.X && p.X <= max(a.X, b.X) && min(a.Y, b.Y) <= p.Y && p.Y <= max(a.Y, b.Y)
}

// segmentsTouch reports whether the closed segments a-b and c-d share a point.
func segmentsTouch(a, b, c, d imgproc.Point) bool {
	d1, d2 := cross(c, d, a), cross(c, d, b)
	d3, d4 := cross(a, b, c), cross(a, b, d)
	if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) {
		return true
	}
	return d1 == 0 && onSegment(c, d, a) || d2 == 0 && onSegment(c, d, b) ||
		d3 == 0 && onSegment(a, b, c) || d4 == 0 && onSegment(a, b, d)
}

// IntersectionArea is the area of a ∩ b for simple polygons. Each polygon's
// indicator is the signed sum of the triangles (first vertex, p_i, p_i+1), so
// the intersection area is the signed sum of pairwise triangle intersections,
// each a convex clip.
func IntersectionArea(a, b []imgproc.Point) float64 {
	var sum float64
	for i := 1; i+1 < len(a); i++ {
		ta := [3]imgproc.Point{a[0], a[i], a[i+1]}
		sa := math.Copysign(1, cross(ta[0], ta[1], ta[2]))
		if cross(ta[0], ta[1], ta[2]) == 0 {
			continue
		}
		for j := 1; j+1 < len(b); j++ {
			tb := [3]imgproc.Point{b[0], b[j], b[j+1]}
			cb := cross(tb[0], tb[1], tb[2])
			if cb == 0 {
				continue
			}
			sum += sa * math.Copysign(1, cb) * triangleOverlap(ta, tb)
		}
	}
	return math.Abs(sum)
}

// triangleOverlap is the area of the intersection of two triangles
// (Sutherland–Hodgman clipping of a by b's edges).
func triangleOverlap(a, b [3]imgproc.Point) float64 {
	if cross(b[0], b[1], b[2]) < 0 {
		b[1], b[2] = b[2], b[1]
	}
	poly := append(make([]imgproc.Point, 0, 9), a[:]...)
	for k := range 3 {
		p, q := b[k], b[(k+1)%3]
		if len(poly) == 0 {
			return 0
		}
		in := poly
		poly = make([]imgproc.Point, 0, len(in)+3)
		for i := range in {
			cur, prev := in[i], in[(i+len(in)-1)%len(in)]
			cc, cp := cross(p, q, cur), cross(p, q, prev)
			if cc >= 0 {
				if cp < 0 {
					poly = append(poly, lineCross(prev, cur, cp, cc))
				}
				poly = append(poly, cur)
			} else if cp >= 0 {
				poly = append(poly, lineCross(prev, cur, cp, cc))
			}
		}
	}
	if len(poly) < 3 {
		return 0
	}
	var s float64
	for i := range poly {
		j := (i + 1) % len(poly)
		s += poly[i].X*poly[j].Y - poly[j].X*poly[i].Y
	}
	return math.Abs(s) / 2
}

// lineCross is the point where the segment from s (side value cs) to e (ce) crosses the clip line.
func lineCross(s, e imgproc.Point, cs, ce float64) imgproc.Point {
	t := cs / (cs - ce)
	return imgproc.Point{X: s.X + t*(e.X-s.X), Y: s.Y + t*(e.Y-s.Y)}
}
