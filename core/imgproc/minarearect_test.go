package imgproc

import (
	"math"
	"testing"
)

func toPoints(p [][2]float64) []Point {
	out := make([]Point, len(p))
	for i, v := range p {
		out[i] = Point{v[0], v[1]}
	}
	return out
}

// checkRect compares with cv2's rectangle; it returns false (and logs) when the result
// is off by float32 rounding only (rel 1e-6), and fails the test on anything larger.
func checkRect(t *testing.T, what string, pts []Point, wantRect [5]float64, wantBox [][2]float64) bool {
	t.Helper()
	r := MinAreaRect(pts)
	got := [5]float64{r.Center.X, r.Center.Y, r.Size[0], r.Size[1], r.Angle}
	if got != wantRect {
		for i := range got {
			if math.Abs(got[i]-wantRect[i]) > 1e-6*math.Max(1, math.Abs(wantRect[i])) {
				t.Errorf("%s: MinAreaRect(%v) = %v, want %v", what, pts, got, wantRect)
				return false
			}
		}
		t.Logf("%s: MinAreaRect(%v) = %v, cv2 %v (float32 rounding only)", what, pts, got, wantRect)
		return false
	}
	bp := BoxPoints(r)
	for i := range bp {
		if bp[i].X != wantBox[i][0] || bp[i].Y != wantBox[i][1] {
			t.Errorf("%s: BoxPoints(%v) = %v, want %v", what, got, bp, wantBox)
			return false
		}
	}
	return true
}

func TestMinAreaRectReference(t *testing.T) {
	var cases []struct {
		Pts  [][2]float64
		Int  bool
		Rect [5]float64
		Box  [][2]float64
	}
	loadRef(t, "ref_minarearect.json", &cases)
	inexact := 0
	for i, c := range cases {
		if !checkRect(t, "case "+itoa(i), toPoints(c.Pts), c.Rect, c.Box) {
			inexact++
		}
	}
	// Known: one near-tie hull (case 298) where cv2 picks the other caliper.
	if inexact > 1 {
		t.Errorf("%d of %d rectangles differ from cv2 in the last bits, want at most 1", inexact, len(cases))
	}
}

func TestMinAreaRectContours(t *testing.T) {
	var cases []struct {
		H, W     int
		Contours [][][2]float64
		Rects    []struct {
			Rect [5]float64
			Box  [][2]float64
		}
	}
	loadRef(t, "ref_contours.json", &cases)
	for i, c := range cases {
		for k, ct := range c.Contours {
			if !checkRect(t, "contour case "+itoa(i)+"/"+itoa(k), toPoints(ct), c.Rects[k].Rect, c.Rects[k].Box) {
				t.Errorf("contour case %d/%d: not bit-exact", i, k)
			}
		}
	}
}

func TestMinAreaRectWorked(t *testing.T) {
	// An axis-aligned 10x5 box: OpenCV 4.6 reports it as width 5, height 10, angle 90.
	r := MinAreaRect([]Point{{0, 0}, {10, 0}, {10, 5}, {0, 5}})
	want := RotatedRect{Center: Point{5, 2.5}, Size: [2]float64{5, 10}, Angle: 90}
	if r != want {
		t.Errorf("MinAreaRect(10x5 box) = %+v, want %+v", r, want)
	}
	// A square turned by 45 degrees with corners (5,0), (10,5), (5,10), (0,5).
	r = MinAreaRect([]Point{{5, 0}, {10, 5}, {5, 10}, {0, 5}})
	// cv2 4.6 gives ((5.0, 5.000000476837158), (7.071068286895752, 7.071068286895752), 45.0)
	want = RotatedRect{Center: Point{5, 5.000000476837158}, Size: [2]float64{7.071068286895752, 7.071068286895752}, Angle: 45}
	if r != want {
		t.Errorf("MinAreaRect(diamond) = %+v, want %+v", r, want)
	}
	box, side := GetMiniBoxes([]Point{{5, 0}, {10, 5}, {5, 10}, {0, 5}})
	// sorted by x: (-0,5) (5,0) (5,10) (10,5); top-left is the upper of the left pair
	wantBox := [4]Point{{5, 0}, {10, 5}, {5, 10}, {0, 5}}
	for i := range box {
		if math.Abs(box[i].X-wantBox[i].X) > 1e-5 || math.Abs(box[i].Y-wantBox[i].Y) > 1e-5 {
			t.Errorf("GetMiniBoxes(diamond) = %v, want %v", box, wantBox)
			break
		}
	}
	if math.Abs(side-math.Sqrt(50)) > 1e-5 {
		t.Errorf("GetMiniBoxes(diamond) side = %v, want 7.0711", side)
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}
