package dettrain

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/imgproc"
	"paddle/core/tensor"
)

// Sample is one page on its way to the model.
type Sample struct {
	Path   string
	Image  imgproc.Mat8      // BGR pixels (HWC)
	Polys  [][]imgproc.Point // text polygons in Image's pixels (training) or the source's (eval)
	Ignore []bool            // "###" regions
	SrcH   int               // source image size, for mapping boxes back (eval)
	SrcW   int
	X      *tensor.Tensor // (3, H, W) float32, set by NormalizeImage
	// Label maps (H×W), set by MakeBorderMap and MakeShrinkMap.
	ThreshMap, ThreshMask, ShrinkMap, ShrinkMask []float32
}

// Transform options (PaddleOCR names).
type (
	// DecodeImageOpts: img_mode BGR (default) or RGB.
	DecodeImageOpts struct {
		ImgMode      string `yaml:"img_mode"`
		ChannelFirst bool   `yaml:"channel_first"`
	}
	// DetLabelEncodeOpts: the label's polygons and "###" flags (already parsed).
	DetLabelEncodeOpts struct{}
	// IaaAugmentOpts: augmenter_args, default Fliplr p 0.5, Affine rotate [−10, 10], Resize [0.5, 3].
	IaaAugmentOpts struct {
		AugmenterArgs []IaaArg `yaml:"augmenter_args"`
	}
	// NormalizeImageOpts: (v·scale − mean)/std per channel, ImageNet defaults.
	NormalizeImageOpts struct {
		Scale any       `yaml:"scale"` // number or "1./255."
		Mean  []float64 `yaml:"mean"`
		Std   []float64 `yaml:"std"`
		Order string    `yaml:"order"` // hwc
	}
	// ToCHWImageOpts: accepted; NormalizeImage already writes CHW.
	ToCHWImageOpts struct{}
	// KeepKeysOpts: accepted; the batch has fixed fields.
	KeepKeysOpts struct {
		KeepKeys []string `yaml:"keep_keys"`
	}
	// DetResizeForTestOpts: resize for evaluation (PaddleOCR's DetResizeForTest).
	DetResizeForTestOpts struct {
		LimitSideLen int    `yaml:"limit_side_len"` // default 736
		LimitType    string `yaml:"limit_type"`     // min (default) | max
		ImageShape   []int  `yaml:"image_shape"`    // [h, w]: resize to exactly this
		KeepRatio    bool   `yaml:"keep_ratio"`
	}
)

type tf = data.TransformFunc[Sample]

// buildTransforms turns a transforms list into one transform. withLabels
// false drops the label-map steps (prediction).
func buildTransforms(ops []config.Component, withLabels bool) (data.Transform[Sample], error) {
	var ts []data.Transform[Sample]
	for _, c := range ops {
		t, err := buildTransform(c, withLabels)
		if err != nil {
			return nil, err
		}
		if t != nil {
			ts = append(ts, t)
		}
	}
	return data.Compose(ts...), nil
}

func buildTransform(c config.Component, withLabels bool) (data.Transform[Sample], error) {
	return transforms.Build(c, withLabels)
}

// transforms are the PaddleOCR detection transforms a transforms list can
// name; their env says whether labels are made (false: prediction, the
// label-map steps are dropped). A nil transform is a step with nothing to
// do here (label encoding, layout, key selection happen by construction).
var transforms = newTransforms()

