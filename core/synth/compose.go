package synth

import (
	"math"
	"math/rand/v2"

	"paddle/core/data"
)

// Options control one composite.
type Options struct {
	Size                   int     // output side in pixels (square); default 320
	MinObjects, MaxObjects int     // objects per image; default 1 and 6
	MinScale, MaxScale     float64 // object's longer side over the image side; default 0.12 and 0.6
	MaxRotate              float64 // degrees either way; default 15
	// MaxOcclusion is the largest fraction of an object's area that later
	// objects may cover (a placement that would cover more is retried);
	// default 0.5.
	MaxOcclusion float64
	// Brightness is the ± relative brightness jitter of each object;
	// default 0.2, negative for none.
	Brightness float64
	// Blur is the probability that an object is softened with a 3×3 blur
	// (pasted cut-outs look sharper than most photos); default 0.3,
	// negative for never.
	Blur float64
	// Contrast, Saturation and Stretch are extra per-object jitters, all
	// off (0) by default so data sets written without them stay as they
	// were: contrast and saturation are scaled by 1±Contrast and
	// 1±Saturation, and the width over the height by 1±Stretch. On-the-fly
	// training sets use them for more object variety.
	Contrast, Saturation, Stretch float64
	Seed                          uint64
}

func (o Options) withDefaults() Options {
	if o.Size <= 0 {
		o.Size = 320
	}
	if o.MaxObjects <= 0 {
		o.MinObjects, o.MaxObjects = 1, 6
	}
	o.MinObjects = min(max(o.MinObjects, 0), o.MaxObjects)
	if o.MaxScale <= 0 {
		o.MinScale, o.MaxScale = 0.12, 0.6
	}
	o.MinScale = min(max(o.MinScale, 0.02), o.MaxScale)
	if o.MaxRotate == 0 {
		o.MaxRotate = 15
	}
	if o.MaxOcclusion <= 0 {
		o.MaxOcclusion = 0.5
	}
	if o.Brightness == 0 {
		o.Brightness = 0.2
	}
	o.Brightness = max(o.Brightness, 0)
	if o.Blur == 0 {
		o.Blur = 0.3
	}
	o.Blur = max(o.Blur, 0)
	return o
}

// Object is one annotated object of a composite.
type Object struct {
	Class int
	// Box is [x1, y1, x2, y2) around the pixels whose visible alpha (after
	// occlusion by later objects) is at least 0.5.
	Box   [4]float64
	Area  int    // number of those pixels
	Stamp string // the stamp's object name
}

// Sample is one composite image with its objects and mask.
type Sample struct {
	Image *data.Image // Size×Size RGB
	// Mask is Size×Size: class index + 1 where one object's visible alpha is
	// ≥ 0.75, 0 where all objects together cover ≤ 0.25, 255 otherwise
	// (anti-aliased edges and mixed pixels).
	Mask    []uint8
	Objects []Object
	// Visible is each object's visible alpha (Size×Size, in [0, 1]: its
	// alpha times the transparency of every object above it).
	Visible    [][]float32
	Background string
}

// Mask thresholds (see Sample.Mask) and the box threshold (Object.Box).
const (
	solidAlpha = 0.75
	clearAlpha = 0.25
	boxAlpha   = 0.5
)

// layer is a placed object: premultiplied RGB and alpha over a region of
// the image, and its visible alpha over the whole image.
type layer struct {
	class          int
	stamp          string
	x0, y0, rw, rh int
	rgb, alpha     []float32
	vis            []float32 // Size×Size visible alpha
	full           float64   // Σ alpha (unoccluded area)
}

// maxTries bounds the placements tried for one object before it is dropped.
const maxTries = 12

// Generate makes the index-th composite of a split. It depends only on the
// library, the split, index and o (Seed included), so any subset can be
// generated in any order, in parallel.
func (l *Library) Generate(split Split, index int, o Options) Sample {
	o = o.withDefaults()
	r := data.SampleRand(o.Seed, int(split), index)
	bi := r.IntN(len(l.Backgrounds[split]))
	bg := background(l.Backgrounds[split][bi], o.Size, r)
	n := o.MinObjects + r.IntN(o.MaxObjects-o.MinObjects+1)
	var layers []*layer
	for range n {
		c := r.IntN(len(l.Classes))
		stamps := l.Stamps[split][c]
		if len(stamps) == 0 {
			continue
		}
		st := stamps[r.IntN(len(stamps))]
		for range maxTries {
			if ly := place(st, o, r); ly != nil && accept(layers, ly, o) {
				layers = append(layers, ly)
				break
			}
		}
	}
	return finish(bg, layers, o.Size, l.BgNames[split][bi])
}

