package dettrain

import (
	"cmp"
	"math"

	"paddle/core/imgproc"
)

// DBPost is PaddleOCR's DBPostProcess for quad boxes (box_type quad).
type DBPost struct {
	Thresh, BoxThresh, UnclipRatio float64
	MaxCandidates                  int
	UseDilation                    bool
	SlowScore                      bool // score_mode slow: mean inside the contour
}

const minBoxSize = 3 // DBPostProcess.min_size

func newDBPost(o DBPostProcessOpts) DBPost {
	return DBPost{
		Thresh: cmp.Or(o.Thresh, 0.3), BoxThresh: cmp.Or(o.BoxThresh, 0.7), UnclipRatio: cmp.Or(o.UnclipRatio, 2.0),
		MaxCandidates: cmp.Or(o.MaxCandidates, 1000), UseDilation: o.UseDilation, SlowScore: o.ScoreMode == "slow",
	}
}

// Boxes decodes one probability map into quads in the srcW×srcH image, with
// their scores: binarise (pred > thresh, optionally dilated 2×2), take each
// contour's minimum-area box, drop it if its short side is under 3 or its
// score under box_thresh, unclip it by unclip_ratio, take the box of that,
// drop it if its short side is under 5, and scale it to the source image
// (rounded, clipped to [0, src]).
func (d DBPost) Boxes(pred imgproc.MatF, srcW, srcH int) ([][4]imgproc.Point, []float64) {
	bin := make([]uint8, len(pred.Pix))
	for i, v := range pred.Pix {
		if float64(v) > d.Thresh {
			bin[i] = 255
		}
	}
	if d.UseDilation {
		bin = imgproc.Dilate2x2(bin, pred.W, pred.H)
	}
	contours := imgproc.FindContours(bin, pred.W, pred.H)
	var boxes [][4]imgproc.Point
	var scores []float64
	for _, c := range contours[:min(len(contours), d.MaxCandidates)] {
		box, side := imgproc.GetMiniBoxes(imgproc.ToPoints(c))
		if side < minBoxSize {
			continue
		}
		var score float64
		if d.SlowScore {
			score = imgproc.BoxScoreSlow(pred, c)
		} else {
			score = imgproc.BoxScoreFast(pred, box)
		}
		if d.BoxThresh > score {
			continue
		}
		grown := imgproc.Unclip(box[:], d.UnclipRatio)
		if len(grown) != 1 || len(grown[0]) == 0 {
			continue
		}
		box, side = imgproc.GetMiniBoxes(imgproc.ToPoints(grown[0]))
		if side < minBoxSize+2 {
			continue
		}
		for i, q := range box {
			box[i] = imgproc.Point{
				X: min(max(math.RoundToEven(q.X/float64(pred.W)*float64(srcW)), 0), float64(srcW)),
				Y: min(max(math.RoundToEven(q.Y/float64(pred.H)*float64(srcH)), 0), float64(srcH)),
			}
		}
		boxes = append(boxes, box)
		scores = append(scores, score)
	}
	return boxes, scores
}

func matF(pix []float32, h, w int) imgproc.MatF { return imgproc.MatF{H: h, W: w, Pix: pix} }
