package seg

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/tensor"
)

// item is one sample on its way through the transforms: an RGB image and
// its label map (nil at predict time) until Normalize turns the image into X.
type item struct {
	Path string
	Img  *data.Image // (H, W, 3) uint8
	Lab  *LabelMap   // (H, W) classes / ignore; nil without a label
	X    *tensor.Tensor
}

type transform = data.Transform[item]
type transformFunc = data.TransformFunc[item]

// normalizer is the Normalize step, kept so inference can run it last.
type normalizer struct{ mean, std []float32 }

func (n normalizer) Apply(s *item, _ *rand.Rand) (bool, error) {
	x, err := data.ToTensor(s.Img, 1.0/255, n.mean, n.std)
	if err != nil {
		return false, err
	}
	s.X = x
	return true, nil
}

// buildTransforms turns PaddleSeg transform entries into a pipeline. A
// Normalize (mean 0.5, std 0.5) is added at the end when absent, since the
// model needs a tensor.
func buildTransforms(ops []config.Component) (transform, error) {
	var ts []transform
	norm := false
	for _, c := range ops {
		t, err := buildTransform(c)
		if err != nil {
			return nil, err
		}
		if _, ok := t.(normalizer); ok {
			norm = true
		} else if norm {
			return nil, c.Errorf("%s after Normalize: Normalize must be the last transform", c.Name)
		}
		ts = append(ts, t)
	}
	if !norm {
		ts = append(ts, defaultNormalizer())
	}
	return data.Compose(ts...), nil
}

func defaultNormalizer() normalizer {
	return normalizer{mean: []float32{0.5, 0.5, 0.5}, std: []float32{0.5, 0.5, 0.5}}
}

func prob(p *float64, def float64) float64 {
	if p != nil {
		return *p
	}
	return def
}

// transforms are the PaddleSeg transforms a `transforms:` list can name.
var transforms = newTransforms()

func newTransforms() *config.Registry[struct{}, transform] {
	r := config.NewRegistry[struct{}, transform]("transform")
	config.Add(r, "ResizeStepScaling", ResizeStepScalingOpts{MinScaleFactor: 0.75, MaxScaleFactor: 1.25, ScaleStepSize: 0.25}, func(c config.Component, o ResizeStepScalingOpts, _ struct{}) (transform, error) {
		if o.MinScaleFactor <= 0 || o.MinScaleFactor > o.MaxScaleFactor {
			return nil, c.Errorf("ResizeStepScaling: want 0 < min_scale_factor ≤ max_scale_factor, got %g, %g", o.MinScaleFactor, o.MaxScaleFactor)
		}
		return transformFunc(func(s *item, r *rand.Rand) (bool, error) { return true, resizeStepScaling(s, o, r) }), nil
	})
	config.Add(r, "RandomPaddingCrop", RandomPaddingCropOpts{CropSize: []int{512, 512}}, func(c config.Component, o RandomPaddingCropOpts, _ struct{}) (transform, error) {
		if len(o.CropSize) != 2 || o.CropSize[0] < 1 || o.CropSize[1] < 1 {
			return nil, c.Errorf("RandomPaddingCrop: crop_size wants [w, h] > 0, got %v", o.CropSize)
		}
		imPad := uint8(math.Round(prob(o.ImPaddingValue, 127.5)))
		labPad := uint8(ignoreOr(o.LabelPaddingValue, 255))
		return transformFunc(func(s *item, r *rand.Rand) (bool, error) {
			randomPaddingCrop(s, o.CropSize[0], o.CropSize[1], imPad, labPad, r)
			return true, nil
		}), nil
	})
	config.Add(r, "RandomHorizontalFlip", RandomHorizontalFlipOpts{}, func(c config.Component, o RandomHorizontalFlipOpts, _ struct{}) (transform, error) {
		p := prob(o.Prob, 0.5)
		return transformFunc(func(s *item, r *rand.Rand) (bool, error) {
			if r.Float64() < p {
				s.Img = data.FlipH(s.Img)
				if s.Lab != nil {
					s.Lab = flipLabel(s.Lab)
				}
			}
			return true, nil
		}), nil
	})
	config.Add(r, "RandomDistort", RandomDistortOpts{BrightnessRange: 0.5, ContrastRange: 0.5, SaturationRange: 0.5}, func(c config.Component, o RandomDistortOpts, _ struct{}) (transform, error) {
		return transformFunc(func(s *item, r *rand.Rand) (bool, error) { randomDistort(s, o, r); return true, nil }), nil
	})
	config.Add(r, "Resize", ResizeOpts{TargetSize: []int{512, 512}}, func(c config.Component, o ResizeOpts, _ struct{}) (transform, error) {
		if len(o.TargetSize) != 2 || o.TargetSize[0] < 1 || o.TargetSize[1] < 1 {
			return nil, c.Errorf("Resize: target_size wants [w, h] > 0, got %v", o.TargetSize)
		}
		return transformFunc(func(s *item, _ *rand.Rand) (bool, error) {
			return true, resizeItem(s, o.TargetSize[0], o.TargetSize[1])
		}), nil
	})
	config.Add(r, "Normalize", NormalizeOpts{Mean: []float64{0.5, 0.5, 0.5}, Std: []float64{0.5, 0.5, 0.5}}, func(c config.Component, o NormalizeOpts, _ struct{}) (transform, error) {
		if len(o.Mean) != 3 || len(o.Std) != 3 {
			return nil, c.Errorf("Normalize: mean and std want 3 values each, got %v, %v", o.Mean, o.Std)
		}
		n := normalizer{}
		for i := range 3 {
			if o.Std[i] == 0 {
				return nil, c.Errorf("Normalize: std[%d] is 0", i)
			}
			n.mean = append(n.mean, float32(o.Mean[i]))
			n.std = append(n.std, float32(o.Std[i]))
		}
		return n, nil
	})
	return r
}

