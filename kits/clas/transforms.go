package clas

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/tensor"
)

// Sample is one image on its way to the model.
type Sample struct {
	Path  string         // file it came from ("" for in-memory sets)
	File  []byte         // the encoded file itself (a served request), decoded instead of Path
	Image *data.Image    // decoded pixels (HWC)
	Label int            // class id (-1 when unknown, at predict time)
	X     *tensor.Tensor // (C, H, W) float32, set by NormalizeImage/ToCHWImage
}

// The PaddleClas transform ops, by their config names.

// DecodeImageOpts: decode the file (RGB unless to_rgb is false, which keeps BGR).
type DecodeImageOpts struct {
	ToRGB        *bool `yaml:"to_rgb"`
	ChannelFirst bool  `yaml:"channel_first"`
}

// ResizeImageOpts: resize_short keeps the aspect ratio; size is [w, h] or one int.
type ResizeImageOpts struct {
	ResizeShort int    `yaml:"resize_short"`
	Size        []int  `yaml:"size"`
	Interp      string `yaml:"interpolation"`
}

// CropImageOpts: centre crop to size ([w, h] or one int).
type CropImageOpts struct {
	Size any `yaml:"size"` // one int or [w, h]
}

// RandCropImageOpts: random resized crop (torchvision's), scale and ratio ranges.
type RandCropImageOpts struct {
	Size  any       `yaml:"size"` // one int or [w, h]
	Scale []float64 `yaml:"scale"`
	Ratio []float64 `yaml:"ratio"`
}

// RandFlipImageOpts: flip_code 1 = horizontal (default), 0 = vertical, with probability 0.5.
type RandFlipImageOpts struct {
	FlipCode *int `yaml:"flip_code"`
}

// NormalizeImageOpts: (pix*scale - mean)/std per channel.
type NormalizeImageOpts struct {
	Scale any       `yaml:"scale"` // a number or "1.0/255.0"
	Mean  []float64 `yaml:"mean"`
	Std   []float64 `yaml:"std"`
	Order string    `yaml:"order"`
}

// ToCHWImageOpts: layout change (NormalizeImage already produces CHW here).
type ToCHWImageOpts struct{}

type tf = data.TransformFunc[Sample]

// buildTransforms turns transform_ops into one transform. Files are decoded
// first (grey when Global.image_shape has one channel) unless a DecodeImage
// op says otherwise; images are resized to image_shape when no op resizes or
// crops; and it always ends with a tensor (pixels scaled to [0, 1] when no
// NormalizeImage is listed).
func buildTransforms(ops []config.Component, g GlobalOpts) (data.Transform[Sample], error) {
	var ts []data.Transform[Sample]
	normalized, decoded, sized := false, false, false
	for _, c := range ops {
		switch c.Name {
		case "DecodeImage":
			decoded = true
		case "ResizeImage", "CropImage", "RandCropImage":
			sized = true
		}
	}
	if !decoded {
		mode := data.RGB
		if g.ImageShape[0] == 1 {
			mode = data.Gray
		}
		ts = append(ts, decode(mode))
	}
	for _, c := range ops {
		t, err := buildTransform(c)
		if err != nil {
			return nil, err
		}
		if c.Name == "NormalizeImage" {
			normalized = true
		}
		if t != nil {
			ts = append(ts, t)
		}
	}
	if !sized {
		ts = append(ts, resizeTo(g.ImageShape[2], g.ImageShape[1]))
	}
	if !normalized {
		ts = append(ts, normalize(1.0/255, nil, nil))
	}
	return data.Compose(ts...), nil
}

// transforms are the PaddleClas transform ops transform_ops can name.
var transforms = newTransforms()

type transform = data.Transform[Sample]

