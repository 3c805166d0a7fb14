package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"paddle/core/data"
	imagelib "paddle/core/synth"
)

// photoSide is the longer side, in pixels, that LoadPhotos scales photos down to:
// a line's crop then covers a few percent of a photo, as text laid over a
// picture does, and a hundred photos stay under 300 MB.
const photoSide = 1024

// LoadPhotos reads background photos (JPEG, PNG) from files and folders (walked
// recursively, in name order), each scaled down to at most 1024 pixels on its
// longer side. Errors name the file.
func LoadPhotos(specs ...string) ([]*data.Image, error) {
	var paths []string
	for _, s := range specs {
		ps, err := imagelib.ImageFiles(s)
		if err != nil {
			return nil, fmt.Errorf("backgrounds %w", err)
		}
		paths = append(paths, ps...)
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	if len(paths) == 0 {
		return nil, fmt.Errorf("backgrounds %s: no .jpg or .png files", strings.Join(specs, ", "))
	}
	out := make([]*data.Image, 0, len(paths))
	for _, p := range paths {
		m, err := data.DecodeFile(p, data.RGB)
		if err != nil {
			return nil, fmt.Errorf("background %w", err)
		}
		if s := float64(photoSide) / float64(max(m.W, m.H)); s < 1 {
			m = scaleImage(m, max(int(float64(m.W)*s), 1), max(int(float64(m.H)*s), 1))
		}
		out = append(out, m)
	}
	return out, nil
}

// scaleImage resizes an RGB image by box-averaging (for shrinking only).
func scaleImage(m *data.Image, w, h int) *data.Image {
	out := data.NewImage(h, w, 3)
	for y := range h {
		y0, y1 := y*m.H/h, max((y+1)*m.H/h, y*m.H/h+1)
		for x := range w {
			x0, x1 := x*m.W/w, max((x+1)*m.W/w, x*m.W/w+1)
			var s [3]int
			for yy := y0; yy < y1; yy++ {
				for xx := x0; xx < x1; xx++ {
					for c := range 3 {
						s[c] += int(m.Pix[(yy*m.W+xx)*3+c])
					}
				}
			}
			n := (y1 - y0) * (x1 - x0)
			for c := range 3 {
				out.Pix[(y*w+x)*3+c] = uint8((s[c] + n/2) / n)
			}
		}
	}
	return out
}

// backdrop paints the w×h canvas behind the text and returns it with the
// text colour: a flat colour with gradient and blotches (background), and
// with probabilities a.Photo and a.Paper a photo crop or a paper texture
// instead. With both at zero it draws exactly what background alone draws.
func backdrop(w, h int, a Augment, r *rand.Rand) ([]float64, [3]float64) {
	bg, fg := colours(a, r)
	pix := background(w, h, bg, a, r)
	switch {
	case a.Photo > 0 && len(a.Photos) > 0 && r.Float64() < a.Photo:
		fg = photo(pix, w, h, a.Photos[r.IntN(len(a.Photos))], r)
	case a.Paper > 0 && r.Float64() < a.Paper:
		paper(pix, w, h, r)
	}
	return pix, fg
}

// photo fills pix with a crop of p at a random place and scale, its contrast
// lowered so text stays readable (at least 110 grey levels between the text
// colour and the crop's mean, as over a photo in a real document), and
// returns the text colour: dark over a lightened crop, or light over a
// darkened one a third of the time.
func photo(pix []float64, w, h int, p *data.Image, r *rand.Rand) [3]float64 {
	// The crop spans s × the canvas in photo pixels (s < 1 enlarges it).
	s := min(0.3+1.7*r.Float64(), float64(p.W)/float64(w), float64(p.H)/float64(h))
	x0 := r.Float64() * (float64(p.W) - s*float64(w))
	y0 := r.Float64() * (float64(p.H) - s*float64(h))
	var mean float64
	for y := range h {
		for x := range w {
			v := bilinear(p, x0+(float64(x)+0.5)*s-0.5, y0+(float64(y)+0.5)*s-0.5)
			for c := range 3 {
				pix[(y*w+x)*3+c] = v[c]
				mean += v[c]
			}
		}
	}
	mean /= float64(w * h * 3)
	k := 0.2 + 0.5*r.Float64() // contrast kept
	target, text := 180+70*r.Float64(), 70*r.Float64()
	if r.Float64() < 1.0/3 {
		target, text = 10+70*r.Float64(), 185+70*r.Float64()
	}
	for i, v := range pix {
		pix[i] = target + (v-mean)*k
	}
	var fg [3]float64
	for c := range 3 {
		fg[c] = min(max(text+20*(2*r.Float64()-1), 0), 255)
	}
	return fg
}

// bilinear samples RGB image p at (x, y), edges clamped.
func bilinear(p *data.Image, x, y float64) [3]float64 {
	x = min(max(x, 0), float64(p.W-1))
	y = min(max(y, 0), float64(p.H-1))
	ix, iy := min(int(x), p.W-2), min(int(y), p.H-2)
	ix, iy = max(ix, 0), max(iy, 0)
	fx, fy := x-float64(ix), y-float64(iy)
	at := func(xx, yy, c int) float64 {
		return float64(p.Pix[(min(yy, p.H-1)*p.W+min(xx, p.W-1))*3+c])
	}
	var v [3]float64
	for c := range 3 {
		v[c] = (at(ix, iy, c)*(1-fx)+at(ix+1, iy, c)*fx)*(1-fy) + (at(ix, iy+1, c)*(1-fx)+at(ix+1, iy+1, c)*fx)*fy
	}
	return v
}

// paper gives the canvas a paper texture on top of its colour: a warm or
// grey tint, cloudy mottling (smooth noise, cells of 20–80 px), grain
// (cells of 1–3 px) and a few thin fibres.
func paper(pix []float64, w, h int, r *rand.Rand) {
	tint := [3]float64{0, -4 * r.Float64(), -14 * r.Float64()} // towards cream
	if r.Float64() < 0.4 {
		tint = [3]float64{}
	}
	cloud := newValueNoise(w, h, 20+60*r.Float64(), r)
	grain := newValueNoise(w, h, 1+2*r.Float64(), r)
	ca, ga := 4+14*r.Float64(), 2+8*r.Float64()
	for y := range h {
		for x := range w {
			d := ca*cloud.at(x, y) + ga*grain.at(x, y)
			for c := range 3 {
				pix[(y*w+x)*3+c] += d + tint[c]
			}
		}
	}
	for range r.IntN(1 + (w+h)/40) { // fibres: short random walks, slightly darker
		x, y := r.Float64()*float64(w), r.Float64()*float64(h)
		ang, amp := r.Float64()*2*math.Pi, 6+16*r.Float64()
		for range 10 + r.IntN(40) {
			ix, iy := int(x), int(y)
			if ix >= 0 && ix < w && iy >= 0 && iy < h {
				for c := range 3 {
					pix[(iy*w+ix)*3+c] -= amp
				}
			}
			ang += 0.4 * (2*r.Float64() - 1)
			x, y = x+math.Cos(ang), y+math.Sin(ang)
		}
	}
}

// valueNoise is smooth noise in [-1, 1]: random values on a grid of cell-sized
// squares, interpolated with smoothstep.
type valueNoise struct {
	cell   float64
	gw     int
	values []float64
}

func newValueNoise(w, h int, cell float64, r *rand.Rand) valueNoise {
	gw, gh := int(float64(w)/cell)+2, int(float64(h)/cell)+2
	v := make([]float64, gw*gh)
	for i := range v {
		v[i] = 2*r.Float64() - 1
	}
	return valueNoise{cell: cell, gw: gw, values: v}
}

func (n valueNoise) at(x, y int) float64 {
	fx, fy := float64(x)/n.cell, float64(y)/n.cell
	ix, iy := int(fx), int(fy)
	tx, ty := smoothstep(fx-float64(ix)), smoothstep(fy-float64(iy))
	v := func(i, j int) float64 { return n.values[j*n.gw+i] }
	return (v(ix, iy)*(1-tx)+v(ix+1, iy)*tx)*(1-ty) + (v(ix, iy+1)*(1-tx)+v(ix+1, iy+1)*tx)*ty
}

func smoothstep(t float64) float64 { return t * t * (3 - 2*t) }
