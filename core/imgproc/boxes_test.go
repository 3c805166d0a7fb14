package imgproc

import (
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"testing"
)

func quad(p [4][2]float64) [4]Point {
	return [4]Point{{p[0][0], p[0][1]}, {p[1][0], p[1][1]}, {p[2][0], p[2][1]}, {p[3][0], p[3][1]}}
}

func TestBoxesReference(t *testing.T) {
	var ref struct {
		Order []struct {
			Pts, Want [4][2]float64
		}
		Sorted []struct {
			Boxes [][4][2]float64
			Want  []int
		}
		Crops []struct {
			H, W, Seed, OH, OW int
			Pts                [4][2]float64
			Sha                string
		}
	}
	loadRef(t, "ref_boxes.json", &ref)
	for i, c := range ref.Order {
		if got := OrderPointsClockwise(quad(c.Pts)); got != quad(c.Want) {
			t.Errorf("order case %d: OrderPointsClockwise(%v) = %v, want %v", i, c.Pts, got, c.Want)
		}
	}
	for i, c := range ref.Sorted {
		boxes := make([][4]Point, len(c.Boxes))
		for k, b := range c.Boxes {
			boxes[k] = quad(b)
		}
		got := SortedBoxes(boxes)
		if len(c.Want) == 0 && len(got) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, c.Want) {
			t.Errorf("sorted case %d: SortedBoxes = %v, want %v", i, got, c.Want)
		}
	}
	for i, c := range ref.Crops {
		img := lcgImage(uint64(c.Seed), c.H, c.W, 3)
		crop, ok := GetRotateCropImage(img, quad(c.Pts))
		if !ok {
			t.Errorf("crop case %d: GetRotateCropImage failed", i)
			continue
		}
		sum := sha256.Sum256(crop.Pix)
		if crop.H != c.OH || crop.W != c.OW || hex.EncodeToString(sum[:]) != c.Sha {
			t.Errorf("crop case %d: GetRotateCropImage(%v) = %dx%d image differing from PaddleOCR's %dx%d", i, c.Pts, crop.W, crop.H, c.OW, c.OH)
		}
	}
}

func TestSortedBoxesWorked(t *testing.T) {
	// Three boxes on one line (top-left y within 10 px) given right to left, and one
	// box on the next line: reading order is left to right, then down.
	mk := func(x, y float64) [4]Point { return [4]Point{{x, y}, {x + 10, y}, {x + 10, y + 5}, {x, y + 5}} }
	boxes := [][4]Point{mk(100, 12), mk(50, 10), mk(0, 15), mk(5, 40)}
	got := SortedBoxes(boxes)
	want := []int{2, 1, 0, 3}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SortedBoxes = %v, want %v", got, want)
	}
}

func TestRotations(t *testing.T) {
	m := Mat8{H: 2, W: 3, C: 1, Pix: []uint8{1, 2, 3, 4, 5, 6}}
	// np.rot90([[1,2,3],[4,5,6]]) = [[3,6],[2,5],[1,4]]
	r := Rot90CCW(m)
	if r.H != 3 || r.W != 2 || !reflect.DeepEqual(r.Pix, []uint8{3, 6, 2, 5, 1, 4}) {
		t.Errorf("Rot90CCW = %+v, want 3x2 [3 6 2 5 1 4]", r)
	}
	r = Rotate180(m)
	if !reflect.DeepEqual(r.Pix, []uint8{6, 5, 4, 3, 2, 1}) {
		t.Errorf("Rotate180 = %v, want [6 5 4 3 2 1]", r.Pix)
	}
}

func TestClipAndKeepBox(t *testing.T) {
	b := ClipBox([4]Point{{-3.5, 2.7}, {20.9, 2}, {20, 9.99}, {0, 10}}, 20, 10)
	want := [4]Point{{0, 2}, {19, 2}, {19, 9}, {0, 9}}
	if b != want {
		t.Errorf("ClipBox = %v, want %v", b, want)
	}
	if !KeepBox(want) {
		t.Errorf("KeepBox(%v) = false, want true (19x7)", want)
	}
	if KeepBox([4]Point{{0, 0}, {3.9, 0}, {3.9, 10}, {0, 10}}) {
		t.Errorf("KeepBox(width 3.9) = true, want false")
	}
}
