package ocr

import (
	"fmt"

	"paddle/core/imgproc"
	"paddle/core/tensor"
)

// Angle classifier input size (cls_image_shape 3,48,192).
const (
	clsH = 48
	clsW = 192
)

// ClsBatchInput builds the angle-classifier input [n,3,48,192] for crops: each resized
// to min(ceil(48*w/h), 192)×48, scaled to [-1, 1], zero-padded on the right.
func ClsBatchInput(crops []imgproc.Mat8) *tensor.Tensor {
	x := tensor.New(tensor.Float32, len(crops), 3, clsH, clsW)
	data := x.F32()
	per := 3 * clsH * clsW
	for i, c := range crops {
		normalizeInto(data[i*per:(i+1)*per], c, RecResizeWidth(c.H, c.W, clsW), clsW)
	}
	return x
}

// Classify runs the 0/180 angle classifier m on crops in batches of p.ClsBatch sorted
// by aspect ratio and returns the crops with those labelled "180" with a score above
// p.ClsThresh turned upside down (the others unchanged), plus whether each was turned.
func Classify(m Model, crops []imgproc.Mat8, p Profile) ([]imgproc.Mat8, []bool, error) {
	batch := max(p.ClsBatch, 1)
	idx, _ := byAspect(crops)
	out := append([]imgproc.Mat8(nil), crops...)
	turned := make([]bool, len(crops))
	for beg := 0; beg < len(idx); beg += batch {
		end := min(len(idx), beg+batch)
		group := make([]imgproc.Mat8, 0, end-beg)
		for _, i := range idx[beg:end] {
			group = append(group, crops[i])
		}
		y, done, err := runOne(m, ClsBatchInput(group))
		if err != nil {
			return nil, nil, fmt.Errorf("angle classifier: %w", err)
		}
		sh := y.Shape()
		if len(sh) != 2 || sh[0] != len(group) || sh[1] != 2 {
			return nil, nil, fmt.Errorf("angle classifier: output shape %v, want [%d 2]", sh, len(group))
		}
		probs := f32Data(y)
		for k, i := range idx[beg:end] {
			p0, p1 := probs[2*k], probs[2*k+1]
			// argmax picks the first maximum: label "180" needs p1 > p0
			if p1 > p0 && float64(p1) > p.ClsThresh {
				out[i] = imgproc.Rotate180(crops[i])
				turned[i] = true
			}
		}
		done()
	}
	return out, turned, nil
}