func buildTransform(c config.Component) (transform, error) { return transforms.Build(c, struct{}{}) }

// resizeItem resizes the image bilinearly and the label by nearest
// neighbour to w×h.
func resizeItem(s *item, w, h int) error {
	if s.Img.W == w && s.Img.H == h {
		return nil
	}
	img, err := data.Resize(s.Img, w, h)
	if err != nil {
		return err
	}
	s.Img = img
	if s.Lab != nil {
		s.Lab = resizeLabel(s.Lab, w, h)
	}
	return nil
}

// resizeLabel is cv2.resize(INTER_NEAREST): source index floor(dst·src/dst).
func resizeLabel(m *LabelMap, w, h int) *LabelMap {
	out := &LabelMap{H: h, W: w, Pix: make([]uint8, w*h)}
	sx, sy := float64(m.W)/float64(w), float64(m.H)/float64(h)
	xs := make([]int, w)
	for x := range w {
		xs[x] = min(int(math.Floor(float64(x)*sx)), m.W-1)
	}
	for y := range h {
		row := m.Pix[min(int(math.Floor(float64(y)*sy)), m.H-1)*m.W:]
		o := out.Pix[y*w : (y+1)*w]
		for x, v := range xs {
			o[x] = row[v]
		}
	}
	return out
}

func flipLabel(m *LabelMap) *LabelMap {
	out := &LabelMap{H: m.H, W: m.W, Pix: make([]uint8, len(m.Pix))}
	for y := range m.H {
		src, dst := m.Pix[y*m.W:(y+1)*m.W], out.Pix[y*m.W:(y+1)*m.W]
		for x := range m.W {
			dst[x] = src[m.W-1-x]
		}
	}
	return out
}

