package data

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The image transforms below implement Transform[Image]; lift them to a
// sample type with OnImage. Random ones draw only from the RNG they are given.

var (
	_ Transform[Image] = ResizeImage{}
	_ Transform[Image] = ResizeShortImage{}
	_ Transform[Image] = CenterCropImage{}
	_ Transform[Image] = RandomCrop{}
	_ Transform[Image] = RandomResizedCrop{}
	_ Transform[Image] = RandomFlip{}
	_ Transform[Image] = RandomRotate{}
	_ Transform[Image] = ColorJitter{}
)

// ResizeImage resizes to W×H (see Resize); named after PaddleClas's ResizeImage(size).
type ResizeImage struct{ W, H int }

// Apply resizes m.
func (t ResizeImage) Apply(m *Image, _ *rand.Rand) (bool, error) {
	return into(m)(Resize(m, t.W, t.H))
}

// ResizeShortImage resizes so the shorter side is Short (see ResizeShort), PaddleClas's ResizeImage(resize_short).
type ResizeShortImage struct{ Short int }

// Apply resizes m.
func (t ResizeShortImage) Apply(m *Image, _ *rand.Rand) (bool, error) {
	return into(m)(ResizeShort(m, t.Short))
}

// CenterCropImage crops the central W×H region (see CenterCrop), as PaddleClas's CenterCropImage.
type CenterCropImage struct{ W, H int }

// Apply crops m.
func (t CenterCropImage) Apply(m *Image, _ *rand.Rand) (bool, error) {
	return into(m)(CenterCrop(m, t.W, t.H))
}

// RandomCrop crops a W×H region at a uniformly random position; an image
// smaller than W×H is an error.
type RandomCrop struct{ W, H int }

// Apply crops m.
func (t RandomCrop) Apply(m *Image, r *rand.Rand) (bool, error) {
	if m.W < t.W || m.H < t.H {
		return false, fmt.Errorf("random crop %dx%d: image is only %dx%d", t.W, t.H, m.W, m.H)
	}
	x, y := r.IntN(m.W-t.W+1), r.IntN(m.H-t.H+1)
	return into(m)(Crop(m, x, y, t.W, t.H))
}

// RandomResizedCrop crops a random region and resizes it to W×H, as
// torchvision's RandomResizedCrop: up to 10 tries of an area fraction drawn
// from Scale and a log-uniform aspect ratio (width/height) from Ratio, then
// a centre crop clamped to Ratio. Zero Scale and Ratio mean torchvision's
// defaults (0.08, 1) and (3/4, 4/3).
type RandomResizedCrop struct {
	W, H  int
	Scale [2]float64
	Ratio [2]float64
}

// Apply crops and resizes m.
func (t RandomResizedCrop) Apply(m *Image, r *rand.Rand) (bool, error) {
	x, y, w, h := t.Params(m.W, m.H, r)
	c, err := Crop(m, x, y, w, h)
	if err != nil {
		return false, err
	}
	return into(m)(Resize(c, t.W, t.H))
}

// Params returns the crop (x, y, w, h) Apply would take from a W×H image.
func (t RandomResizedCrop) Params(width, height int, r *rand.Rand) (x, y, w, h int) {
	scale, ratio := t.Scale, t.Ratio
	if scale == [2]float64{} {
		scale = [2]float64{0.08, 1}
	}
	if ratio == [2]float64{} {
		ratio = [2]float64{3.0 / 4, 4.0 / 3}
	}
	area := float64(width * height)
	lr0, lr1 := math.Log(ratio[0]), math.Log(ratio[1])
	for range 10 {
		target := area * (scale[0] + (scale[1]-scale[0])*r.Float64())
		aspect := math.Exp(lr0 + (lr1-lr0)*r.Float64())
		w = int(math.RoundToEven(math.Sqrt(target * aspect)))
		h = int(math.RoundToEven(math.Sqrt(target / aspect)))
		if 0 < w && w <= width && 0 < h && h <= height {
			return r.IntN(width - w + 1), r.IntN(height - h + 1), w, h
		}
	}
	in := float64(width) / float64(height)
	switch {
	case in < min(ratio[0], ratio[1]):
		w = width
		h = int(math.RoundToEven(float64(w) / min(ratio[0], ratio[1])))
	case in > max(ratio[0], ratio[1]):
		h = height
		w = int(math.RoundToEven(float64(h) * max(ratio[0], ratio[1])))
	default:
		w, h = width, height
	}
	return (width - w) / 2, (height - h) / 2, w, h
}

// RandomFlip mirrors the image with probability P (0 means 0.5), left to
// right, or top to bottom if Vertical.
type RandomFlip struct {
	P        float64
	Vertical bool
}

// Apply flips m or leaves it.
func (t RandomFlip) Apply(m *Image, r *rand.Rand) (bool, error) {
	p := t.P
	if p == 0 {
		p = 0.5
	}
	if r.Float64() >= p {
		return true, nil
	}
	if t.Vertical {
		*m = *FlipV(m)
	} else {
		*m = *FlipH(m)
	}
	return true, nil
}

// RandomRotate rotates by an angle drawn uniformly from [-Degrees, Degrees]
// (see Rotate), filling uncovered pixels with Fill.
type RandomRotate struct {
	Degrees float64
	Fill    uint8
}

// Apply rotates m.
func (t RandomRotate) Apply(m *Image, r *rand.Rand) (bool, error) {
	a := (2*r.Float64() - 1) * t.Degrees
	*m = *Rotate(m, a, t.Fill)
	return true, nil
}

// ColorJitter changes brightness, contrast and saturation by factors drawn
// uniformly from [max(0, 1-v), 1+v], applied in a random order, as
// torchvision's ColorJitter (hue is not supported). A zero field leaves
// that property alone. BGR says the channel order of 3-channel images.
type ColorJitter struct {
	Brightness, Contrast, Saturation float64
	BGR                              bool
}

// Apply jitters m.
func (t ColorJitter) Apply(m *Image, r *rand.Rand) (bool, error) {
	if t.Brightness < 0 || t.Contrast < 0 || t.Saturation < 0 {
		return false, fmt.Errorf("color jitter: negative strength %+v", t)
	}
	factor := func(v float64) float64 { return max(0, 1-v) + (1+v-max(0, 1-v))*r.Float64() }
	order := r.Perm(3)
	fs := [3]float64{}
	for i, v := range [3]float64{t.Brightness, t.Contrast, t.Saturation} {
		if v > 0 {
			fs[i] = factor(v)
		}
	}
	for _, k := range order {
		switch {
		case k == 0 && t.Brightness > 0:
			*m = *AdjustBrightness(m, fs[0])
		case k == 1 && t.Contrast > 0:
			*m = *AdjustContrast(m, fs[1], t.BGR)
		case k == 2 && t.Saturation > 0:
			*m = *AdjustSaturation(m, fs[2], t.BGR)
		}
	}
	return true, nil
}

// into returns a function that stores a transform's result in *m.
func into(m *Image) func(*Image, error) (bool, error) {
	return func(out *Image, err error) (bool, error) {
		if err != nil {
			return false, err
		}
		*m = *out
		return true, nil
	}
}
