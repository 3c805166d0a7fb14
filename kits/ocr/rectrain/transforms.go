package rectrain

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/tensor"
)

// Sample is one text line on its way to the model.
type Sample struct {
	Path       string         // image file
	Text       string         // label text as read
	Image      *data.Image    // decoded pixels (HWC, BGR unless DecodeImage says otherwise)
	Label      []int          // CTC classes, set by CTCLabelEncode
	X          *tensor.Tensor // (C, H, W) float32, set by RecResizeImg
	ValidRatio float64        // resized width / padded width
}

// DecodeImageOpts: decode the file; img_mode BGR (default), RGB or GRAY.
type DecodeImageOpts struct {
	ImgMode      string `yaml:"img_mode"`
	ChannelFirst bool   `yaml:"channel_first"`
}

// CTCLabelEncodeOpts: text → classes; keys default to Global's.
type CTCLabelEncodeOpts struct {
	MaxTextLength     int    `yaml:"max_text_length" check:"min=1"`
	CharacterDictPath string `yaml:"character_dict_path"`
	UseSpaceChar      *bool  `yaml:"use_space_char"`
}

// RecResizeImgOpts: PP-OCR's resize_norm_img (eval_mode: resize_norm_img_chinese).
type RecResizeImgOpts struct {
	ImageShape        []int  `yaml:"image_shape"` // [C, H, W]
	Padding           *bool  `yaml:"padding"`     // keep the aspect ratio and right-pad (default true)
	EvalMode          bool   `yaml:"eval_mode"`   // widen beyond W for long lines instead of squeezing
	InferMode         bool   `yaml:"infer_mode"`
	CharacterDictPath string `yaml:"character_dict_path"`
}

// RecAugOpts: light training augmentation with PaddleOCR's RecAug
// probabilities. tia_prob applies a random horizontal stretch (0.8–1.25) in
// place of PaddleOCR's TIA warps (not implemented here).
type RecAugOpts struct {
	TiaProb     *float64 `yaml:"tia_prob"`
	CropProb    *float64 `yaml:"crop_prob"`
	ReverseProb *float64 `yaml:"reverse_prob"`
	NoiseProb   *float64 `yaml:"noise_prob"`
	JitterProb  *float64 `yaml:"jitter_prob"`
	BlurProb    *float64 `yaml:"blur_prob"`
	HsvAugProb  *float64 `yaml:"hsv_aug_prob"`
}

// KeepKeysOpts is accepted and does nothing: the model collates its own fields.
type KeepKeysOpts struct {
	KeepKeys []string `yaml:"keep_keys"`
}

type tf = data.TransformFunc[Sample]

// buildTransforms turns a transforms list into one transform; dict and
// maxLen are the Global defaults CTCLabelEncode uses. It also returns the
// [C, H, W] shape RecResizeImg makes (nil without one).
func buildTransforms(ops []config.Component, g GlobalOpts, withLabels bool) (data.Transform[Sample], []int, error) {
	var ts []data.Transform[Sample]
	env := &transformEnv{g: g, withLabels: withLabels}
	for _, c := range ops {
		t, err := transforms.Build(c, env)
		if err != nil {
			return nil, nil, err
		}
		if t != nil {
			ts = append(ts, t)
		}
	}
	shape := env.shape
	if shape == nil {
		return nil, nil, fmt.Errorf("transforms: RecResizeImg is required (the model needs a fixed height)")
	}
	return data.Compose(ts...), shape, nil
}

// transformEnv is what the transforms are built with: the Global defaults
// CTCLabelEncode uses, whether labels are made (false: prediction), and
// the [C, H, W] shape RecResizeImg makes, which it records.
type transformEnv struct {
	g          GlobalOpts
	withLabels bool
	shape      []int
}

// transforms are the PaddleOCR recognition transforms a transforms list
// can name; a nil transform is a step with nothing to do here.
var transforms = newTransforms()