// resizeStepScaling is PaddleSeg's ResizeStepScaling: a scale drawn from
// min..max in steps of scale_step_size (uniformly when the step is 0),
// sizes round(scale·W), round(scale·H).
func resizeStepScaling(s *item, o ResizeStepScalingOpts, r *rand.Rand) error {
	scale := o.MinScaleFactor
	switch {
	case o.MinScaleFactor == o.MaxScaleFactor:
	case o.ScaleStepSize <= 0:
		scale = o.MinScaleFactor + r.Float64()*(o.MaxScaleFactor-o.MinScaleFactor)
	default:
		n := int((o.MaxScaleFactor-o.MinScaleFactor)/o.ScaleStepSize + 1)
		k := r.IntN(max(n, 1))
		if n > 1 {
			scale = o.MinScaleFactor + float64(k)*(o.MaxScaleFactor-o.MinScaleFactor)/float64(n-1)
		}
	}
	w := max(int(math.Round(scale*float64(s.Img.W))), 1)
	h := max(int(math.Round(scale*float64(s.Img.H))), 1)
	return resizeItem(s, w, h)
}

// randomPaddingCrop pads the image (value imPad) and label (labPad) at the
// bottom and right up to cw×ch, then crops cw×ch at a random offset.
func randomPaddingCrop(s *item, cw, ch int, imPad, labPad uint8, r *rand.Rand) {
	w, h := s.Img.W, s.Img.H
	if w == cw && h == ch {
		return
	}
	pw, ph := max(w, cw), max(h, ch)
	x0, y0 := r.IntN(pw-cw+1), r.IntN(ph-ch+1)
	img := data.NewImage(ch, cw, s.Img.C)
	c := s.Img.C
	for i := range img.Pix {
		img.Pix[i] = imPad
	}
	var lab *LabelMap
	if s.Lab != nil {
		lab = &LabelMap{H: ch, W: cw, Pix: make([]uint8, cw*ch)}
		for i := range lab.Pix {
			lab.Pix[i] = labPad
		}
	}
	for y := range ch {
		sy := y + y0
		if sy >= h {
			break
		}
		n := min(cw, w-x0) // columns inside the source
		if n <= 0 {
			break
		}
		copy(img.Pix[y*cw*c:(y*cw+n)*c], s.Img.Pix[(sy*w+x0)*c:(sy*w+x0+n)*c])
		if lab != nil {
			copy(lab.Pix[y*cw:y*cw+n], s.Lab.Pix[sy*w+x0:sy*w+x0+n])
		}
	}
	s.Img, s.Lab = img, lab
}

// randomDistort is PaddleSeg's RandomDistort without hue and sharpness:
// brightness, contrast and saturation, in a random order, each applied with
// its probability (default 0.5) and a factor uniform in [1-range, 1+range].
func randomDistort(s *item, o RandomDistortOpts, r *rand.Rand) {
	type step struct {
		rng, p float64
		f      func(m *data.Image, f float64) *data.Image
	}
	steps := []step{
		{o.BrightnessRange, prob(o.BrightnessProb, 0.5), data.AdjustBrightness},
		{o.ContrastRange, prob(o.ContrastProb, 0.5), func(m *data.Image, f float64) *data.Image { return data.AdjustContrast(m, f, false) }},
		{o.SaturationRange, prob(o.SaturationProb, 0.5), func(m *data.Image, f float64) *data.Image { return data.AdjustSaturation(m, f, false) }},
	}
	for _, i := range r.Perm(len(steps)) {
		st := steps[i]
		if st.rng <= 0 || r.Float64() >= st.p {
			continue
		}
		f := 1 - st.rng + r.Float64()*2*st.rng
		s.Img = st.f(s.Img, max(f, 0))
	}
}

// checkSameSize reports an item whose label does not match its image.
func checkSameSize(s *item) error {
	if s.Lab != nil && (s.Lab.W != s.Img.W || s.Lab.H != s.Img.H) {
		return fmt.Errorf("%s: image %dx%d but label %dx%d", s.Path, s.Img.W, s.Img.H, s.Lab.W, s.Lab.H)
	}
	return nil
}
