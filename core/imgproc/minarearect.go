package imgproc

import (
	"math"
	"sort"
)

// RotatedRect is cv::RotatedRect: a rectangle of Size (width, height) centred at Center,
// turned by Angle degrees. Its fields hold float32 values, as OpenCV stores them.
type RotatedRect struct {
	Center Point
	Size   [2]float64
	Angle  float64
}

// MinAreaRect returns the minimum-area rectangle enclosing pts, equal to
// cv2.minAreaRect in OpenCV 4.6 (angle convention of 4.5.1+: the angle of the width
// side, in (0, 90]). Points whose coordinates are all integers take OpenCV's CV_32S path
// (what PaddleOCR passes: contours and Clipper output); others are rounded to float32 and
// take the CV_32F path.
func MinAreaRect(pts []Point) RotatedRect {
	isInt := true
	for _, p := range pts {
		if p.X != math.Trunc(p.X) || p.Y != math.Trunc(p.Y) || math.Abs(p.X) > 1<<30 || math.Abs(p.Y) > 1<<30 {
			isInt = false
			break
		}
	}
	hp := make([]hullPt, len(pts))
	for i, p := range pts {
		hp[i] = hullPt{x: float32(p.X), y: float32(p.Y), ix: int64(p.X), iy: int64(p.Y), idx: i}
	}
	idx := convexHull(hp, isInt, false) // OpenCV 4.6 minAreaRect asks for the counter-clockwise hull
	h := make([][2]float32, len(idx))
	for i, k := range idx {
		if isInt {
			h[i] = [2]float32{float32(hp[k].ix), float32(hp[k].iy)}
		} else {
			h[i] = [2]float32{hp[k].x, hp[k].y}
		}
	}
	var cx, cy, w, hh, ang float32
	switch n := len(h); {
	case n > 2:
		out := rotatingCalipers(h)
		cx = out[0] + f32mul(out[2]+out[4], 0.5)
		cy = out[1] + f32mul(out[3]+out[5], 0.5)
		w = float32(math.Sqrt(f64mul(float64(out[2]), float64(out[2])) + f64mul(float64(out[3]), float64(out[3]))))
		hh = float32(math.Sqrt(f64mul(float64(out[4]), float64(out[4])) + f64mul(float64(out[5]), float64(out[5]))))
		ang = float32(math.Atan2(float64(out[3]), float64(out[2])))
	case n == 2:
		cx = f32mul(h[0][0]+h[1][0], 0.5)
		cy = f32mul(h[0][1]+h[1][1], 0.5)
		dx := float64(h[1][0] - h[0][0])
		dy := float64(h[1][1] - h[0][1])
		w = float32(math.Sqrt(f64mul(dx, dx) + f64mul(dy, dy)))
		ang = float32(math.Atan2(dy, dx))
	case n == 1:
		cx, cy = h[0][0], h[0][1]
	}
	ang = float32(float64(f32mul(ang, 180)) / math.Pi)
	return RotatedRect{Center: Point{float64(cx), float64(cy)}, Size: [2]float64{float64(w), float64(hh)}, Angle: float64(ang)}
}

// f32mul and f64mul multiply with an explicit rounding, so the compiler never fuses the
// product into a neighbouring addition (OpenCV's x86-64 build has no FMA in this code).
func f32mul(a, b float32) float32 { return float32(a * b) }
func f64mul(a, b float64) float64 { return float64(a * b) }

