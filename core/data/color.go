package data

// Colour adjustments with torchvision's semantics on uint8 tensors
// (transforms.functional_tensor): every blend is computed in float32 as
// ratio*a + (1-ratio)*b, clamped to [0, 255] and truncated toward zero.
// Gray is 0.2989 R + 0.587 G + 0.114 B, truncated. bgr says the channel
// order of a 3-channel image (the weights apply to R, G, B).

// AdjustBrightness multiplies every value by f (f >= 0) and returns a new image.
func AdjustBrightness(m *Image, f float64) *Image {
	out := NewImage(m.H, m.W, m.C)
	r := float32(f)
	for i, v := range m.Pix {
		out.Pix[i] = blend8(r*float32(v) + float32(1-f)*0)
	}
	return out
}

// AdjustContrast blends m with the mean of its grayscale version: f = 0
// gives a flat gray image, 1 the original.
func AdjustContrast(m *Image, f float64, bgr bool) *Image {
	var mean float32
	if m.C == 3 {
		mean = meanF32(grayOf(m, bgr))
	} else {
		mean = meanF32(m.Pix)
	}
	out := NewImage(m.H, m.W, m.C)
	a, b := float32(f), float32(1-f)*mean
	for i, v := range m.Pix {
		out.Pix[i] = blend8(a*float32(v) + b)
	}
	return out
}

// AdjustSaturation blends m with its grayscale version: f = 0 gives gray,
// 1 the original, 2 doubles the saturation. A 1-channel image is returned unchanged (copied).
func AdjustSaturation(m *Image, f float64, bgr bool) *Image {
	if m.C != 3 {
		return m.Clone()
	}
	g := grayOf(m, bgr)
	out := NewImage(m.H, m.W, m.C)
	a, b := float32(f), float32(1-f)
	for i, v := range m.Pix {
		out.Pix[i] = blend8(a*float32(v) + b*float32(g[i/3]))
	}
	return out
}

func blend8(v float32) uint8 {
	return uint8(min(max(v, 0), 255)) // the conversion truncates, like Tensor.to(torch.uint8)
}

// grayOf returns torchvision's rgb_to_grayscale of a 3-channel image.
func grayOf(m *Image, bgr bool) []uint8 {
	ri, bi := 0, 2
	if bgr {
		ri, bi = 2, 0
	}
	g := make([]uint8, m.H*m.W)
	for i := range g {
		p := m.Pix[3*i : 3*i+3]
		v := float32(0.2989)*float32(p[ri]) + float32(0.587)*float32(p[1]) + float32(0.114)*float32(p[bi])
		g[i] = uint8(v)
	}
	return g
}

func meanF32(p []uint8) float32 {
	var s float64 // exact for any realistic image; torch's float32 sum is exact below 2^24
	for _, v := range p {
		s += float64(v)
	}
	return float32(s) / float32(len(p))
}
