package det

import (
	"math"
	"math/rand/v2"

	"paddle/core/config"
	"paddle/core/data"
)

// Sample is one image with its boxes as it moves through the transforms.
type Sample struct {
	Rec     *Record      // the source record (nil for predict inputs)
	Path    string       // image file
	Img     *data.Image  // RGB, HWC
	Boxes   [][4]float64 // x1, y1, x2, y2 in the current image's pixels
	Classes []int
	SX, SY  float64 // current pixels per original pixel (resizes only; eval/predict)
	Pick    uint64  // a random draw the batch transforms use (multi-scale size)
}

// sampleOp is one sample transform.
type sampleOp func(s *Sample, r *rand.Rand) error

// pipeline is a reader's transforms, resolved.
type pipeline struct {
	ops       []sampleOp
	sizes     [][2]int // BatchRandomResize sizes (h, w); empty: none
	fixed     [2]int   // the last Resize's (h, w), 0 when none
	mosaic    *MosaicOpts
	mean, std []float32
	scale     float32
}

// buildPipeline resolves a reader's sample_transforms and batch_transforms.
func buildPipeline(rd ReaderOpts) (*pipeline, error) {
	p := &pipeline{scale: 1.0 / 255, mean: []float32{0.485, 0.456, 0.406}, std: []float32{0.229, 0.224, 0.225}}
	for _, c := range append(append([]config.Component(nil), rd.SampleTransforms...), rd.BatchTransforms...) {
		op, err := p.add(c)
		if err != nil {
			return nil, err
		}
		if op != nil {
			p.ops = append(p.ops, op)
		}
	}
	return p, nil
}

// transforms are the sample and batch transforms a reader can name; each
// builder sets up p (the pipeline being built) and returns its per-sample
// step, or nil when the pipeline or the data set applies it.
var transforms = newTransforms()

func newTransforms() *config.Registry[*pipeline, sampleOp] {
	r := config.NewRegistry[*pipeline, sampleOp]("transform")
	config.Add(r, "Mosaic", MosaicOpts{Prob: 0.5, TargetSize: 320, FillValue: 114}, func(c config.Component, o MosaicOpts, p *pipeline) (sampleOp, error) {
		if o.TargetSize < 32 {
			return nil, c.Errorf("target_size must be ≥ 32, got %d", o.TargetSize)
		}
		p.mosaic = &o
		return nil, nil // the data set applies it: it needs three more images
	})
	// Decoding is implied; the batch is always CHW and padded per image.
	implied := func(config.Component, NoOpts, *pipeline) (sampleOp, error) { return nil, nil }
	config.Add(r, "Decode", DecodeOpts{}, func(config.Component, DecodeOpts, *pipeline) (sampleOp, error) { return nil, nil })
	config.Add(r, "Permute", NoOpts{}, implied)
	config.Add(r, "PadGT", NoOpts{}, implied)
	config.Add(r, "PadBatch", NoOpts{}, implied)
	config.Add(r, "RandomFlip", RandomFlipOpts{Prob: 0.5}, func(_ config.Component, o RandomFlipOpts, _ *pipeline) (sampleOp, error) {
		return func(s *Sample, r *rand.Rand) error {
			if r.Float64() < o.Prob {
				flipH(s)
			}
			return nil
		}, nil
	})
	config.Add(r, "RandomDistort", RandomDistortOpts{Brightness: []float64{0.6, 1.4, 0.5}, Contrast: []float64{0.6, 1.4, 0.5}, Saturation: []float64{0.5, 1.5, 0.5},
		Hue: []float64{-18, 18, 0.5}}, func(c config.Component, o RandomDistortOpts, _ *pipeline) (sampleOp, error) {
		for _, v := range [][]float64{o.Brightness, o.Contrast, o.Saturation, o.Hue} {
			if len(v) != 3 {
				return nil, c.Errorf("hue, brightness, contrast and saturation are [low, high, prob], got %v", v)
			}
		}
		return func(s *Sample, r *rand.Rand) error { distort(s, o, r); return nil }, nil
	})
	config.Add(r, "RandomExpand", RandomExpandOpts{Ratio: 4, Prob: 0.5, FillValue: []float64{123.675, 116.28, 103.53}}, func(c config.Component, o RandomExpandOpts, _ *pipeline) (sampleOp, error) {
		if len(o.FillValue) != 3 || o.Ratio < 1 {
			return nil, c.Errorf("ratio must be ≥ 1 and fill_value 3 numbers")
		}
		return func(s *Sample, r *rand.Rand) error { expand(s, o, r); return nil }, nil
	})
	config.Add(r, "RandomCrop", RandomCropOpts{AspectRatio: []float64{0.5, 2}, Thresholds: []float64{0.1, 0.3, 0.5, 0.7, 0.9}, Scaling: []float64{0.3, 1},
		NumAttempts: 50, Prob: 1}, func(c config.Component, o RandomCropOpts, _ *pipeline) (sampleOp, error) {
		if len(o.AspectRatio) != 2 || len(o.Scaling) != 2 {
			return nil, c.Errorf("aspect_ratio and scaling are [low, high]")
		}
		return func(s *Sample, r *rand.Rand) error { randomCrop(s, o, r); return nil }, nil
	})
	config.Add(r, "Resize", ResizeOpts{}, func(c config.Component, o ResizeOpts, p *pipeline) (sampleOp, error) {
		if len(o.TargetSize) != 2 || o.TargetSize[0] <= 0 || o.TargetSize[1] <= 0 {
			return nil, c.Errorf("target_size: want [h, w], got %v", o.TargetSize)
		}
		if o.KeepRatio {
			return nil, c.Errorf("keep_ratio: true is not supported (images are resized to target_size)")
		}
		p.fixed = [2]int{o.TargetSize[0], o.TargetSize[1]}
		h, w := p.fixed[0], p.fixed[1]
		return func(s *Sample, _ *rand.Rand) error { return resizeSample(s, h, w) }, nil
	})
	config.Add(r, "BatchRandomResize", BatchRandomResizeOpts{}, func(c config.Component, o BatchRandomResizeOpts, p *pipeline) (sampleOp, error) {
		for _, v := range o.TargetSize {
			p.sizes = append(p.sizes, [2]int{v, v})
		}
		if len(p.sizes) == 0 {
			return nil, c.Errorf("target_size is empty")
		}
		return nil, nil
	})
	config.Add(r, "NormalizeImage", NormalizeImageOpts{IsScale: true}, func(c config.Component, o NormalizeImageOpts, p *pipeline) (sampleOp, error) {
		if len(o.Mean) != 3 || len(o.Std) != 3 {
			return nil, c.Errorf("mean and std need 3 values each")
		}
		p.mean, p.std, p.scale = f32s(o.Mean), f32s(o.Std), 1
		if o.IsScale {
			p.scale = 1.0 / 255
		}
		return nil, nil
	})
	return r
}

