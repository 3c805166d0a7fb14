package imgproc

import "math"

// DBPost is PaddleOCR's DBPostProcess for quad boxes (box_type quad): the
// decoding of a DB probability map into text boxes, shared by OCR inference
// and DB training's evaluation.
type DBPost struct {
	Thresh        float32 // binarisation threshold, strict > (float32, as numpy compares)
	BoxThresh     float64 // a box is dropped when BoxThresh > its score
	UnclipRatio   float64
	MaxCandidates int
	MinSize       float64 // short side of the mini box; MinSize+2 after unclipping
	UseDilation   bool    // dilate the binary map with a 2×2 kernel
	SlowScore     bool    // score_mode slow: mean inside the contour, else inside the box
}

// Boxes decodes one probability map into quads in the srcW×srcH image, with
// their scores: binarise (pred > Thresh, optionally dilated), take each
// contour's minimum-area box (at most MaxCandidates contours), drop it when
// its short side is under MinSize or BoxThresh > its score, grow it by
// UnclipRatio, take the mini box of that, drop it when its short side is
// under MinSize+2, and map it to the source image (float32 arithmetic, round
// half to even, clipped to [0, src]).
func (d DBPost) Boxes(pred MatF, srcW, srcH int) ([][4]Point, []float64) {
	bin := make([]uint8, len(pred.Pix))
	for i, v := range pred.Pix {
		if v > d.Thresh {
			bin[i] = 255
		}
	}
	if d.UseDilation {
		bin = Dilate2x2(bin, pred.W, pred.H)
	}
	contours := FindContours(bin, pred.W, pred.H)
	var boxes [][4]Point
	var scores []float64
	for _, c := range contours[:min(len(contours), d.MaxCandidates)] {
		box, side := GetMiniBoxes(ToPoints(c))
		if side < d.MinSize {
			continue
		}
		var score float64
		if d.SlowScore {
			score = BoxScoreSlow(pred, c)
		} else {
			score = BoxScoreFast(pred, box)
		}
		if d.BoxThresh > score {
			continue
		}
		grown := Unclip(box[:], d.UnclipRatio)
		if len(grown) != 1 || len(grown[0]) == 0 {
			continue
		}
		box, side = GetMiniBoxes(ToPoints(grown[0]))
		if side < d.MinSize+2 {
			continue
		}
		for i, q := range box {
			box[i] = Point{X: mapBack(q.X, pred.W, srcW), Y: mapBack(q.Y, pred.H, srcH)}
		}
		boxes = append(boxes, box)
		scores = append(scores, score)
	}
	return boxes, scores
}

// mapBack is np.clip(np.round(v / size * dest), 0, dest) on float32 values.
func mapBack(v float64, size, dest int) float64 {
	s := float32(float32(v) / float32(size))
	s = float32(s * float32(dest))
	return math.Min(math.Max(math.RoundToEven(float64(s)), 0), float64(dest))
}
