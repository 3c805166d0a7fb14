package dettrain

import (
	"cmp"

	"paddle/core/imgproc"
)

// DBPost is PaddleOCR's DBPostProcess for quad boxes, shared with OCR inference.
type DBPost = imgproc.DBPost

const minBoxSize = 3 // DBPostProcess.min_size

func newDBPost(o DBPostProcessOpts) DBPost {
	return DBPost{
		Thresh: float32(cmp.Or(o.Thresh, 0.3)), BoxThresh: cmp.Or(o.BoxThresh, 0.7), UnclipRatio: cmp.Or(o.UnclipRatio, 2.0),
		MaxCandidates: cmp.Or(o.MaxCandidates, 1000), MinSize: minBoxSize, UseDilation: o.UseDilation, SlowScore: o.ScoreMode == "slow",
	}
}

func matF(pix []float32, h, w int) imgproc.MatF { return imgproc.MatF{H: h, W: w, Pix: pix} }