func newTransforms() *config.Registry[struct{}, transform] {
	r := config.NewRegistry[struct{}, transform]("transform")
	config.Add(r, "DecodeImage", DecodeImageOpts{}, func(_ config.Component, o DecodeImageOpts, _ struct{}) (transform, error) {
		mode := data.RGB
		if o.ToRGB != nil && !*o.ToRGB {
			mode = data.BGR
		}
		return decode(mode), nil
	})
	config.Add(r, "ResizeImage", ResizeImageOpts{}, func(c config.Component, o ResizeImageOpts, _ struct{}) (transform, error) {
		if o.ResizeShort > 0 {
			return onImage(data.ResizeShortImage{Short: o.ResizeShort}), nil
		}
		w, h, err := wh(o.Size)
		if err != nil || o.Size == nil {
			return nil, c.Errorf("ResizeImage: set resize_short or size (an int or [w, h])")
		}
		return onImage(data.ResizeImage{W: w, H: h}), nil
	})
	config.Add(r, "CropImage", CropImageOpts{}, func(c config.Component, o CropImageOpts, _ struct{}) (transform, error) {
		w, h, err := wh(o.Size)
		if err != nil {
			return nil, c.Errorf("CropImage.size: %v", err)
		}
		return onImage(data.CenterCropImage{W: w, H: h}), nil
	})
	config.Add(r, "RandCropImage", RandCropImageOpts{}, func(c config.Component, o RandCropImageOpts, _ struct{}) (transform, error) {
		w, h, err := wh(o.Size)
		if err != nil {
			return nil, c.Errorf("RandCropImage.size: %v", err)
		}
		t := data.RandomResizedCrop{W: w, H: h}
		copy(t.Scale[:], o.Scale)
		copy(t.Ratio[:], o.Ratio)
		return onImage(t), nil
	})
	config.Add(r, "RandFlipImage", RandFlipImageOpts{}, func(_ config.Component, o RandFlipImageOpts, _ struct{}) (transform, error) {
		return onImage(data.RandomFlip{Vertical: o.FlipCode != nil && *o.FlipCode == 0}), nil
	})
	config.Add(r, "NormalizeImage", NormalizeImageOpts{}, func(c config.Component, o NormalizeImageOpts, _ struct{}) (transform, error) {
		scale, err := parseScale(o.Scale)
		if err != nil {
			return nil, c.Errorf("NormalizeImage.scale: %v", err)
		}
		return normalize(scale, o.Mean, o.Std), nil
	})
	config.Add(r, "ToCHWImage", ToCHWImageOpts{}, func(config.Component, ToCHWImageOpts, struct{}) (transform, error) {
		return nil, nil // NormalizeImage already produces CHW here
	})
	return r
}

func buildTransform(c config.Component) (transform, error) { return transforms.Build(c, struct{}{}) }

// decode reads the sample's file unless its pixels are already in memory.
func decode(mode data.ColorMode) data.Transform[Sample] {
	return tf(func(s *Sample, _ *rand.Rand) (bool, error) {
		if s.Image != nil {
			return true, nil
		}
		var img *data.Image
		var err error
		if s.File != nil {
			img, err = data.Decode(s.File, mode)
		} else {
			img, err = data.DecodeFile(s.Path, mode)
		}
		s.Image = img
		return err == nil, err
	})
}

// onImage applies an image transform to the sample's image.
func onImage(t data.Transform[data.Image]) data.Transform[Sample] {
	return data.OnImage(func(s *Sample) *data.Image { return s.Image }, t)
}

// resizeTo resizes to w×h when the image has another size.
func resizeTo(w, h int) data.Transform[Sample] {
	return tf(func(s *Sample, _ *rand.Rand) (bool, error) {
		if s.Image.W == w && s.Image.H == h {
			return true, nil
		}
		var err error
		s.Image, err = data.Resize(s.Image, w, h)
		return err == nil, err
	})
}

func normalize(scale float64, mean, std []float64) data.Transform[Sample] {
	m32, s32 := f32s(mean), f32s(std)
	return tf(func(s *Sample, _ *rand.Rand) (bool, error) {
		if s.Image == nil {
			return false, fmt.Errorf("NormalizeImage before DecodeImage")
		}
		mm, ss := m32, s32
		if len(mm) == 3 && s.Image.C == 1 { // ImageNet stats on a grey image: use the first channel
			mm, ss = mm[:1], ss[:1]
		}
		x, err := data.ToTensor(s.Image, float32(scale), mm, ss)
		s.X = x
		return err == nil, err
	})
}

func f32s(v []float64) []float32 {
	if v == nil {
		return nil
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func parseScale(v any) (float64, error) {
	switch s := v.(type) {
	case nil:
		return 1.0 / 255, nil
	case float64:
		return s, nil
	case int:
		return float64(s), nil
	case string:
		var a, b float64
		if n, _ := fmt.Sscanf(s, "%g/%g", &a, &b); n == 2 && b != 0 {
			return a / b, nil
		}
		var x float64
		if _, err := fmt.Sscanf(s, "%g", &x); err == nil {
			return x, nil
		}
	}
	return 0, fmt.Errorf("want a number or a fraction like 1.0/255.0, got %v", v)
}

// wh reads a size given as one int (square) or [w, h].
func wh(size any) (int, int, error) {
	switch v := size.(type) {
	case int:
		if v > 0 {
			return v, v, nil
		}
	case []int: // ResizeImage's size field
		if len(v) == 2 && v[0] > 0 && v[1] > 0 {
			return v[0], v[1], nil
		}
	case []any:
		if len(v) == 2 {
			w, okw := v[0].(int)
			h, okh := v[1].(int)
			if okw && okh && w > 0 && h > 0 {
				return w, h, nil
			}
		}
	}
	return 0, 0, fmt.Errorf("want a positive int or [w, h], got %v", size)
}
