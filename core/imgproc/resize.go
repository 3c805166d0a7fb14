package imgproc

import "math"

// Fixed-point precision of OpenCV's 8-bit resize weights (INTER_RESIZE_COEF_BITS).
const (
	resizeCoefBits  = 11
	resizeCoefScale = 1 << resizeCoefBits
)

// roundEven32 is cvRound on a float (lrintf: half to even).
func roundEven32(v float32) int { return int(math.RoundToEven(float64(v))) }

// linearTaps computes, for each of the n output positions along one axis, the source
// index and the two fixed-point weights as OpenCV's resize does for INTER_LINEAR
// (half-pixel centres, float32 fraction, weights rounded to 1/2048). With clamp, taps
// left of 0 or right of the last source pixel get weight (2048, 0) at the edge pixel
// (the horizontal rule); without, the fraction is kept and only the rows are clamped
// later (the vertical rule). xmax is the first output index whose right tap falls
// outside the source.
func linearTaps(n, srcN int, scale float64, clamp bool) (ofs []int, w []int32, xmax int) {
	ofs = make([]int, n)
	w = make([]int32, 2*n)
	xmax = n
	for d := 0; d < n; d++ {
		f := float32(f64mul(float64(d)+0.5, scale) - 0.5)
		s := int(math.Floor(float64(f)))
		f -= float32(s)
		if clamp {
			if s < 0 {
				f, s = 0, 0
			}
			if s+1 >= srcN {
				xmax = min(xmax, d)
				if s >= srcN-1 {
					f, s = 0, srcN-1
				}
			}
		}
		ofs[d] = s
		w[2*d] = int32(roundEven32(f32mul(1-f, resizeCoefScale)))
		w[2*d+1] = int32(roundEven32(f32mul(f, resizeCoefScale)))
	}
	return ofs, w, xmax
}

// ResizeLinear resizes src to w×h like cv2.resize(src, (w, h)) with the default
// INTER_LINEAR on uint8 data, bit for bit with OpenCV 4.6 on x86-64: 11-bit fixed-point
// weights, the horizontal pass in int32, the vertical pass in OpenCV's SSE2 fixed-point
// formula. An exact 2× reduction in both axes is an INTER_AREA box average
// ((a+b+c+d+2)>>2), as in OpenCV. Any channel count works; same size returns a copy.
// It panics if src or the target size is empty (a programmer error).
func ResizeLinear(src Mat8, w, h int) Mat8 {
	if w <= 0 || h <= 0 || src.W <= 0 || src.H <= 0 {
		panic("imgproc: ResizeLinear: empty source or target size")
	}
	if w == src.W && h == src.H {
		return Mat8{H: h, W: w, C: src.C, Pix: append([]uint8(nil), src.Pix...)}
	}
	scaleX := 1 / (float64(w) / float64(src.W))
	scaleY := 1 / (float64(h) / float64(src.H))
	if isExact2(scaleX) && isExact2(scaleY) {
		return resizeArea2(src, w, h)
	}
	cn := src.C
	xofs, alpha, xmax := linearTaps(w, src.W, scaleX, true)
	yofs, beta, _ := linearTaps(h, src.H, scaleY, false)
	dst := NewMat8(h, w, cn)
	rowW := w * cn
	// two cached horizontally resized rows, keyed by source row
	rows := [2][]int32{make([]int32, rowW), make([]int32, rowW)}
	rowKey := [2]int{-1, -1}
	hrow := func(sy int) []int32 {
		for k := 0; k < 2; k++ {
			if rowKey[k] == sy {
				return rows[k]
			}
		}
		// evict the slot not holding the other row needed now (the smaller key)
		k := 0
		if rowKey[1] < rowKey[0] {
			k = 1
		}
		rowKey[k] = sy
		hresizeRow(src.Pix[sy*src.W*cn:(sy+1)*src.W*cn], rows[k], xofs, alpha, xmax, cn)
		return rows[k]
	}
	for dy := 0; dy < h; dy++ {
		sy := yofs[dy]
		r0 := clampInt(sy, 0, src.H-1)
		r1 := clampInt(sy+1, 0, src.H-1)
		s0 := hrow(r0)
		s1 := hrow(r1)
		if r0 == r1 { // hrow may have evicted s0 while fetching s1
			s0 = s1
		}
		vresizeRow(s0, s1, dst.Pix[dy*rowW:(dy+1)*rowW], beta[2*dy], beta[2*dy+1])
	}
	return dst
}

func isExact2(scale float64) bool {
	return math.Abs(scale-math.Round(scale)) < 2.220446049250313e-16 && math.Round(scale) == 2
}

// hresizeRow is HResizeLinear for one 8-bit row: D = S[x]*a0 + S[x+cn]*a1 (scale 2048).
func hresizeRow(s []uint8, d []int32, xofs []int, alpha []int32, xmax, cn int) {
	w := len(xofs)
	for dx := 0; dx < w; dx++ {
		sx := xofs[dx] * cn
		o := dx * cn
		if dx < xmax {
			a0, a1 := alpha[2*dx], alpha[2*dx+1]
			for k := 0; k < cn; k++ {
				d[o+k] = int32(s[sx+k])*a0 + int32(s[sx+k+cn])*a1
			}
		} else {
			for k := 0; k < cn; k++ {
				d[o+k] = int32(s[sx+k]) * resizeCoefScale
			}
		}
	}
}

// vresizeRow is the vertical pass of OpenCV's 8-bit linear resize. cv2 4.6 on x86-64
// computes every value with its SSE2 formula (VResizeLinearVec_32s8u): each row value is
// shifted right by 4, saturated to int16, multiplied by its weight keeping the high 16
// bits, and the rounded sum is shifted by 2 (verified on all reference widths, tails
// included; the exact 22-bit scalar formula would differ by 1 on some pixels).
func vresizeRow(s0, s1 []int32, d []uint8, b0, b1 int32) {
	for x := range d {
		t0 := sat16(s0[x] >> 4)
		t1 := sat16(s1[x] >> 4)
		v := (t0*b0)>>16 + (t1*b1)>>16
		d[x] = satU8((v + 2) >> 2)
	}
}

func sat16(v int32) int32 {
	if v > math.MaxInt16 {
		return math.MaxInt16
	}
	if v < math.MinInt16 {
		return math.MinInt16
	}
	return v
}

func satU8(v int32) uint8 {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(v)
}

// resizeArea2 is OpenCV's fast INTER_AREA path for an exact 2× reduction, which
// cv2.resize takes for INTER_LINEAR too: each output is the mean of a 2×2 block rounded
// half up (the vector path's formula, which cv2 4.6 uses for 1 and 3 channels alike).
func resizeArea2(src Mat8, w, h int) Mat8 {
	cn := src.C
	dst := NewMat8(h, w, cn)
	sstride := src.W * cn
	for dy := 0; dy < h; dy++ {
		r0 := src.Pix[2*dy*sstride:]
		r1 := src.Pix[(2*dy+1)*sstride:]
		d := dst.Pix[dy*w*cn : (dy+1)*w*cn]
		for dx := 0; dx < w; dx++ {
			for k := 0; k < cn; k++ {
				i := 2*dx*cn + k
				sum := int(r0[i]) + int(r0[i+cn]) + int(r1[i]) + int(r1[i+cn])
				d[dx*cn+k] = uint8((sum + 2) >> 2)
			}
		}
	}
	return dst
}
