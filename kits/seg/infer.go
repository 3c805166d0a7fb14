package seg

import (
	"paddle/core/ag"
	"paddle/core/tensor"
)

// infer runs a model on images x (N, 3, H, W) without recording a graph
// and returns logits (N, C, H, W) as float32: whole-image, or with
// test_config.is_slide PaddleSeg's sliding window (crops of crop_size
// every stride, the last ones shifted to end at the border, overlapping
// logits averaged).
func infer(forward func(x *tensor.Tensor) *tensor.Tensor, x *tensor.Tensor, tc TestConfig) *tensor.Tensor {
	var out *tensor.Tensor
	ag.NoGrad(func() {
		if !tc.IsSlide || len(tc.CropSize) != 2 || len(tc.Stride) != 2 {
			out = forward(x).Cast(tensor.Float32).Contiguous()
			return
		}
		out = slide(forward, x, tc.CropSize[0], tc.CropSize[1], max(tc.Stride[0], 1), max(tc.Stride[1], 1))
	})
	return out
}

func slide(forward func(x *tensor.Tensor) *tensor.Tensor, x *tensor.Tensor, cw, ch, sw, sh int) *tensor.Tensor {
	s := x.Shape()
	n, h, w := s[0], s[2], s[3]
	rows, cols := 1, 1
	if h > ch {
		rows = (h-ch+sh-1)/sh + 1
	}
	if w > cw {
		cols = (w-cw+sw-1)/sw + 1
	}
	var sum []float32
	count := make([]float32, h*w)
	classes := 0
	for r := range rows {
		for q := range cols {
			y1, x1 := r*sh, q*sw
			y2, x2 := min(y1+ch, h), min(x1+cw, w)
			y1, x1 = max(y2-ch, 0), max(x2-cw, 0)
			crop := x.Slice(2, y1, y2, 1).Slice(3, x1, x2, 1).Contiguous()
			lg := forward(crop).Cast(tensor.Float32).Contiguous()
			if sum == nil {
				classes = lg.Dim(1)
				sum = make([]float32, n*classes*h*w)
			}
			v := lg.F32()
			ph, pw := y2-y1, x2-x1
			for b := range n {
				for k := range classes {
					for yy := range ph {
						src := v[((b*classes+k)*ph+yy)*pw:][:pw]
						dst := sum[((b*classes+k)*h+y1+yy)*w+x1:][:pw]
						for i, t := range src {
							dst[i] += t
						}
					}
				}
			}
			for yy := y1; yy < y2; yy++ {
				for xx := x1; xx < x2; xx++ {
					count[yy*w+xx]++
				}
			}
		}
	}
	for b := range n {
		for k := range classes {
			p := sum[(b*classes+k)*h*w:][:h*w]
			for i := range p {
				p[i] /= count[i]
			}
		}
	}
	return tensor.FromSlice(sum, n, classes, h, w)
}

// argmax returns the class of each pixel of logits (N, C, H, W) as N maps.
func argmax(logits *tensor.Tensor) [][]uint8 {
	s := logits.Shape()
	n, c, hw := s[0], s[1], s[2]*s[3]
	v := logits.Contiguous().F32()
	out := make([][]uint8, n)
	for b := range n {
		m := make([]uint8, hw)
		base := v[b*c*hw:]
		for i := range hw {
			best, bv := 0, base[i]
			for k := 1; k < c; k++ {
				if t := base[k*hw+i]; t > bv {
					best, bv = k, t
				}
			}
			m[i] = uint8(best)
		}
		out[b] = m
	}
	return out
}