func (p *pipeline) add(c config.Component) (sampleOp, error) { return transforms.Build(c, p) }

func f32s(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// apply runs the sample transforms.
func (p *pipeline) apply(s *Sample, r *rand.Rand) error {
	s.Pick = r.Uint64()
	for _, op := range p.ops {
		if err := op(s, r); err != nil {
			return err
		}
	}
	return nil
}

// resizeSample resizes the image to w×h (bilinear) and scales its boxes.
func resizeSample(s *Sample, h, w int) error {
	if s.Img.H == h && s.Img.W == w {
		return nil
	}
	fx, fy := float64(w)/float64(s.Img.W), float64(h)/float64(s.Img.H)
	img, err := data.Resize(s.Img, w, h)
	if err != nil {
		return err
	}
	s.Img = img
	for i, b := range s.Boxes {
		s.Boxes[i] = [4]float64{b[0] * fx, b[1] * fy, b[2] * fx, b[3] * fy}
	}
	s.SX, s.SY = s.SX*fx, s.SY*fy
	return nil
}

func flipH(s *Sample) {
	s.Img = data.FlipH(s.Img)
	w := float64(s.Img.W)
	for i, b := range s.Boxes {
		s.Boxes[i] = [4]float64{w - b[2], b[1], w - b[0], b[3]}
	}
}

func uniform(r *rand.Rand, lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }

// distort applies hue, brightness, contrast and saturation changes, each
// with its probability, in a random order.
func distort(s *Sample, o RandomDistortOpts, r *rand.Rand) {
	steps := []func(){
		func() {
			if r.Float64() < o.Hue[2] {
				s.Img = rotateHue(s.Img, uniform(r, o.Hue[0], o.Hue[1]))
			}
		},
		func() {
			if r.Float64() < o.Brightness[2] {
				s.Img = data.AdjustBrightness(s.Img, uniform(r, o.Brightness[0], o.Brightness[1]))
			}
		},
		func() {
			if r.Float64() < o.Contrast[2] {
				s.Img = data.AdjustContrast(s.Img, uniform(r, o.Contrast[0], o.Contrast[1]), false)
			}
		},
		func() {
			if r.Float64() < o.Saturation[2] {
				s.Img = data.AdjustSaturation(s.Img, uniform(r, o.Saturation[0], o.Saturation[1]), false)
			}
		},
	}
	for _, i := range r.Perm(len(steps)) {
		steps[i]()
	}
}

// rotateHue is PaddleDetection's RandomDistort hue step: the colours are
// rotated in the YIQ plane by delta·π radians (so its default [-18, 18]
// draws any hue rotation) and clipped to [0, 255].
func rotateHue(m *data.Image, delta float64) *data.Image {
	if m.C != 3 {
		return m
	}
	u, w := math.Cos(delta*math.Pi), math.Sin(delta*math.Pi)
	tyiq := [3][3]float64{{0.299, 0.587, 0.114}, {0.596, -0.274, -0.321}, {0.211, -0.523, 0.311}}
	ityiq := [3][3]float64{{1, 0.956, 0.621}, {1, -0.272, -0.647}, {1, -1.107, 1.705}}
	bt := [3][3]float64{{1, 0, 0}, {0, u, -w}, {0, w, u}}
	mul := func(a, b [3][3]float64) (c [3][3]float64) {
		for i := range 3 {
			for j := range 3 {
				for k := range 3 {
					c[i][j] += a[i][k] * b[k][j]
				}
			}
		}
		return c
	}
	t := mul(mul(ityiq, bt), tyiq) // out = t · rgb (PaddleDetection: img · tᵀ)
	var f [3][3]float32
	for i := range 3 {
		for j := range 3 {
			f[i][j] = float32(t[i][j])
		}
	}
	out := data.NewImage(m.H, m.W, 3)
	for i := 0; i < len(m.Pix); i += 3 {
		r, g, b := float32(m.Pix[i]), float32(m.Pix[i+1]), float32(m.Pix[i+2])
		for c := range 3 {
			out.Pix[i+c] = uint8(min(max(f[c][0]*r+f[c][1]*g+f[c][2]*b, 0), 255))
		}
	}
	return out
}

// expand places the image at a random spot of a canvas up to ratio times
// larger, filled with fill_value (PaddleDetection's RandomExpand).
func expand(s *Sample, o RandomExpandOpts, r *rand.Rand) {
	if r.Float64() >= o.Prob {
		return
	}
	f := uniform(r, 1, o.Ratio)
	if f < 1.01 {
		return
	}
	h, w := int(float64(s.Img.H)*f), int(float64(s.Img.W)*f)
	y0, x0 := r.IntN(h-s.Img.H+1), r.IntN(w-s.Img.W+1)
	out := data.NewImage(h, w, 3)
	fill := [3]uint8{uint8(o.FillValue[0]), uint8(o.FillValue[1]), uint8(o.FillValue[2])}
	for i := 0; i < len(out.Pix); i += 3 {
		copy(out.Pix[i:i+3], fill[:])
	}
	for y := range s.Img.H {
		copy(out.Pix[((y+y0)*w+x0)*3:], s.Img.Pix[y*s.Img.W*3:(y+1)*s.Img.W*3])
	}
	s.Img = out
	for i, b := range s.Boxes {
		s.Boxes[i] = [4]float64{b[0] + float64(x0), b[1] + float64(y0), b[2] + float64(x0), b[3] + float64(y0)}
	}
}

// randomCrop is PaddleDetection's (SSD-style) RandomCrop: pick an IoU
// threshold (or no crop), then try crops of random scale and aspect ratio
// until one overlaps some box (all boxes with cover_all_box) by at least
// the threshold; keep the boxes whose centres fall inside, clipped to it.
func randomCrop(s *Sample, o RandomCropOpts, r *rand.Rand) {
	if len(s.Boxes) == 0 || r.Float64() >= o.Prob {
		return
	}
	allowNo := o.AllowNoCrop == nil || *o.AllowNoCrop
	n := len(o.Thresholds)
	if allowNo {
		n++
	}
	k := r.IntN(n)
	if k == len(o.Thresholds) {
		return // "no crop"
	}
	thresh := o.Thresholds[k]
	H, W := float64(s.Img.H), float64(s.Img.W)
	for range o.NumAttempts {
		sc := uniform(r, o.Scaling[0], o.Scaling[1])
		ar := uniform(r, max(o.AspectRatio[0], sc*sc), min(o.AspectRatio[1], 1/(sc*sc)))
		ch, cw := int(H*sc/math.Sqrt(ar)), int(W*sc*math.Sqrt(ar))
		if ch < 8 || cw < 8 || ch > s.Img.H || cw > s.Img.W {
			continue
		}
		y0, x0 := r.IntN(s.Img.H-ch+1), r.IntN(s.Img.W-cw+1)
		crop := [4]float64{float64(x0), float64(y0), float64(x0 + cw), float64(y0 + ch)}
		lo, hi := math.Inf(1), 0.0
		for _, b := range s.Boxes {
			u := iou(crop, b)
			lo, hi = min(lo, u), max(hi, u)
		}
		if hi < thresh || (o.CoverAllBox && lo < thresh) {
			continue
		}
		var boxes [][4]float64
		var classes []int
		for i, b := range s.Boxes {
			cx, cy := (b[0]+b[2])/2, (b[1]+b[3])/2
			if cx <= crop[0] || cx >= crop[2] || cy <= crop[1] || cy >= crop[3] {
				continue
			}
			nb := [4]float64{max(b[0], crop[0]) - crop[0], max(b[1], crop[1]) - crop[1], min(b[2], crop[2]) - crop[0], min(b[3], crop[3]) - crop[1]}
			if nb[2]-nb[0] < 1 || nb[3]-nb[1] < 1 {
				continue
			}
			boxes, classes = append(boxes, nb), append(classes, s.Classes[i])
		}
		if len(boxes) == 0 {
			continue
		}
		img, err := data.Crop(s.Img, x0, y0, cw, ch)
		if err != nil {
			continue
		}
		s.Img, s.Boxes, s.Classes = img, boxes, classes
		return
	}
}

// mosaic places s and three more samples (decoded, untransformed) in the
// four quadrants around a random centre of a 2t×2t canvas, each scaled so
// its longer side is t, and keeps the boxes' visible parts (≥ 2 px).
func mosaic(s *Sample, more [3]Sample, o MosaicOpts, r *rand.Rand) error {
	t := o.TargetSize
	n := 2 * t
	out := data.NewImage(n, n, 3)
	fill := uint8(min(max(o.FillValue, 0), 255))
	for i := range out.Pix {
		out.Pix[i] = fill
	}
	xc, yc := int(uniform(r, 0.5, 1.5)*float64(t)), int(uniform(r, 0.5, 1.5)*float64(t))
	parts := append([]Sample{*s}, more[:]...)
	var boxes [][4]float64
	var classes []int
	for k, p := range parts {
		f := float64(t) / float64(max(p.Img.W, p.Img.H))
		w, h := max(int(float64(p.Img.W)*f+0.5), 1), max(int(float64(p.Img.H)*f+0.5), 1)
		img, err := data.Resize(p.Img, w, h)
		if err != nil {
			return err
		}
		// The quadrant's corner at the centre: top-left, top-right, bottom-left, bottom-right.
		x0, y0 := xc-w, yc-h
		if k%2 == 1 {
			x0 = xc
		}
		if k >= 2 {
			y0 = yc
		}
		for y := max(y0, 0); y < min(y0+h, n); y++ {
			sx := max(x0, 0) - x0
			ex := min(x0+w, n) - x0
			if ex <= sx {
				break
			}
			copy(out.Pix[(y*n+x0+sx)*3:(y*n+x0+ex)*3], img.Pix[((y-y0)*w+sx)*3:((y-y0)*w+ex)*3])
		}
		fx, fy := float64(w)/float64(p.Img.W), float64(h)/float64(p.Img.H)
		for i, b := range p.Boxes {
			nb := [4]float64{b[0]*fx + float64(x0), b[1]*fy + float64(y0), b[2]*fx + float64(x0), b[3]*fy + float64(y0)}
			nb = [4]float64{max(nb[0], 0), max(nb[1], 0), min(nb[2], float64(n)), min(nb[3], float64(n))}
			if nb[2]-nb[0] >= 2 && nb[3]-nb[1] >= 2 {
				boxes, classes = append(boxes, nb), append(classes, p.Classes[i])
			}
		}
	}
	s.Img, s.Boxes, s.Classes = out, boxes, classes
	return nil
}