func newTransforms() *config.Registry[*transformEnv, data.Transform[Sample]] {
	r := config.NewRegistry[*transformEnv, data.Transform[Sample]]("transform")
	config.Add(r, "DecodeImage", DecodeImageOpts{}, func(c config.Component, o DecodeImageOpts, _ *transformEnv) (data.Transform[Sample], error) {
		mode := data.BGR
		if o.ImgMode != "" {
			m, err := data.ParseColorMode(o.ImgMode)
			if err != nil {
				return nil, c.Errorf("DecodeImage.img_mode: %v", err)
			}
			mode = m
		}
		return tf(func(s *Sample, _ *rand.Rand) (bool, error) {
			if s.Image != nil {
				return true, nil
			}
			img, err := data.DecodeFile(s.Path, mode)
			s.Image = img
			return err == nil, err
		}), nil
	})
	config.Add(r, "CTCLabelEncode", CTCLabelEncodeOpts{}, func(c config.Component, _ CTCLabelEncodeOpts, e *transformEnv) (data.Transform[Sample], error) {
		if !e.withLabels {
			return nil, nil
		}
		// The defaults are the Global section's: decode again onto them.
		o := CTCLabelEncodeOpts{MaxTextLength: e.g.MaxTextLength, CharacterDictPath: e.g.CharacterDictPath}
		if err := c.Decode(&o); err != nil {
			return nil, err
		}
		space := e.g.UseSpaceChar
		if o.UseSpaceChar != nil {
			space = *o.UseSpaceChar
		}
		d, err := LoadDict(o.CharacterDictPath, space)
		if err != nil {
			return nil, c.Errorf("%v", err)
		}
		maxLen := o.MaxTextLength
		if maxLen <= 0 {
			maxLen = 25
		}
		return tf(func(s *Sample, _ *rand.Rand) (bool, error) {
			s.Label = d.Encode(s.Text, maxLen)
			return s.Label != nil, nil
		}), nil
	})
	config.Add(r, "RecResizeImg", RecResizeImgOpts{}, func(c config.Component, o RecResizeImgOpts, e *transformEnv) (data.Transform[Sample], error) {
		if len(o.ImageShape) != 3 || o.ImageShape[0] != 1 && o.ImageShape[0] != 3 || o.ImageShape[1] <= 0 || o.ImageShape[2] <= 0 {
			return nil, c.Errorf("RecResizeImg.image_shape %v: want [C, H, W] with C 1 or 3", o.ImageShape)
		}
		e.shape = o.ImageShape
		pad := o.Padding == nil || *o.Padding
		return tf(func(s *Sample, _ *rand.Rand) (bool, error) {
			if s.Image == nil {
				return false, fmt.Errorf("%s: RecResizeImg before DecodeImage", s.Path)
			}
			var err error
			s.X, s.ValidRatio, err = ResizeNormImg(s.Image, o.ImageShape, pad, o.EvalMode)
			return err == nil, err
		}), nil
	})
	config.Add(r, "RecAug", RecAugOpts{}, func(_ config.Component, o RecAugOpts, _ *transformEnv) (data.Transform[Sample], error) {
		return recAug(o), nil
	})
	config.Add(r, "KeepKeys", KeepKeysOpts{}, func(config.Component, KeepKeysOpts, *transformEnv) (data.Transform[Sample], error) { return nil, nil })
	return r
}

// ResizeNormImg is PP-OCR's resize_norm_img: resize to height H keeping the
// aspect ratio (width ceil(H·w/h), at most W; with padding false, straight to
// W), scale to [-1, 1] ((v/255 − 0.5)/0.5), and right-pad with zeros to W.
// evalMode is resize_norm_img_chinese: W grows to H·w/h for wider lines.
// An image whose channel count differs from C is converted (grey ↔ colour).
// It returns the (C, H, W') tensor and the valid ratio resized_w/W'.
func ResizeNormImg(m *data.Image, shape []int, padding, evalMode bool) (*tensor.Tensor, float64, error) {
	c, h, w := shape[0], shape[1], shape[2]
	ratio := float64(m.W) / float64(m.H)
	if evalMode {
		w = int(float64(h) * max(float64(w)/float64(h), ratio))
	}
	rw := w
	if padding {
		if cw := int(math.Ceil(float64(h) * ratio)); cw <= w {
			rw = cw
		}
	}
	rw = max(rw, 1)
	r, err := data.Resize(m, rw, h)
	if err != nil {
		return nil, 0, err
	}
	x := tensor.New(tensor.Float32, c, h, w)
	xv := x.F32()
	for y := range h {
		for xx := range rw {
			p := r.Pix[(y*rw+xx)*r.C : (y*rw+xx+1)*r.C]
			for ch := range c {
				var v float32
				switch {
				case r.C == c:
					v = float32(p[ch])
				case c == 1: // colour → grey: channel mean
					v = float32(int(p[0])+int(p[1])+int(p[2])) / 3
				default: // grey → colour
					v = float32(p[0])
				}
				xv[(ch*h+y)*w+xx] = (v/255 - 0.5) / 0.5
			}
		}
	}
	return x, min(1, float64(rw)/float64(w)), nil
}
