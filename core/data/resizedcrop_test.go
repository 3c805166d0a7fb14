package data

import (
	"math/rand/v2"
	"testing"
)

// RandomResizedCrop's crops follow torchvision's distribution: area fraction
// within Scale and aspect ratio w/h within Ratio (up to one pixel of
// rounding), both ranges actually explored, and positions inside the image.
// When 10 tries all miss, torchvision falls back to the centre crop clamped
// to Ratio: here the whole 2:1 image, which must stay rare.
func TestRandomResizedCropDistribution(t *testing.T) {
	const W, H = 200, 100
	tr := RandomResizedCrop{W: 8, H: 8, Scale: [2]float64{0.1, 0.9}, Ratio: [2]float64{0.5, 2}}
	r := rand.New(rand.NewPCG(11, 12))
	minFrac, maxFrac, minAsp, maxAsp := 1.0, 0.0, 10.0, 0.0
	fallbacks := 0
	for range 3000 {
		x, y, w, h := tr.Params(W, H, r)
		if x < 0 || y < 0 || x+w > W || y+h > H {
			t.Fatalf("crop (%d,%d,%d,%d) outside %dx%d", x, y, w, h, W, H)
		}
		if x == 0 && y == 0 && w == W && h == H {
			fallbacks++
			continue
		}
		frac := float64(w*h) / (W * H)
		asp := float64(w) / float64(h)
		// one pixel of rounding on each side
		lo := float64((w-1)*(h-1)) / (W * H)
		hi := float64((w+1)*(h+1)) / (W * H)
		if hi < 0.1 || lo > 0.9 {
			t.Fatalf("area fraction %.3f outside [0.1, 0.9]", frac)
		}
		if float64(w+1)/float64(max(h-1, 1)) < 0.5 || float64(max(w-1, 1))/float64(h+1) > 2 {
			t.Fatalf("aspect %.3f outside [0.5, 2]", asp)
		}
		minFrac, maxFrac = min(minFrac, frac), max(maxFrac, frac)
		minAsp, maxAsp = min(minAsp, asp), max(maxAsp, asp)
	}
	if fallbacks > 30 {
		t.Errorf("%d of 3000 crops fell back to the centre crop", fallbacks)
	}
	if minFrac > 0.15 || maxFrac < 0.8 || minAsp > 0.6 || maxAsp < 1.7 {
		t.Errorf("ranges not explored: area %.3f..%.3f, aspect %.3f..%.3f", minFrac, maxFrac, minAsp, maxAsp)
	}
}
