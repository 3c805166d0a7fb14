package ocr

import (
	"fmt"
	"math"

	"paddle/core/imgproc"
	"paddle/core/tensor"
)

// Box is a text quad: top-left, top-right, bottom-right, bottom-left, in pixels.
type Box = [4]imgproc.Point

// DetResizeSize is the network input size DetResizeForTest.resize_image_type0 picks
// for an h×w image under p: the ratio from the limit side (max: shrink so the longer
// side is at most LimitSideLen; min: grow so the shorter side is at least LimitSideLen),
// then PaddleX's MaxSideLimit, then each side rounded to a multiple of 32 with Python's
// round (half to even), at least 32.
func DetResizeSize(h, w int, p Profile) (rh, rw int) {
	ratio := 1.0
	switch p.LimitType {
	case "min":
		if min(h, w) < p.LimitSideLen {
			if h < w {
				ratio = float64(p.LimitSideLen) / float64(h)
			} else {
				ratio = float64(p.LimitSideLen) / float64(w)
			}
		}
	case "resize_long":
		ratio = float64(p.LimitSideLen) / float64(max(h, w))
	default: // "max"
		if max(h, w) > p.LimitSideLen {
			if h > w {
				ratio = float64(p.LimitSideLen) / float64(h)
			} else {
				ratio = float64(p.LimitSideLen) / float64(w)
			}
		}
	}
	rh, rw = int(float64(h)*ratio), int(float64(w)*ratio)
	if p.MaxSideLimit > 0 && max(rh, rw) > p.MaxSideLimit {
		r := float64(p.MaxSideLimit) / float64(max(rh, rw))
		rh, rw = int(float64(rh)*r), int(float64(rw)*r)
	}
	round32 := func(v int) int { return max(int(math.RoundToEven(float64(v)/32)*32), 32) }
	return round32(rh), round32(rw)
}

// Detection normalisation (NormalizeImage): ImageNet mean and std, applied by channel
// index to BGR data, as PaddleOCR does.
var (
	detMean  = [3]float32{0.485, 0.456, 0.406}
	detStd   = [3]float32{0.229, 0.224, 0.225}
	detScale = float32(1.0 / 255.0)
)

// DetPreprocess turns a BGR image into the detector input [1,3,H,W] float32 (H, W
// multiples of 32): zero padding to 32×32 when h+w < 64, cv2 INTER_LINEAR resize to
// DetResizeSize, (x/255 - mean) / std per channel, HWC to CHW.
func DetPreprocess(img imgproc.Mat8, p Profile) *tensor.Tensor {
	if img.H+img.W < 64 {
		pad := imgproc.NewMat8(max(32, img.H), max(32, img.W), img.C)
		for y := 0; y < img.H; y++ {
			copy(pad.Pix[y*pad.W*pad.C:], img.Pix[y*img.W*img.C:(y+1)*img.W*img.C])
		}
		img = pad
	}
	rh, rw := DetResizeSize(img.H, img.W, p)
	r := imgproc.ResizeLinear(img, rw, rh)
	x := tensor.New(tensor.Float32, 1, 3, rh, rw)
	out := x.F32()
	plane := rh * rw
	for i := 0; i < plane; i++ {
		for c := 0; c < 3; c++ {
			v := float32(float32(r.Pix[i*3+c]) * detScale)
			out[c*plane+i] = (v - detMean[c]) / detStd[c]
		}
	}
	return x
}

// DBPostprocess is PaddleOCR's DBPostProcess for one probability map (quad boxes, fast
// score, no dilation) with the profile's thresholds: see imgproc.DBPost.Boxes.
func DBPostprocess(pred imgproc.MatF, srcW, srcH int, p Profile) ([]Box, []float64) {
	return imgproc.DBPost{
		Thresh: p.Thresh, BoxThresh: p.BoxThresh, UnclipRatio: p.UnclipRatio,
		MaxCandidates: p.MaxCandidates, MinSize: p.MinSize,
	}.Boxes(pred, srcW, srcH)
}

// FilterBoxes is TextDetector.filter_tag_det_res: each box ordered clockwise, clipped to
// the w×h image, and dropped when a side (int of its float32 length) is 3 px or less.
func FilterBoxes(boxes []Box, w, h int) []Box {
	var out []Box
	for _, b := range boxes {
		b = imgproc.ClipBox(imgproc.OrderPointsClockwise(b), w, h)
		if imgproc.KeepBox(b) {
			out = append(out, b)
		}
	}
	return out
}

// Detect runs the DB detector m on a BGR image and returns the filtered text boxes,
// in DBPostprocess order (not yet sorted), and their scores.
func Detect(m Model, img imgproc.Mat8, p Profile) ([]Box, error) {
	x := DetPreprocess(img, p)
	y, done, err := runOne(m, x)
	if err != nil {
		return nil, fmt.Errorf("detection model: %w", err)
	}
	defer done()
	sh := y.Shape()
	if len(sh) != 4 || sh[0] != 1 || sh[1] != 1 || sh[2] != x.Dim(2) || sh[3] != x.Dim(3) {
		return nil, fmt.Errorf("detection model: output shape %v, want [1 1 %d %d]", sh, x.Dim(2), x.Dim(3))
	}
	pred := imgproc.MatF{H: sh[2], W: sh[3], Pix: f32Data(y)}
	boxes, _ := DBPostprocess(pred, img.W, img.H, p)
	return FilterBoxes(boxes, img.W, img.H), nil
}
