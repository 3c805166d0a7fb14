package imgproc

import (
	"math"
	"sort"
)

// OrderPointsClockwise is PaddleOCR's TextDetector.order_points_clockwise (current
// upstream): top-left = smallest x+y, bottom-right = largest x+y (first index on ties),
// and of the two remaining points top-right = smallest y-x, bottom-left = largest y-x.
// Coordinates are float32 as in PaddleOCR.
func OrderPointsClockwise(pts [4]Point) [4]Point {
	var p [4][2]float32
	for i, q := range pts {
		p[i] = [2]float32{float32(q.X), float32(q.Y)}
	}
	amin, amax := 0, 0
	for i := 1; i < 4; i++ {
		s := p[i][0] + p[i][1]
		if s < p[amin][0]+p[amin][1] {
			amin = i
		}
		if s > p[amax][0]+p[amax][1] {
			amax = i
		}
	}
	var rest [][2]float32 // np.delete(pts, (argmin, argmax))
	for i := 0; i < 4; i++ {
		if i != amin && i != amax {
			rest = append(rest, p[i])
		}
	}
	dmin, dmax := 0, 0
	for i := 1; i < len(rest); i++ {
		d := rest[i][1] - rest[i][0]
		if d < rest[dmin][1]-rest[dmin][0] {
			dmin = i
		}
		if d > rest[dmax][1]-rest[dmax][0] {
			dmax = i
		}
	}
	f := func(q [2]float32) Point { return Point{float64(q[0]), float64(q[1])} }
	return [4]Point{f(p[amin]), f(rest[dmin]), f(p[amax]), f(rest[dmax])}
}

// OrderPointsByX is the older PaddleOCR order_points_clockwise (from imutils): stably
// sort by x, then the left pair by y gives top-left and bottom-left, the right pair gives
// top-right and bottom-right; returned as tl, tr, br, bl.
func OrderPointsByX(pts [4]Point) [4]Point {
	p := pts
	s := p[:]
	sort.SliceStable(s, func(i, j int) bool { return float32(s[i].X) < float32(s[j].X) })
	tl, bl := p[0], p[1]
	if float32(bl.Y) < float32(tl.Y) {
		tl, bl = bl, tl
	}
	tr, br := p[2], p[3]
	if float32(br.Y) < float32(tr.Y) {
		tr, br = br, tr
	}
	return [4]Point{tl, tr, br, bl}
}

// ClipBox is PaddleOCR's clip_det_res: each coordinate clamped to [0, w-1] × [0, h-1]
// and truncated to an integer.
func ClipBox(pts [4]Point, w, h int) [4]Point {
	var out [4]Point
	for i, p := range pts {
		out[i] = Point{math.Trunc(math.Min(math.Max(p.X, 0), float64(w-1))), math.Trunc(math.Min(math.Max(p.Y, 0), float64(h-1)))}
	}
	return out
}

// norm32 is np.linalg.norm of a float32 2-vector (float32 arithmetic).
func norm32(a, b Point) float32 {
	dx := float32(a.X) - float32(b.X)
	dy := float32(a.Y) - float32(b.Y)
	return float32(math.Sqrt(float64(f32mul(dx, dx) + f32mul(dy, dy))))
}

// KeepBox is the size test of PaddleOCR's filter_tag_det_res on an ordered, clipped box:
// int(‖p0-p1‖) > 3 and int(‖p0-p3‖) > 3.
func KeepBox(box [4]Point) bool {
	return int(norm32(box[0], box[1])) > 3 && int(norm32(box[0], box[3])) > 3
}

// CropSize is the crop size get_rotate_crop_image uses for the quad pts (tl, tr, br, bl):
// width int(max(‖p0-p1‖, ‖p2-p3‖)), height int(max(‖p0-p3‖, ‖p1-p2‖)), float32 norms.
func CropSize(pts [4]Point) (w, h int) {
	w = int(max(norm32(pts[0], pts[1]), norm32(pts[2], pts[3])))
	h = int(max(norm32(pts[0], pts[3]), norm32(pts[1], pts[2])))
	return w, h
}

// GetRotateCropImage is PaddleOCR's get_rotate_crop_image: the quad pts (tl, tr, br, bl)
// of img warped to an upright CropSize(pts) image with a perspective transform
// (INTER_CUBIC, BORDER_REPLICATE), turned 90° counter-clockwise when its height/width is
// at least 1.5. ok is false for a zero width or height, where PaddleOCR would raise. A
// degenerate quad with a positive size is warped with OpenCV's fallback matrix, as
// PaddleOCR does (the crop is then filled with img's top-left pixel).
func GetRotateCropImage(img Mat8, pts [4]Point) (crop Mat8, ok bool) {
	w, h := CropSize(pts)
	if w <= 0 || h <= 0 {
		return Mat8{}, false
	}
	std := [4]Point{{0, 0}, {float64(w), 0}, {float64(w), float64(h)}, {0, float64(h)}}
	m, _ := GetPerspectiveTransform(pts, std)
	crop = WarpPerspective(img, m, w, h)
	if float64(crop.H)*1.0/float64(crop.W) >= 1.5 {
		crop = Rot90CCW(crop)
	}
	return crop, true
}

// SortedBoxes is PaddleOCR's sorted_boxes (current upstream, `for j in range(i, -1, -1)`):
// boxes are stably sorted by the top-left point's (y, x); then, scanning forward, a box is
// moved left past its predecessors while their top-left y differ by less than 10 and it
// lies to their left. It returns the new order as indices into boxes.
func SortedBoxes(boxes [][4]Point) []int {
	idx := make([]int, len(boxes))
	for i := range idx {
		idx[i] = i
	}
	key := func(i int) (float64, float64) { return boxes[i][0].Y, boxes[i][0].X }
	sort.SliceStable(idx, func(a, b int) bool {
		ya, xa := key(idx[a])
		yb, xb := key(idx[b])
		if ya != yb {
			return ya < yb
		}
		return xa < xb
	})
	for i := 0; i < len(idx)-1; i++ {
		for j := i; j >= 0; j-- {
			a, b := boxes[idx[j]][0], boxes[idx[j+1]][0]
			if math.Abs(b.Y-a.Y) < 10 && b.X < a.X {
				idx[j], idx[j+1] = idx[j+1], idx[j]
			} else {
				break
			}
		}
	}
	return idx
}
