package imgproc

import (
	"bytes"
	"compress/zlib"
	"io"
	"math"
	"reflect"
	"testing"
)

// dbBoxes chains the primitives the way PaddleOCR's DBPostProcess.boxes_from_bitmap
// does (quad boxes, fast score, box_thresh 0.6, unclip_ratio 1.5): the end-to-end check
// that the pieces compose into PaddleOCR's boxes.
func dbBoxes(pred MatF, destW, destH int) ([][4][2]int, []float64) {
	bin := make([]uint8, len(pred.Pix))
	for i, v := range pred.Pix {
		if v > 0.3 {
			bin[i] = 1
		}
	}
	var boxes [][4][2]int
	var scores []float64
	contours := FindContours(bin, pred.W, pred.H)
	for _, c := range contours[:min(len(contours), 1000)] {
		pts := make([]Point, len(c))
		for i, p := range c {
			pts[i] = Point{float64(p.X), float64(p.Y)}
		}
		box, side := GetMiniBoxes(pts)
		if side < 3 {
			continue
		}
		score := BoxScoreFast(pred, box)
		if 0.6 > score {
			continue
		}
		var grown []Point
		for _, path := range Unclip(box[:], 1.5) {
			for _, p := range path {
				grown = append(grown, Point{float64(p.X), float64(p.Y)})
			}
		}
		box, side = GetMiniBoxes(grown)
		if side < 5 {
			continue
		}
		var out [4][2]int
		for i, p := range box {
			// float32 arithmetic and half-to-even rounding, as numpy does on the box
			x := math.RoundToEven(float64(f32mul(float32(p.X)/float32(pred.W), float32(destW))))
			y := math.RoundToEven(float64(f32mul(float32(p.Y)/float32(pred.H), float32(destH))))
			out[i] = [2]int{int(math.Min(math.Max(x, 0), float64(destW))), int(math.Min(math.Max(y, 0), float64(destH)))}
		}
		boxes = append(boxes, out)
		scores = append(scores, score)
	}
	return boxes, scores
}

func TestDBPostProcessChain(t *testing.T) {
	var cases []struct {
		H, W       int
		DestW      int `json:"dest_w"`
		DestH      int `json:"dest_h"`
		U8         string
		Boxes      [][4][2]int
		Scores     []float64
		SlowScores []float64 `json:"slow_scores"`
	}
	loadRef(t, "ref_db.json", &cases)
	total := 0
	for i, c := range cases {
		zr, err := zlib.NewReader(bytes.NewReader(unb64(t, c.U8)))
		if err != nil {
			t.Fatal(err)
		}
		u8, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		pred := MatF{H: c.H, W: c.W, Pix: make([]float32, len(u8))}
		for k, v := range u8 {
			pred.Pix[k] = float32(v) / 255
		}
		bin := make([]uint8, len(pred.Pix))
		for k, v := range pred.Pix {
			if v > 0.3 {
				bin[k] = 1
			}
		}
		for k, ct := range FindContours(bin, c.W, c.H) {
			if got := BoxScoreSlow(pred, ct); got != c.SlowScores[k] {
				t.Errorf("case %d contour %d: BoxScoreSlow = %.17g, want %.17g", i, k, got, c.SlowScores[k])
			}
		}
		boxes, scores := dbBoxes(pred, c.DestW, c.DestH)
		total += len(c.Boxes)
		if len(boxes) == 0 && len(c.Boxes) == 0 {
			continue
		}
		if !reflect.DeepEqual(boxes, c.Boxes) || !reflect.DeepEqual(scores, c.Scores) {
			t.Errorf("case %d: boxes %v scores %v, want %v %v", i, boxes, scores, c.Boxes, c.Scores)
		}
	}
	if total < 20 {
		t.Errorf("reference has only %d boxes; the check is too weak", total)
	}
}
