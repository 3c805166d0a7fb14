package synth

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"paddle/core/data"
	"paddle/core/imgproc"
)

// Augment says how much each augmentation may vary a rendered line. The zero
// value renders clean, axis-aligned, dark-on-white text.
type Augment struct {
	Rotate      float64 // maximum rotation in degrees (uniform in ±Rotate)
	Perspective float64 // maximum corner displacement, as a fraction of the line height
	Blur        float64 // maximum Gaussian blur sigma in pixels (applied half the time)
	Noise       float64 // maximum standard deviation of additive Gaussian pixel noise
	JPEG        float64 // probability of a JPEG round trip at quality 30–90
	Colour      bool    // random text and background colours (contrast kept ≥ 100 grey levels)
	Texture     bool    // background gradients and blotches
	Paper       float64 // probability of a paper texture (tint, mottling, grain, fibres)
	Photo       float64 // probability of a crop of one of Photos behind the text
	Photos      []*data.Image
}

// DefaultAugment is the augmentation `paddle ocr synth` uses unless told otherwise.
func DefaultAugment() Augment {
	return Augment{Rotate: 5, Perspective: 0.08, Blur: 1.0, Noise: 10, JPEG: 0.3, Colour: true, Texture: true}
}

// LineOptions configure one rendered text line.
type LineOptions struct {
	MinSize, MaxSize float64 // font size range in pixels (em height); default 28–40
	Augment          Augment
}

func (o LineOptions) size(r *rand.Rand) float64 {
	lo, hi := o.MinSize, o.MaxSize
	if lo <= 0 {
		lo = 28
	}
	if hi < lo {
		hi = lo + 12
	}
	return lo + r.Float64()*(hi-lo)
}

// mask is text rendered as coverage (0–255) on a w×h canvas; box is the
// tight text rectangle (advance × ascent+descent) inside it.
type mask struct {
	w, h int
	pix  []uint8
	box  [4]imgproc.Point // clockwise from top-left
}

// renderMask draws text with face f at size px, with random margins.
func renderMask(text string, f *Font, size float64, r *rand.Rand) (*mask, error) {
	return renderMaskSpaced(text, f, size, 0, r)
}

// renderMaskSpaced is renderMask with every space widened by extra space
// widths (0: the font's own spacing, drawn as one string).
func renderMaskSpaced(text string, f *Font, size, extra float64, r *rand.Rand) (*mask, error) {
	face, err := opentype.NewFace(f.Font, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, fmt.Errorf("font %s: %w", f.Name, err)
	}
	defer face.Close()
	m := face.Metrics()
	asc, desc := m.Ascent.Ceil(), m.Descent.Ceil()
	words := []string{text}
	var gap fixed.Int26_6
	if extra > 0 {
		words = strings.Split(text, " ")
		gap = fixed.Int26_6(float64(font.MeasureString(face, " ")) * extra)
	}
	var advFixed fixed.Int26_6
	for i, wd := range words {
		if i > 0 {
			advFixed += font.MeasureString(face, " ") + gap
		}
		advFixed += font.MeasureString(face, wd)
	}
	adv := advFixed.Ceil()
	if adv <= 0 {
		return nil, fmt.Errorf("font %s: %q has no width", f.Name, text)
	}
	padL, padR := int(size*(0.1+0.4*r.Float64())), int(size*(0.1+0.4*r.Float64()))
	padT, padB := int(size*(0.05+0.2*r.Float64())), int(size*(0.05+0.2*r.Float64()))
	w, h := adv+padL+padR, asc+desc+padT+padB
	dst := image.NewAlpha(image.Rect(0, 0, w, h))
	d := font.Drawer{Dst: dst, Src: image.Opaque, Face: face, Dot: fixed.P(padL, padT+asc)}
	for i, wd := range words {
		if i > 0 {
			d.Dot.X += font.MeasureString(face, " ") + gap
		}
		d.DrawString(wd)
	}
	x0, y0, x1, y1 := float64(padL), float64(padT), float64(padL+adv), float64(padT+asc+desc)
	return &mask{w: w, h: h, pix: dst.Pix, box: [4]imgproc.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}}}, nil
}

// homography is a row-major 3×3 projective map.
type homography [9]float64

