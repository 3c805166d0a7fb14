package data

import (
	"fmt"
	"math"
)

// Resize scales m to w×h with bilinear interpolation, pixel-for-pixel as
// OpenCV's cv2.resize(INTER_LINEAR) on 8-bit images: half-pixel centres,
// edge pixels clamped, 11-bit fixed-point weights and the rounding of its
// vectorised vertical pass (see resize_test.go for the comparison).
func Resize(m *Image, w, h int) (*Image, error) {
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("resize %dx%d: size must be positive", w, h)
	}
	if m.W <= 0 || m.H <= 0 {
		return nil, fmt.Errorf("resize: empty %dx%d image", m.W, m.H)
	}
	if w == m.W && h == m.H {
		return m.Clone(), nil
	}
	xo, xa := linearTaps(m.W, w, true)
	yo, ya := linearTaps(m.H, h, false)
	c := m.C
	out := NewImage(h, w, c)
	rowBuf := [2][]int32{make([]int32, w*c), make([]int32, w*c)}
	hrow := func(dst []int32, sy int) {
		src := m.Pix[sy*m.W*c : (sy+1)*m.W*c]
		for dx := range w {
			x0, x1 := xo[dx]*c, min(xo[dx]+1, m.W-1)*c
			a0, a1 := int32(xa[2*dx]), int32(xa[2*dx+1])
			for k := range c {
				dst[dx*c+k] = int32(src[x0+k])*a0 + int32(src[x1+k])*a1
			}
		}
	}
	for dy := range h {
		y0, y1 := min(max(yo[dy], 0), m.H-1), min(max(yo[dy]+1, 0), m.H-1)
		hrow(rowBuf[0], y0)
		hrow(rowBuf[1], y1)
		b0, b1 := int32(ya[2*dy]), int32(ya[2*dy+1])
		dst := out.Pix[dy*w*c : (dy+1)*w*c]
		for i := range dst {
			// OpenCV's SIMD path: ((S0>>4)*b0 >> 16) + ((S1>>4)*b1 >> 16), then (v+2) >> 2.
			v := (((rowBuf[0][i] >> 4) * b0) >> 16) + (((rowBuf[1][i] >> 4) * b1) >> 16)
			dst[i] = clamp8((v + 2) >> 2)
		}
	}
	return out, nil
}

// linearTaps returns, for each destination coordinate, the left source
// index and the two fixed-point weights (scaled by 2048) of OpenCV's
// INTER_LINEAR. OpenCV clamps the index and zeroes the fraction at the
// edges horizontally only; vertically it keeps the fraction and clamps the
// rows it reads, which changes the rounding of edge rows (clampEdge false).
func linearTaps(src, dst int, clampEdge bool) ([]int, []int16) {
	scale := 1 / (float64(dst) / float64(src)) // as OpenCV: 1/inv_scale, not src/dst (they differ in the last bit)
	off := make([]int, dst)
	w := make([]int16, 2*dst)
	for d := range dst {
		f := float32((float64(d)+0.5)*scale - 0.5)
		s := int(math.Floor(float64(f)))
		f -= float32(s)
		if clampEdge && s < 0 {
			f, s = 0, 0
		}
		if clampEdge && s >= src-1 {
			f, s = 0, src-1
		}
		off[d] = s
		w[2*d] = int16(math.RoundToEven(float64((1 - f) * 2048)))
		w[2*d+1] = int16(math.RoundToEven(float64(f * 2048)))
	}
	return off, w
}

func clamp8(v int32) uint8 {
	return uint8(min(max(v, 0), 255))
}

// ResizeShort scales m so that its shorter side is short, keeping the aspect
// ratio; the other side is rounded half to even, as PaddleClas's
// ResizeImage(resize_short) does with Python's round.
func ResizeShort(m *Image, short int) (*Image, error) {
	if short <= 0 {
		return nil, fmt.Errorf("resize_short %d: must be positive", short)
	}
	p := float64(short) / float64(min(m.W, m.H))
	w := int(math.RoundToEven(float64(m.W) * p))
	h := int(math.RoundToEven(float64(m.H) * p))
	return Resize(m, max(w, 1), max(h, 1))
}