func newTransforms() *config.Registry[bool, data.Transform[Sample]] {
	r := config.NewRegistry[bool, data.Transform[Sample]]("transform")
	config.Add(r, "DecodeImage", DecodeImageOpts{}, func(c config.Component, o DecodeImageOpts, _ bool) (data.Transform[Sample], error) {
		mode := data.BGR
		if o.ImgMode != "" {
			m, err := data.ParseColorMode(o.ImgMode)
			if err != nil || m == data.Gray {
				return nil, c.Errorf("DecodeImage.img_mode %q: want BGR or RGB", o.ImgMode)
			}
			mode = m
		}
		return tf(func(s *Sample, _ *rand.Rand) (bool, error) {
			if s.Image.Pix != nil {
				return true, nil
			}
			img, err := data.DecodeFile(s.Path, mode)
			if err != nil {
				return false, err
			}
			s.Image = imgproc.Mat8{H: img.H, W: img.W, C: img.C, Pix: img.Pix}
			s.SrcH, s.SrcW = img.H, img.W
			return true, nil
		}), nil
	})
	config.Add(r, "DetLabelEncode", DetLabelEncodeOpts{}, func(config.Component, DetLabelEncodeOpts, bool) (data.Transform[Sample], error) { return nil, nil })
	config.Add(r, "IaaAugment", IaaAugmentOpts{}, func(c config.Component, o IaaAugmentOpts, _ bool) (data.Transform[Sample], error) {
		augs, err := parseIaa(o.AugmenterArgs)
		if err != nil {
			return nil, c.Errorf("IaaAugment.augmenter_args: %v", err)
		}
		return tf(func(s *Sample, r *rand.Rand) (bool, error) {
			s.Image = applyIaa(augs, s.Image, s.Polys, r)
			return true, nil
		}), nil
	})
	config.Add(r, "EastRandomCropData", CropOpts{Size: []int{640, 640}, MaxTries: 10, MinCropSideRatio: 0.1}, func(c config.Component, o CropOpts, _ bool) (data.Transform[Sample], error) {
		if len(o.Size) != 2 || o.Size[0] <= 0 || o.Size[1] <= 0 {
			return nil, c.Errorf("EastRandomCropData.size %v: want [w, h]", o.Size)
		}
		return tf(func(s *Sample, r *rand.Rand) (bool, error) {
			eastRandomCrop(s, o, r)
			return true, nil
		}), nil
	})
	config.Add(r, "MakeBorderMap", BorderMapOpts{ShrinkRatio: 0.4, ThreshMin: 0.3, ThreshMax: 0.7}, func(_ config.Component, o BorderMapOpts, withLabels bool) (data.Transform[Sample], error) {
		if !withLabels {
			return nil, nil
		}
		return tf(func(s *Sample, _ *rand.Rand) (bool, error) {
			s.ThreshMap, s.ThreshMask = MakeBorderMap(s.Polys, s.Ignore, s.Image.H, s.Image.W, o)
			return true, nil
		}), nil
	})
	config.Add(r, "MakeShrinkMap", ShrinkMapOpts{ShrinkRatio: 0.4, MinTextSize: 8}, func(c config.Component, o ShrinkMapOpts, withLabels bool) (data.Transform[Sample], error) {
		if !withLabels {
			return nil, nil
		}
		if !(o.ShrinkRatio > 0 && o.ShrinkRatio < 1) {
			return nil, c.Errorf("MakeShrinkMap.shrink_ratio %v: want 0 < r < 1", o.ShrinkRatio)
		}
		return tf(func(s *Sample, _ *rand.Rand) (bool, error) {
			s.ShrinkMap, s.ShrinkMask = MakeShrinkMap(s.Polys, s.Ignore, s.Image.H, s.Image.W, o)
			return true, nil
		}), nil
	})
	config.Add(r, "NormalizeImage", NormalizeImageOpts{Mean: []float64{0.485, 0.456, 0.406}, Std: []float64{0.229, 0.224, 0.225}}, func(c config.Component, o NormalizeImageOpts, _ bool) (data.Transform[Sample], error) {
		scale, err := parseScale(o.Scale)
		if err != nil || len(o.Mean) != 3 || len(o.Std) != 3 {
			return nil, c.Errorf("NormalizeImage: want scale a number and 3 means and stds (%v)", err)
		}
		return tf(func(s *Sample, _ *rand.Rand) (bool, error) {
			s.X = normalize(s.Image, scale, o.Mean, o.Std)
			return true, nil
		}), nil
	})
	config.Add(r, "ToCHWImage", ToCHWImageOpts{}, func(config.Component, ToCHWImageOpts, bool) (data.Transform[Sample], error) { return nil, nil })
	config.Add(r, "KeepKeys", KeepKeysOpts{}, func(config.Component, KeepKeysOpts, bool) (data.Transform[Sample], error) { return nil, nil })
	config.Add(r, "DetResizeForTest", DetResizeForTestOpts{LimitSideLen: 736, LimitType: "min"}, func(_ config.Component, o DetResizeForTestOpts, _ bool) (data.Transform[Sample], error) {
		return tf(func(s *Sample, _ *rand.Rand) (bool, error) {
			h, w := resizeForTest(s.Image.H, s.Image.W, o)
			if h != s.Image.H || w != s.Image.W {
				s.Image = imgproc.ResizeLinear(s.Image, w, h)
			}
			return true, nil
		}), nil
	})
	return r
}