// background crops a random square of 60–100% of the shorter side,
// resizes it to size×size (area averaging when shrinking, bilinear when
// growing) and flips it half of the time.
func background(m *data.Image, size int, r *rand.Rand) []float32 {
	side := int(float64(min(m.W, m.H)) * (0.6 + 0.4*r.Float64()))
	side = max(side, 1)
	x, y := r.IntN(m.W-side+1), r.IntN(m.H-side+1)
	flip := r.IntN(2) == 1
	crop := make([]float32, side*side*3)
	for yy := range side {
		for xx := range side {
			sx := x + xx
			if flip {
				sx = x + side - 1 - xx
			}
			for k := range 3 {
				crop[(yy*side+xx)*3+k] = float32(m.Pix[((y+yy)*m.W+sx)*m.C+k]) / 255
			}
		}
	}
	if side >= size {
		return resizeArea(crop, side, side, 3, size, size)
	}
	img := &data.Image{H: side, W: side, C: 3, Pix: make([]uint8, len(crop))}
	for i, v := range crop {
		img.Pix[i] = uint8(v*255 + 0.5)
	}
	up, err := data.Resize(img, size, size)
	if err != nil {
		panic(err) // sizes are positive by construction
	}
	out := make([]float32, len(up.Pix))
	for i, v := range up.Pix {
		out[i] = float32(v) / 255
	}
	return out
}

// place scales, flips, rotates and colour-jitters a stamp and picks a
// position inside the image; nil if it does not fit.
func place(st *Stamp, o Options, r *rand.Rand) *layer {
	long := float64(max(st.W, st.H))
	target := (o.MinScale + (o.MaxScale-o.MinScale)*r.Float64()) * float64(o.Size)
	target = math.Min(target, 2*long) // upscale at most 2x: small stamps stay sharp
	s := target / long
	sx, sy := s, s
	if o.Stretch > 0 { // width over height by 1±Stretch: one side shrinks
		a := 1 + o.Stretch*(2*r.Float64()-1)
		sx, sy = s*min(a, 1), s*min(1/a, 1)
	}
	sw, sh := max(1, int(math.Round(float64(st.W)*sx))), max(1, int(math.Round(float64(st.H)*sy)))
	src := resizeArea(st.Pix, st.W, st.H, 4, sw, sh)
	theta := (2*r.Float64() - 1) * o.MaxRotate * math.Pi / 180
	flip := r.IntN(2) == 1
	bright := float32(1 + o.Brightness*(2*r.Float64()-1))
	blur := r.Float64() < o.Blur
	contrast, sat := float32(1), float32(1)
	if o.Contrast > 0 {
		contrast = float32(1 + o.Contrast*(2*r.Float64()-1))
	}
	if o.Saturation > 0 {
		sat = float32(1 + o.Saturation*(2*r.Float64()-1))
	}
	cos, sin := math.Cos(theta), math.Sin(theta)
	rw := int(math.Ceil(math.Abs(float64(sw)*cos)+math.Abs(float64(sh)*sin))) + 2
	rh := int(math.Ceil(math.Abs(float64(sw)*sin)+math.Abs(float64(sh)*cos))) + 2
	if rw > o.Size || rh > o.Size {
		return nil
	}
	ly := &layer{class: st.Class, stamp: st.Name, rw: rw, rh: rh,
		x0: r.IntN(o.Size - rw + 1), y0: r.IntN(o.Size - rh + 1),
		rgb: make([]float32, rw*rh*3), alpha: make([]float32, rw*rh)}
	var px [4]float32
	for y := range rh {
		for x := range rw {
			dx, dy := float64(x)+0.5-float64(rw)/2, float64(y)+0.5-float64(rh)/2
			u := cos*dx + sin*dy + float64(sw)/2
			v := -sin*dx + cos*dy + float64(sh)/2
			if flip {
				u = float64(sw) - u
			}
			bilinear(src, sw, sh, u-0.5, v-0.5, &px)
			i := y*rw + x
			ly.alpha[i] = px[3]
			if contrast != 1 || sat != 1 {
				jitterColour(&px, contrast, sat)
			}
			for k := range 3 {
				ly.rgb[i*3+k] = min(px[k]*bright, px[3])
			}
		}
	}
	if blur {
		ly.rgb = blur3(ly.rgb, rw, rh, 3)
		ly.alpha = blur3(ly.alpha, rw, rh, 1)
	}
	for _, a := range ly.alpha {
		ly.full += float64(a)
	}
	return ly
}

// jitterColour scales a premultiplied pixel's contrast about mid-grey and
// its saturation about its luma (BT.601 weights), clipped to [0, alpha].
func jitterColour(px *[4]float32, contrast, sat float32) {
	a := px[3]
	gray := 0.299*px[0] + 0.587*px[1] + 0.114*px[2]
	for k := range 3 {
		v := gray + (px[k]-gray)*sat
		v = (v-0.5*a)*contrast + 0.5*a
		px[k] = min(max(v, 0), a)
	}
}