func (m homography) apply(p imgproc.Point) imgproc.Point {
	z := m[6]*p.X + m[7]*p.Y + m[8]
	return imgproc.Point{X: (m[0]*p.X + m[1]*p.Y + m[2]) / z, Y: (m[3]*p.X + m[4]*p.Y + m[5]) / z}
}

// distort warps m by a random rotation (±a.Rotate°) and corner jitter
// (a.Perspective × height) and returns the warped mask on its bounding
// canvas, with box mapped along.
func distort(m *mask, a Augment, r *rand.Rand) *mask {
	if a.Rotate == 0 && a.Perspective == 0 {
		return m
	}
	src := [4]imgproc.Point{{X: 0, Y: 0}, {X: float64(m.w), Y: 0}, {X: float64(m.w), Y: float64(m.h)}, {X: 0, Y: float64(m.h)}}
	sin, cos := math.Sincos((2*r.Float64() - 1) * a.Rotate * math.Pi / 180)
	cx, cy := float64(m.w)/2, float64(m.h)/2
	jit := a.Perspective * float64(m.h)
	var dst [4]imgproc.Point
	minX, minY := math.Inf(1), math.Inf(1)
	maxX, maxY := math.Inf(-1), math.Inf(-1)
	for i, p := range src {
		dx, dy := p.X-cx, p.Y-cy
		q := imgproc.Point{X: cos*dx - sin*dy + cx + jit*(2*r.Float64()-1), Y: sin*dx + cos*dy + cy + jit*(2*r.Float64()-1)}
		dst[i] = q
		minX, minY, maxX, maxY = min(minX, q.X), min(minY, q.Y), max(maxX, q.X), max(maxY, q.Y)
	}
	for i := range dst {
		dst[i].X -= minX
		dst[i].Y -= minY
	}
	w, h := int(math.Ceil(maxX-minX)), int(math.Ceil(maxY-minY))
	fwd, ok1 := imgproc.GetPerspectiveTransform(src, dst)
	inv, ok2 := imgproc.GetPerspectiveTransform(dst, src)
	if !ok1 || !ok2 || w <= 0 || h <= 0 {
		return m
	}
	out := &mask{w: w, h: h, pix: make([]uint8, w*h)}
	for i, p := range m.box {
		out.box[i] = homography(fwd).apply(p)
	}
	hi := homography(inv)
	for y := range h {
		for x := range w {
			s := hi.apply(imgproc.Point{X: float64(x) + 0.5, Y: float64(y) + 0.5})
			out.pix[y*w+x] = sample1(m, s.X-0.5, s.Y-0.5)
		}
	}
	return out
}

// sample1 reads m bilinearly at (x, y); outside reads 0.
func sample1(m *mask, x, y float64) uint8 {
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	fx, fy := x-float64(x0), y-float64(y0)
	at := func(xx, yy int) float64 {
		if xx < 0 || yy < 0 || xx >= m.w || yy >= m.h {
			return 0
		}
		return float64(m.pix[yy*m.w+xx])
	}
	v := (at(x0, y0)*(1-fx)+at(x0+1, y0)*fx)*(1-fy) + (at(x0, y0+1)*(1-fx)+at(x0+1, y0+1)*fx)*fy
	return uint8(min(max(math.Round(v), 0), 255))
}

// colours picks background and text colours (RGB) with at least 100 grey levels of contrast.
func colours(a Augment, r *rand.Rand) (bg, fg [3]float64) {
	if !a.Colour {
		return [3]float64{255, 255, 255}, [3]float64{0, 0, 0}
	}
	lb, lf := 150+105*r.Float64(), 90*r.Float64() // dark on light, mostly
	if r.Float64() < 0.2 {
		lb, lf = lf, lb
	}
	for c := range 3 {
		bg[c] = min(max(lb+30*(2*r.Float64()-1), 0), 255)
		fg[c] = min(max(lf+30*(2*r.Float64()-1), 0), 255)
	}
	return bg, fg
}

