package imgproc

import (
	"bytes"
	"testing"
)

func TestFillPolyReference(t *testing.T) {
	var cases []struct {
		H, W int
		Pts  [][2]int
		Mask string
	}
	loadRef(t, "ref_fillpoly.json", &cases)
	for i, c := range cases {
		want := unpackBits(unb64(t, c.Mask), c.H*c.W)
		pts := make([]IPoint, len(c.Pts))
		for k, p := range c.Pts {
			pts[k] = IPoint{p[0], p[1]}
		}
		got := make([]uint8, c.H*c.W)
		FillPoly(got, c.W, c.H, [][]IPoint{pts}, 1)
		if !bytes.Equal(got, want) {
			t.Errorf("case %d: FillPoly(%dx%d, %v) differs from cv2.fillPoly", i, c.W, c.H, pts)
		}
	}
}

func TestFillPolyTriangle(t *testing.T) {
	// Right triangle (0,0) (4,0) (0,4): the outline's Bresenham diagonal and the
	// scanline fill give the lower-left half including the diagonal.
	got := make([]uint8, 5*5)
	FillPoly(got, 5, 5, [][]IPoint{{{0, 0}, {4, 0}, {0, 4}}}, 1)
	want := []uint8{
		1, 1, 1, 1, 1,
		1, 1, 1, 1, 0,
		1, 1, 1, 0, 0,
		1, 1, 0, 0, 0,
		1, 0, 0, 0, 0,
	}
	if !bytes.Equal(got, want) {
		t.Errorf("FillPoly(triangle) = %v, want %v", got, want)
	}
}

func TestBoxScoreFastReference(t *testing.T) {
	var cases []struct {
		H, W, Seed   int
		Box          [4][2]float64
		Score        float64
		MaskH, MaskW int
		Mask         string
	}
	loadRef(t, "ref_boxscore.json", &cases)
	for i, c := range cases {
		pred := lcgPred(uint64(c.Seed), c.H, c.W)
		var box [4]Point
		for k, p := range c.Box {
			box[k] = Point{p[0], p[1]}
		}
		got := BoxScoreFast(pred, box)
		if got != c.Score { // bit-exact: same float64 sum order and 1/n scaling as cv2.mean
			t.Errorf("case %d: BoxScoreFast(%v) = %.17g, want %.17g", i, box, got, c.Score)
		}
	}
}