// augmenters are the IaaAugment augmenter types, each with how its args are read.
var augmenters = new(config.Choices[func(IaaArg) (iaa, error)]).
	Add("Fliplr", func(a IaaArg) (iaa, error) {
		p, err := number(a.Args["p"], 0.5)
		if err != nil {
			return iaa{}, fmt.Errorf("Fliplr.p: %w", err)
		}
		return iaa{kind: a.Type, p: p}, nil
	}).
	Add("Affine", iaaRange("rotate")).
	Add("Resize", iaaRange("size"))

// iaaRange reads an augmenter whose args[key] is a [low, high] range.
func iaaRange(key string) func(IaaArg) (iaa, error) {
	return func(a IaaArg) (iaa, error) {
		lo, hi, err := numberRange(a.Args[key])
		if err != nil {
			return iaa{}, fmt.Errorf("%s.%s: %w", a.Type, key, err)
		}
		return iaa{kind: a.Type, lo: lo, hi: hi}, nil
	}
}

func parseIaa(args []IaaArg) ([]iaa, error) {
	if len(args) == 0 {
		return defaultIaa, nil
	}
	var out []iaa
	for _, a := range args {
		parse, ok := augmenters.Get(a.Type)
		if !ok {
			return nil, fmt.Errorf("augmenter %q is not implemented (known: %s)", a.Type, augmenters.Known())
		}
		aug, err := parse(a)
		if err != nil {
			return nil, err
		}
		out = append(out, aug)
	}
	return out, nil
}

func number(v any, def float64) (float64, error) {
	switch x := v.(type) {
	case nil:
		return def, nil
	case int:
		return float64(x), nil
	case float64:
		return x, nil
	}
	return 0, fmt.Errorf("%v is not a number", v)
}

// numberRange reads [lo, hi] or a single number (lo = hi).
func numberRange(v any) (float64, float64, error) {
	if l, ok := v.([]any); ok && len(l) == 2 {
		lo, err1 := number(l[0], 0)
		hi, err2 := number(l[1], 0)
		if err1 == nil && err2 == nil {
			return lo, hi, nil
		}
	}
	x, err := number(v, math.NaN())
	if err != nil || math.IsNaN(x) {
		return 0, 0, fmt.Errorf("%v: want [lo, hi] or a number", v)
	}
	return x, x, nil
}

// parseScale reads NormalizeImage.scale: a number or PaddleOCR's "1./255.".
func parseScale(v any) (float64, error) {
	if s, ok := v.(string); ok {
		var a, b float64
		if _, err := fmt.Sscanf(s, "%g/%g", &a, &b); err != nil || b == 0 {
			return 0, fmt.Errorf("scale %q", s)
		}
		return a / b, nil
	}
	return number(v, 1.0/255)
}

// normalize writes (v·scale − mean[c])/std[c] as a (3, H, W) float32 tensor.
func normalize(img imgproc.Mat8, scale float64, mean, std []float64) *tensor.Tensor {
	x := tensor.New(tensor.Float32, 3, img.H, img.W)
	xv := x.F32()
	plane := img.H * img.W
	var m, s [3]float32
	for c := range 3 {
		m[c], s[c] = float32(mean[c]), float32(std[c])
	}
	sc := float32(scale)
	for i := range plane {
		for c := range 3 {
			v := img.Pix[i*img.C+min(c, img.C-1)]
			xv[c*plane+i] = (float32(v)*sc - m[c]) / s[c]
		}
	}
	return x
}

// resizeForTest is DetResizeForTest's output size: image_shape as given, or
// resize_image_type0 (ratio from limit_side_len and limit_type, each side
// rounded to a multiple of 32, at least 32).
func resizeForTest(h, w int, o DetResizeForTestOpts) (int, int) {
	if len(o.ImageShape) == 2 {
		rh, rw := o.ImageShape[0], o.ImageShape[1]
		if o.KeepRatio {
			rw = int(math.Ceil(float64(w)*float64(rh)/float64(h)/32) * 32)
		}
		return rh, rw
	}
	ratio := 1.0
	lim := float64(o.LimitSideLen)
	if o.LimitType == "max" {
		if m := max(h, w); float64(m) > lim {
			ratio = lim / float64(m)
		}
	} else if m := min(h, w); float64(m) < lim {
		ratio = lim / float64(m)
	}
	r32 := func(v int) int { return max(int(math.RoundToEven(float64(v)/32)*32), 32) }
	return r32(int(float64(h) * ratio)), r32(int(float64(w) * ratio))
}
