package imgproc

// ShrinkRound is ClipperOffset.Execute(-d) for one closed polygon with JT_ROUND
// joins (ArcTolerance 0.25), d > 0: the polygon moved inward by d, as
// PaddleOCR's MakeShrinkMap computes the DB shrink map's text kernels with
// pyclipper. The raw offset is the same DoOffset as OffsetRound's; at each
// convex vertex Clipper writes a small loop (offset point, vertex, offset point)
// that its union drops, keeping the crossing of the two inner offset edges
// (IntersectPoint rounding). That clean-up is exact whenever the inner outline is
// one simple polygon (always for convex input such as text quads); it returns nil
// when the polygon vanishes (d at least its inradius) or would split.
func ShrinkRound(path []IPoint, d float64) [][]IPoint {
	src := stripDuplicates(path)
	if len(src) < 3 || !(d > 0) {
		return nil
	}
	if !clipperOrientation(src) {
		for i, j := 0, len(src)-1; i < j; i, j = i+1, j-1 {
			src[i], src[j] = src[j], src[i]
		}
	}
	raw, notches := offsetPolygon(src, -d)
	out := cleanPolygon(closeNotches(raw, notches))
	if len(out) < 3 || clipperArea(out) <= 0 || !simpleRing(out) {
		return nil
	}
	return [][]IPoint{orderLikeClipper(out)}
}

// Shrink is MakeShrinkMap's distance and offset for a float polygon: distance
// area·(1 − ratio²)/perimeter (shapely), coordinates truncated to integers as
// pyclipper does, then ShrinkRound.
func Shrink(poly []Point, ratio float64) [][]IPoint {
	d := PolygonArea(poly) * (1 - ratio*ratio) / PolygonLength(poly)
	return ShrinkRound(truncate(poly), d)
}

// Pad is MakeBorderMap's outward offset: the same distance as Shrink, grown with
// OffsetRound (JT_ROUND) from the truncated coordinates.
func Pad(poly []Point, ratio float64) [][]IPoint {
	d := PolygonArea(poly) * (1 - ratio*ratio) / PolygonLength(poly)
	return OffsetRound(truncate(poly), d)
}

func truncate(poly []Point) []IPoint {
	path := make([]IPoint, len(poly))
	for i, p := range poly {
		path[i] = IPoint{int(p.X), int(p.Y)}
	}
	return path
}

// simpleRing reports whether no two non-adjacent edges of the closed ring p cross.
func simpleRing(p []IPoint) bool {
	n := len(p)
	for i := 0; i < n; i++ {
		for j := i + 2; j < n; j++ {
			if i == 0 && j == n-1 {
				continue
			}
			if _, ok := segmentCrossing(p[i], p[(i+1)%n], p[j], p[(j+1)%n]); ok {
				return false
			}
		}
	}
	return true
}