// blur3 is a 3×3 binomial blur ([1 2 1]/4 each way) with zero outside,
// applied alike to premultiplied colour and alpha.
func blur3(src []float32, w, h, c int) []float32 {
	tmp := make([]float32, len(src))
	out := make([]float32, len(src))
	at := func(b []float32, x, y, k int) float32 {
		if x < 0 || y < 0 || x >= w || y >= h {
			return 0
		}
		return b[(y*w+x)*c+k]
	}
	for y := range h {
		for x := range w {
			for k := range c {
				tmp[(y*w+x)*c+k] = (at(src, x-1, y, k) + 2*at(src, x, y, k) + at(src, x+1, y, k)) / 4
			}
		}
	}
	for y := range h {
		for x := range w {
			for k := range c {
				out[(y*w+x)*c+k] = (at(tmp, x, y-1, k) + 2*at(tmp, x, y, k) + at(tmp, x, y+1, k)) / 4
			}
		}
	}
	return out
}

// bilinear samples a premultiplied W×H×4 image at (x, y) (pixel centres at
// integers), zero outside.
func bilinear(src []float32, w, h int, x, y float64, out *[4]float32) {
	x0, y0 := int(math.Floor(x)), int(math.Floor(y))
	fx, fy := float32(x-float64(x0)), float32(y-float64(y0))
	*out = [4]float32{}
	for j := range 2 {
		yy := y0 + j
		if yy < 0 || yy >= h {
			continue
		}
		wy := fy
		if j == 0 {
			wy = 1 - fy
		}
		for i := range 2 {
			xx := x0 + i
			if xx < 0 || xx >= w {
				continue
			}
			wx := fx
			if i == 0 {
				wx = 1 - fx
			}
			p := src[(yy*w+xx)*4:]
			for k := range 4 {
				out[k] += wx * wy * p[k]
			}
		}
	}
}

// accept reports whether ly, put on top, leaves every earlier object at
// least 1-MaxOcclusion of its own area, and if so records the occlusion.
func accept(layers []*layer, ly *layer, o Options) bool {
	if ly.full < 16 {
		return false
	}
	size := o.Size
	for _, e := range layers {
		lost, have := 0.0, 0.0
		for _, v := range e.vis {
			have += float64(v)
		}
		for y := range ly.rh {
			for x := range ly.rw {
				lost += float64(e.vis[(ly.y0+y)*size+ly.x0+x] * ly.alpha[y*ly.rw+x])
			}
		}
		if have-lost < (1-o.MaxOcclusion)*e.full {
			return false
		}
	}
	for _, e := range layers {
		for y := range ly.rh {
			for x := range ly.rw {
				e.vis[(ly.y0+y)*size+ly.x0+x] *= 1 - ly.alpha[y*ly.rw+x]
			}
		}
	}
	ly.vis = make([]float32, size*size)
	for y := range ly.rh {
		copy(ly.vis[(ly.y0+y)*size+ly.x0:], ly.alpha[y*ly.rw:(y+1)*ly.rw])
	}
	return true
}

// finish composites the layers over the background, and derives boxes and
// the mask from the visible alpha.
func finish(bg []float32, layers []*layer, size int, bgName string) Sample {
	for _, ly := range layers {
		for y := range ly.rh {
			for x := range ly.rw {
				i := y*ly.rw + x
				a := ly.alpha[i]
				p := ((ly.y0+y)*size + ly.x0 + x) * 3
				for k := range 3 {
					bg[p+k] = ly.rgb[i*3+k] + (1-a)*bg[p+k]
				}
			}
		}
	}
	s := Sample{Image: data.NewImage(size, size, 3), Mask: make([]uint8, size*size), Background: bgName}
	for i, v := range bg {
		s.Image.Pix[i] = uint8(min(max(math.Round(float64(v)*255), 0), 255))
	}
	for i := range s.Mask {
		top, cov, who := float32(0), float32(0), -1
		for j, ly := range layers {
			v := ly.vis[i]
			cov += v
			if v > top {
				top, who = v, j
			}
		}
		switch {
		case top >= solidAlpha:
			s.Mask[i] = uint8(layers[who].class + 1)
		case cov <= clearAlpha:
			s.Mask[i] = 0
		default:
			s.Mask[i] = 255
		}
	}
	for _, ly := range layers {
		x1, y1, x2, y2, area := size, size, -1, -1, 0
		for i, v := range ly.vis {
			if v >= boxAlpha {
				x, y := i%size, i/size
				x1, y1, x2, y2 = min(x1, x), min(y1, y), max(x2, x), max(y2, y)
				area++
			}
		}
		if area == 0 {
			continue // cannot happen: accept keeps half of each object visible
		}
		s.Objects = append(s.Objects, Object{Class: ly.class, Stamp: ly.stamp, Area: area,
			Box: [4]float64{float64(x1), float64(y1), float64(x2 + 1), float64(y2 + 1)}})
		s.Visible = append(s.Visible, ly.vis)
	}
	return s
}