// background fills a w×h RGB canvas with colour bg and, with Texture, a
// gradient and soft blotches.
func background(w, h int, bg [3]float64, a Augment, r *rand.Rand) []float64 {
	pix := make([]float64, w*h*3)
	var gx, gy float64
	type blot struct{ x, y, rad, amp float64 }
	var blots []blot
	if a.Texture {
		if r.Float64() < 0.5 {
			gx, gy = 40*(2*r.Float64()-1)/float64(w), 40*(2*r.Float64()-1)/float64(h)
		}
		for range r.IntN(4) {
			blots = append(blots, blot{r.Float64() * float64(w), r.Float64() * float64(h), (0.1 + 0.5*r.Float64()) * float64(max(w, h)), 40 * (2*r.Float64() - 1)})
		}
	}
	for y := range h {
		for x := range w {
			d := gx*float64(x) + gy*float64(y)
			for _, b := range blots {
				dx, dy := float64(x)-b.x, float64(y)-b.y
				d += b.amp * math.Exp(-(dx*dx+dy*dy)/(2*b.rad*b.rad))
			}
			for c := range 3 {
				pix[(y*w+x)*3+c] = bg[c] + d
			}
		}
	}
	return pix
}

// composite paints colour fg through mask m at (ox, oy) onto canvas pix (w wide, RGB float).
func composite(pix []float64, w, h int, m *mask, ox, oy int, fg [3]float64) {
	for y := range m.h {
		py := y + oy
		if py < 0 || py >= h {
			continue
		}
		for x := range m.w {
			px := x + ox
			a := float64(m.pix[y*m.w+x]) / 255
			if px < 0 || px >= w || a == 0 {
				continue
			}
			p := pix[(py*w+px)*3 : (py*w+px)*3+3]
			for c := range 3 {
				p[c] = p[c]*(1-a) + fg[c]*a
			}
		}
	}
}

// finish applies blur, noise and JPEG artefacts and returns the 8-bit image.
func finish(pix []float64, w, h int, a Augment, r *rand.Rand) (*data.Image, error) {
	if a.Blur > 0 && r.Float64() < 0.5 {
		gaussianBlur(pix, w, h, 3, 0.3+r.Float64()*(a.Blur-0.3))
	}
	sd := 0.0
	if a.Noise > 0 {
		sd = r.Float64() * a.Noise
	}
	img := data.NewImage(h, w, 3)
	for i, v := range pix {
		if sd > 0 {
			v += r.NormFloat64() * sd
		}
		img.Pix[i] = uint8(min(max(math.Round(v), 0), 255))
	}
	if a.JPEG > 0 && r.Float64() < a.JPEG {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img.ToStd(), &jpeg.Options{Quality: 30 + r.IntN(61)}); err != nil {
			return nil, err
		}
		return data.Decode(buf.Bytes(), data.RGB)
	}
	return img, nil
}

// gaussianBlur blurs a float image (c channels) in place with a separable
// Gaussian of the given sigma, edges clamped.
func gaussianBlur(pix []float64, w, h, c int, sigma float64) {
	if sigma <= 0 {
		return
	}
	rad := int(math.Ceil(3 * sigma))
	k := make([]float64, 2*rad+1)
	var sum float64
	for i := range k {
		d := float64(i - rad)
		k[i] = math.Exp(-d * d / (2 * sigma * sigma))
		sum += k[i]
	}
	for i := range k {
		k[i] /= sum
	}
	tmp := make([]float64, len(pix))
	for y := range h { // horizontal
		for x := range w {
			for ch := range c {
				var v float64
				for i, kv := range k {
					xx := min(max(x+i-rad, 0), w-1)
					v += kv * pix[(y*w+xx)*c+ch]
				}
				tmp[(y*w+x)*c+ch] = v
			}
		}
	}
	for y := range h { // vertical
		for x := range w {
			for ch := range c {
				var v float64
				for i, kv := range k {
					yy := min(max(y+i-rad, 0), h-1)
					v += kv * tmp[(yy*w+x)*c+ch]
				}
				pix[(y*w+x)*c+ch] = v
			}
		}
	}
}

// RenderLine renders text in font f as one augmented line image (RGB).
func RenderLine(text string, f *Font, o LineOptions, r *rand.Rand) (*data.Image, error) {
	m, err := renderMask(text, f, o.size(r), r)
	if err != nil {
		return nil, err
	}
	m = distort(m, o.Augment, r)
	pix, fg := backdrop(m.w, m.h, o.Augment, r)
	composite(pix, m.w, m.h, m, 0, 0, fg)
	return finish(pix, m.w, m.h, o.Augment, r)
}