// rotatingCalipers is OpenCV's CALIPERS_MINAREARECT pass over the hull h, in float32
// arithmetic. It returns corner (x, y), side vector 1 and side vector 2.
func rotatingCalipers(pts [][2]float32) [6]float32 {
	n := len(pts)
	vx := make([]float32, n)
	vy := make([]float32, n)
	inv := make([]float32, n)
	left, bottom, right, top := 0, 0, 0, 0
	pt0 := pts[0]
	leftX, rightX, topY, bottomY := pt0[0], pt0[0], pt0[1], pt0[1]
	for i := 0; i < n; i++ {
		if pt0[0] < leftX {
			leftX, left = pt0[0], i
		}
		if pt0[0] > rightX {
			rightX, right = pt0[0], i
		}
		if pt0[1] > topY {
			topY, top = pt0[1], i
		}
		if pt0[1] < bottomY {
			bottomY, bottom = pt0[1], i
		}
		pt := pts[(i+1)%n]
		dx := float64(pt[0] - pt0[0])
		dy := float64(pt[1] - pt0[1])
		vx[i], vy[i] = float32(dx), float32(dy)
		inv[i] = float32(1 / math.Sqrt(f64mul(dx, dx)+f64mul(dy, dy)))
		pt0 = pt
	}
	// orientation of the hull
	var orientation float32
	ax, ay := float64(vx[n-1]), float64(vy[n-1])
	for i := 0; i < n; i++ {
		bx, by := float64(vx[i]), float64(vy[i])
		if c := f64mul(ax, by) - f64mul(ay, bx); c != 0 {
			orientation = 1
			if c < 0 {
				orientation = -1
			}
			break
		}
		ax, ay = bx, by
	}
	if orientation == 0 {
		// all points collinear: OpenCV asserts; treat as degenerate
		return [6]float32{pts[0][0], pts[0][1], 0, 0, 0, 0}
	}
	baseA, baseB := orientation, float32(0)
	seq := [4]int{bottom, right, top, left}
	minArea := float32(math.MaxFloat32)
	var bufLeft, bufBottom int
	var bufA, bufW, bufB, bufH float32
	for k := 0; k < n; k++ {
		// All in float32 like OpenCV. Known gap: on exact ties between two calipers
		// (parallel hull edges) cv2 4.6 sometimes breaks the tie the other way, which
		// moves a size by 1 ulp (1 of 300 reference cases).
		dp0 := f32mul(baseA, vx[seq[0]]) + f32mul(baseB, vy[seq[0]])
		dp1 := f32mul(-baseB, vx[seq[1]]) + f32mul(baseA, vy[seq[1]])
		dp2 := f32mul(-baseA, vx[seq[2]]) - f32mul(baseB, vy[seq[2]])
		dp3 := f32mul(baseB, vx[seq[3]]) - f32mul(baseA, vy[seq[3]])
		maxcos := f32mul(dp0, inv[seq[0]])
		main := 0
		if c := f32mul(dp1, inv[seq[1]]); c > maxcos {
			main, maxcos = 1, c
		}
		if c := f32mul(dp2, inv[seq[2]]); c > maxcos {
			main, maxcos = 2, c
		}
		if c := f32mul(dp3, inv[seq[3]]); c > maxcos {
			main = 3
		}
		pi := seq[main]
		leadX := f32mul(vx[pi], inv[pi])
		leadY := f32mul(vy[pi], inv[pi])
		switch main {
		case 0:
			baseA, baseB = leadX, leadY
		case 1:
			baseA, baseB = leadY, -leadX
		case 2:
			baseA, baseB = -leadX, -leadY
		case 3:
			baseA, baseB = -leadY, leadX
		}
		seq[main]++
		if seq[main] == n {
			seq[main] = 0
		}
		dx := pts[seq[1]][0] - pts[seq[3]][0]
		dy := pts[seq[1]][1] - pts[seq[3]][1]
		width := f32mul(dx, baseA) + f32mul(dy, baseB)
		dx = pts[seq[2]][0] - pts[seq[0]][0]
		dy = pts[seq[2]][1] - pts[seq[0]][1]
		height := f32mul(-dx, baseB) + f32mul(dy, baseA)
		area := f32mul(width, height)
		if area <= minArea {
			minArea = area
			bufLeft, bufA, bufW, bufB, bufH, bufBottom = seq[3], baseA, width, baseB, height, seq[0]
		}
	}
	a1, b1 := bufA, bufB
	a2, b2 := -bufB, bufA
	c1 := f32mul(a1, pts[bufLeft][0]) + f32mul(pts[bufLeft][1], b1)
	c2 := f32mul(a2, pts[bufBottom][0]) + f32mul(pts[bufBottom][1], b2)
	idet := 1 / (f32mul(a1, b2) - f32mul(a2, b1))
	px := f32mul(f32mul(c1, b2)-f32mul(c2, b1), idet)
	py := f32mul(f32mul(a1, c2)-f32mul(a2, c1), idet)
	return [6]float32{px, py, f32mul(a1, bufW), f32mul(b1, bufW), f32mul(a2, bufH), f32mul(b2, bufH)}
}

// BoxPoints returns the four corners of r, equal to cv2.boxPoints (float32 arithmetic):
// bottom-left, top-left, top-right, bottom-right of the unrotated rectangle.
func BoxPoints(r RotatedRect) [4]Point {
	rad := float64(float32(r.Angle)) * math.Pi / 180
	b := f32mul(float32(math.Cos(rad)), 0.5)
	a := f32mul(float32(math.Sin(rad)), 0.5)
	cx, cy := float32(r.Center.X), float32(r.Center.Y)
	w, h := float32(r.Size[0]), float32(r.Size[1])
	var p [4][2]float32
	p[0][0] = cx - f32mul(a, h) - f32mul(b, w)
	p[0][1] = cy + f32mul(b, h) - f32mul(a, w)
	p[1][0] = cx + f32mul(a, h) - f32mul(b, w)
	p[1][1] = cy - f32mul(b, h) - f32mul(a, w)
	p[2][0] = f32mul(2, cx) - p[0][0]
	p[2][1] = f32mul(2, cy) - p[0][1]
	p[3][0] = f32mul(2, cx) - p[1][0]
	p[3][1] = f32mul(2, cy) - p[1][1]
	var out [4]Point
	for i := range p {
		out[i] = Point{float64(p[i][0]), float64(p[i][1])}
	}
	return out
}

// GetMiniBoxes is PaddleOCR's DBPostProcess.get_mini_boxes: the corners of
// MinAreaRect(pts), stably sorted by x, then ordered top-left, top-right, bottom-right,
// bottom-left by comparing y within the left and right pairs; plus the rectangle's
// shorter side.
func GetMiniBoxes(pts []Point) ([4]Point, float64) {
	r := MinAreaRect(pts)
	bp := BoxPoints(r)
	s := bp[:]
	sort.SliceStable(s, func(i, j int) bool { return s[i].X < s[j].X })
	i1, i2, i3, i4 := 1, 2, 3, 0
	if s[1].Y > s[0].Y {
		i1, i4 = 0, 1
	}
	if s[3].Y > s[2].Y {
		i2, i3 = 2, 3
	} else {
		i2, i3 = 3, 2
	}
	return [4]Point{s[i1], s[i2], s[i3], s[i4]}, min(r.Size[0], r.Size[1])
}