// Crop returns the w×h region whose top-left pixel is (x, y).
func Crop(m *Image, x, y, w, h int) (*Image, error) {
	if x < 0 || y < 0 || w <= 0 || h <= 0 || x+w > m.W || y+h > m.H {
		return nil, fmt.Errorf("crop %dx%d at (%d, %d) does not fit a %dx%d image", w, h, x, y, m.W, m.H)
	}
	out := NewImage(h, w, m.C)
	for r := range h {
		copy(out.Pix[r*w*m.C:(r+1)*w*m.C], m.Pix[((y+r)*m.W+x)*m.C:])
	}
	return out, nil
}

// CenterCrop returns the central w×h region, the top-left corner at
// ((W-w)/2, (H-h)/2) rounded down, as PaddleClas's CenterCropImage.
func CenterCrop(m *Image, w, h int) (*Image, error) {
	return Crop(m, (m.W-w)/2, (m.H-h)/2, w, h)
}

// FlipH mirrors m left to right (cv2.flip code 1).
func FlipH(m *Image) *Image {
	out := NewImage(m.H, m.W, m.C)
	c := m.C
	for y := range m.H {
		for x := range m.W {
			copy(out.Pix[(y*m.W+x)*c:(y*m.W+x+1)*c], m.Pix[(y*m.W+m.W-1-x)*c:])
		}
	}
	return out
}

// FlipV mirrors m top to bottom (cv2.flip code 0).
func FlipV(m *Image) *Image {
	out := NewImage(m.H, m.W, m.C)
	row := m.W * m.C
	for y := range m.H {
		copy(out.Pix[y*row:(y+1)*row], m.Pix[(m.H-1-y)*row:])
	}
	return out
}

// Rotate turns m counter-clockwise by deg degrees about its centre
// ((W-1)/2, (H-1)/2), keeping its size; output pixels whose source falls
// outside m take the value fill. Sampling is bilinear.
func Rotate(m *Image, deg float64, fill uint8) *Image {
	out := NewImage(m.H, m.W, m.C)
	sin, cos := math.Sincos(deg * math.Pi / 180)
	cx, cy := float64(m.W-1)/2, float64(m.H-1)/2
	c := m.C
	for y := range m.H {
		for x := range m.W {
			// Inverse map: rotate the output point clockwise back into the
			// source (image y points down, so counter-clockwise on screen
			// is a negative angle in these coordinates).
			dx, dy := float64(x)-cx, float64(y)-cy
			sx := cos*dx - sin*dy + cx
			sy := sin*dx + cos*dy + cy
			p := out.Pix[(y*m.W+x)*c : (y*m.W+x+1)*c]
			bilinearAt(m, sx, sy, fill, p)
		}
	}
	return out
}

// bilinearAt samples m at (sx, sy) into p; neighbours outside m read as fill.
func bilinearAt(m *Image, sx, sy float64, fill uint8, p []uint8) {
	const eps = 1e-9
	// Snap coordinates within eps of an integer, so exact turns (90°) copy pixels exactly.
	if r := math.Round(sx); math.Abs(sx-r) < eps {
		sx = r
	}
	if r := math.Round(sy); math.Abs(sy-r) < eps {
		sy = r
	}
	x0, y0 := int(math.Floor(sx)), int(math.Floor(sy))
	fx, fy := sx-float64(x0), sy-float64(y0)
	if x0 < -1 || y0 < -1 || x0 >= m.W || y0 >= m.H {
		for k := range p {
			p[k] = fill
		}
		return
	}
	at := func(y, x, k int) float64 {
		if x < 0 || y < 0 || x >= m.W || y >= m.H {
			return float64(fill)
		}
		return float64(m.Pix[(y*m.W+x)*m.C+k])
	}
	for k := range p {
		v := (1-fy)*((1-fx)*at(y0, x0, k)+fx*at(y0, x0+1, k)) + fy*((1-fx)*at(y0+1, x0, k)+fx*at(y0+1, x0+1, k))
		p[k] = uint8(min(max(math.Round(v), 0), 255))
	}
}

// SwapRB swaps the first and third channels (RGB ↔ BGR) of a 3-channel image in place.
func SwapRB(m *Image) {
	if m.C < 3 {
		return
	}
	for i := 0; i < len(m.Pix); i += m.C {
		m.Pix[i], m.Pix[i+2] = m.Pix[i+2], m.Pix[i]
	}
}
