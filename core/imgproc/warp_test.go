package imgproc

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestWarpReference(t *testing.T) {
	var cases []struct {
		H, W, Seed, CW, CH int
		Pts                [4][2]float64
		M                  [9]float64
		Out, Sha           string
	}
	loadRef(t, "ref_warp.json", &cases)
	maxDiff, badM, badImg := 0, 0, 0
	for i, c := range cases {
		var src [4]Point
		for k, p := range c.Pts {
			src[k] = Point{p[0], p[1]}
		}
		dst := [4]Point{{0, 0}, {float64(c.CW), 0}, {float64(c.CW), float64(c.CH)}, {0, float64(c.CH)}}
		m, ok := GetPerspectiveTransform(src, dst)
		if !ok {
			t.Fatalf("case %d: singular transform", i)
		}
		if m != c.M {
			badM++
			t.Errorf("case %d: GetPerspectiveTransform = %v, want %v", i, m, c.M)
		}
		img := lcgImage(uint64(c.Seed), c.H, c.W, 3)
		got := WarpPerspective(img, m, c.CW, c.CH)
		sum := sha256.Sum256(got.Pix)
		if hex.EncodeToString(sum[:]) != c.Sha {
			badImg++
			want := unb64(t, c.Out)
			for k := range want {
				d := int(want[k]) - int(got.Pix[k])
				maxDiff = max(maxDiff, d, -d)
			}
		}
	}
	t.Logf("%d/%d matrices not bit-exact, %d/%d warps not bit-exact, max abs pixel diff %d", badM, len(cases), badImg, len(cases), maxDiff)
	if badImg > 0 {
		t.Errorf("%d warps differ from cv2.warpPerspective (max abs diff %d)", badImg, maxDiff)
	}
}

func TestWarpWorked(t *testing.T) {
	// A translation by (-2, -1): the output is the input's window at (2, 1), and at
	// integer positions the bicubic kernel is a single tap, so pixels copy exactly.
	src := lcgImage(5, 6, 8, 3)
	m, ok := GetPerspectiveTransform(
		[4]Point{{2, 1}, {6, 1}, {6, 4}, {2, 4}},
		[4]Point{{0, 0}, {4, 0}, {4, 3}, {0, 3}})
	if !ok {
		t.Fatal("GetPerspectiveTransform: singular")
	}
	want := [9]float64{1, 0, -2, 0, 1, -1, 0, 0, 1}
	for i := range m {
		if d := m[i] - want[i]; d > 1e-12 || d < -1e-12 {
			t.Fatalf("GetPerspectiveTransform(translation) = %v, want %v", m, want)
		}
	}
	got := WarpPerspective(src, m, 4, 3)
	for y := 0; y < 3; y++ {
		for x := 0; x < 4; x++ {
			for k := 0; k < 3; k++ {
				if g, w := got.At(x, y, k), src.At(x+2, y+1, k); g != w {
					t.Fatalf("WarpPerspective(translation)(%d,%d,%d) = %d, want %d", x, y, k, g, w)
				}
			}
		}
	}
}
