package rectrain

import (
	"math"
	"math/rand/v2"

	"paddle/core/data"
)

func prob(p *float64) float64 {
	if p == nil {
		return 0.4 // PaddleOCR's RecAug default for every probability
	}
	return *p
}

// recAug is RecAug: each augmentation with its own probability, on images
// at least 20 px high and wide. See RecAugOpts for what tia_prob does here.
func recAug(o RecAugOpts) data.Transform[Sample] {
	tia, crop, rev := prob(o.TiaProb), prob(o.CropProb), prob(o.ReverseProb)
	noise, jit, blur, hsv := prob(o.NoiseProb), prob(o.JitterProb), prob(o.BlurProb), prob(o.HsvAugProb)
	return tf(func(s *Sample, r *rand.Rand) (bool, error) {
		m := s.Image
		if m == nil || m.H < 20 || m.W < 20 {
			return true, nil
		}
		if r.Float64() < tia { // horizontal stretch
			f := math.Exp((2*r.Float64() - 1) * math.Log(1.25))
			if nm, err := data.Resize(m, max(int(float64(m.W)*f), 1), m.H); err == nil {
				m = nm
			}
		}
		if r.Float64() < crop { // cut 1–8 rows from the top or the bottom, as get_crop
			k := min(1+r.IntN(8), m.H-1)
			y := 0
			if r.IntN(2) == 0 {
				y = k
			}
			if nm, err := data.Crop(m, 0, y, m.W, m.H-k); err == nil {
				m = nm
			}
		}
		if r.Float64() < blur { // 5×5 Gaussian, sigma 1
			m = gaussian5(m)
		}
		if r.Float64() < hsv { // brightness/contrast jitter standing in for the HSV change
			m = data.AdjustContrast(data.AdjustBrightness(m, 0.7+0.6*r.Float64()), 0.7+0.6*r.Float64(), true)
		}
		if r.Float64() < jit { // smear: shift copies down-right by up to 1% of the short side
			m = jitter(m, int(r.Float64()*float64(min(m.W, m.H))*0.01))
		}
		if r.Float64() < noise { // additive Gaussian noise
			m = m.Clone()
			sd := 2 + 8*r.Float64()
			for i, v := range m.Pix {
				m.Pix[i] = uint8(min(max(float64(v)+r.NormFloat64()*sd, 0), 255))
			}
		}
		if r.Float64() < rev { // invert
			m = m.Clone()
			for i, v := range m.Pix {
				m.Pix[i] = 255 - v
			}
		}
		s.Image = m
		return true, nil
	})
}

func gaussian5(m *data.Image) *data.Image {
	var k [5]float64
	var sum float64
	for i := range k {
		d := float64(i - 2)
		k[i] = math.Exp(-d * d / 2)
		sum += k[i]
	}
	out := data.NewImage(m.H, m.W, m.C)
	tmp := make([]float64, len(m.Pix))
	for y := range m.H {
		for x := range m.W {
			for c := range m.C {
				var v float64
				for i, kv := range k {
					xx := min(max(x+i-2, 0), m.W-1)
					v += kv * float64(m.Pix[(y*m.W+xx)*m.C+c])
				}
				tmp[(y*m.W+x)*m.C+c] = v / sum
			}
		}
	}
	for y := range m.H {
		for x := range m.W {
			for c := range m.C {
				var v float64
				for i, kv := range k {
					yy := min(max(y+i-2, 0), m.H-1)
					v += kv * tmp[(yy*m.W+x)*m.C+c]
				}
				out.Pix[(y*m.W+x)*m.C+c] = uint8(min(max(math.Round(v/sum), 0), 255))
			}
		}
	}
	return out
}

func jitter(m *data.Image, s int) *data.Image {
	if s <= 0 {
		return m
	}
	out := m.Clone()
	for i := 1; i < s; i++ {
		for y := i; y < m.H; y++ {
			copy(out.Pix[(y*m.W+i)*m.C:(y*m.W+m.W)*m.C], m.Pix[((y-i)*m.W)*m.C:((y-i)*m.W+m.W-i)*m.C])
		}
	}
	return out
}
