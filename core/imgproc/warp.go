package imgproc

import (
	"math"
	"sync"
)

// GetPerspectiveTransform returns the row-major 3×3 homography mapping src[i] to dst[i],
// as cv2.getPerspectiveTransform computes it: coordinates rounded to float32, the 8×8
// system built with float32 products and solved by OpenCV's partial-pivot LU in float64.
// ok is false when the system is singular; m is then zero but for M[8] = 1, which is
// what OpenCV returns (and warps with) in that case.
func GetPerspectiveTransform(src, dst [4]Point) (m [9]float64, ok bool) {
	var a [8][8]float64
	var b [8]float64
	for i := 0; i < 4; i++ {
		sx, sy := float32(src[i].X), float32(src[i].Y)
		dx, dy := float32(dst[i].X), float32(dst[i].Y)
		a[i][0], a[i+4][3] = float64(sx), float64(sx)
		a[i][1], a[i+4][4] = float64(sy), float64(sy)
		a[i][2], a[i+4][5] = 1, 1
		a[i][6] = float64(-f32mul(sx, dx))
		a[i][7] = float64(-f32mul(sy, dx))
		a[i+4][6] = float64(-f32mul(sx, dy))
		a[i+4][7] = float64(-f32mul(sy, dy))
		b[i], b[i+4] = float64(dx), float64(dy)
	}
	ok = luSolve8(&a, &b)
	if ok {
		copy(m[:8], b[:])
	}
	m[8] = 1
	return m, ok
}

// luSolve8 is OpenCV 4.6's hal::LU for doubles with one right-hand side: Gaussian
// elimination with partial pivoting (rows scaled by -1/pivot), then back substitution
// dividing by the pivots (bit-exact with cv2 on all reference systems; the later
// variant that multiplies by stored reciprocals is not).
func luSolve8(a *[8][8]float64, b *[8]float64) bool {
	const n = 8
	const eps = 2.220446049250313e-16 * 100
	for i := 0; i < n; i++ {
		k := i
		for j := i + 1; j < n; j++ {
			if math.Abs(a[j][i]) > math.Abs(a[k][i]) {
				k = j
			}
		}
		if math.Abs(a[k][i]) < eps {
			return false
		}
		if k != i {
			for j := i; j < n; j++ {
				a[i][j], a[k][j] = a[k][j], a[i][j]
			}
			b[i], b[k] = b[k], b[i]
		}
		d := -1 / a[i][i]
		for j := i + 1; j < n; j++ {
			alpha := f64mul(a[j][i], d)
			for k := i + 1; k < n; k++ {
				a[j][k] += f64mul(alpha, a[i][k])
			}
			b[j] += f64mul(alpha, b[i])
		}
	}
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for k := i + 1; k < n; k++ {
			s -= f64mul(a[i][k], b[k])
		}
		b[i] = s / a[i][i]
	}
	return true
}

// invert3 is cv::invert for a 3×3 double matrix (DECOMP_LU takes the explicit
// cofactor formula for n = 3). It returns false for a zero determinant.
func invert3(m [9]float64) ([9]float64, bool) {
	s := func(r, c int) float64 { return m[r*3+c] }
	d := f64mul(s(0, 0), f64mul(s(1, 1), s(2, 2))-f64mul(s(1, 2), s(2, 1))) -
		f64mul(s(0, 1), f64mul(s(1, 0), s(2, 2))-f64mul(s(1, 2), s(2, 0))) +
		f64mul(s(0, 2), f64mul(s(1, 0), s(2, 1))-f64mul(s(1, 1), s(2, 0)))
	if d == 0 {
		return [9]float64{}, false
	}
	d = 1 / d
	return [9]float64{
		f64mul(f64mul(s(1, 1), s(2, 2))-f64mul(s(1, 2), s(2, 1)), d),
		f64mul(f64mul(s(0, 2), s(2, 1))-f64mul(s(0, 1), s(2, 2)), d),
		f64mul(f64mul(s(0, 1), s(1, 2))-f64mul(s(0, 2), s(1, 1)), d),
		f64mul(f64mul(s(1, 2), s(2, 0))-f64mul(s(1, 0), s(2, 2)), d),
		f64mul(f64mul(s(0, 0), s(2, 2))-f64mul(s(0, 2), s(2, 0)), d),
		f64mul(f64mul(s(0, 2), s(1, 0))-f64mul(s(0, 0), s(1, 2)), d),
		f64mul(f64mul(s(1, 0), s(2, 1))-f64mul(s(1, 1), s(2, 0)), d),
		f64mul(f64mul(s(0, 1), s(2, 0))-f64mul(s(0, 0), s(2, 1)), d),
		f64mul(f64mul(s(0, 0), s(1, 1))-f64mul(s(0, 1), s(1, 0)), d),
	}, true
}

// Fixed-point layout of OpenCV's remap tables: sub-pixel positions in 1/32 steps and
// 15-bit interpolation weights.
const (
	interBits      = 5
	interTabSize   = 1 << interBits
	remapCoefBits  = 15
	remapCoefScale = 1 << remapCoefBits
)

var (
	cubicTabOnce sync.Once
	cubicTab     [interTabSize * interTabSize][16]int32
)

// cubicCoeffs is OpenCV's interpolateCubic (Keys, A = -0.75) in float32.
func cubicCoeffs(x float32) [4]float32 {
	const A = float32(-0.75)
	var c [4]float32
	c[0] = f32mul(f32mul(f32mul(A, x+1)-5*A, x+1)+8*A, x+1) - 4*A
	c[1] = f32mul(f32mul(f32mul(A+2, x)-(A+3), x), x) + 1
	c[2] = f32mul(f32mul(f32mul(A+2, 1-x)-(A+3), 1-x), 1-x) + 1
	c[3] = 1 - c[0] - c[1] - c[2]
	return c
}

// initCubicTab builds OpenCV's 2-D fixed-point bicubic table: float weights, rounded to
// 1/32768, with the rounding error put on the largest (or smallest) of the four centre
// taps so each 4×4 kernel sums to exactly 32768.
func initCubicTab() {
	var tab1 [interTabSize][4]float32
	for i := range tab1 {
		tab1[i] = cubicCoeffs(float32(i) * (1 / float32(interTabSize)))
	}
	for i := 0; i < interTabSize; i++ {
		for j := 0; j < interTabSize; j++ {
			it := &cubicTab[i*interTabSize+j]
			isum := int32(0)
			for k1 := 0; k1 < 4; k1++ {
				vy := tab1[i][k1]
				for k2 := 0; k2 < 4; k2++ {
					v := f32mul(vy, tab1[j][k2])
					w := int32(roundEven32(f32mul(v, remapCoefScale)))
					w = max(min(w, math.MaxInt16), math.MinInt16)
					it[k1*4+k2] = w
					isum += w
				}
			}
			if diff := isum - remapCoefScale; diff != 0 {
				mk1, mk2, Mk1, Mk2 := 2, 2, 2, 2
				for k1 := 2; k1 < 4; k1++ {
					for k2 := 2; k2 < 4; k2++ {
						if it[k1*4+k2] < it[mk1*4+mk2] {
							mk1, mk2 = k1, k2
						} else if it[k1*4+k2] > it[Mk1*4+Mk2] {
							Mk1, Mk2 = k1, k2
						}
					}
				}
				if diff < 0 {
					it[Mk1*4+Mk2] -= diff
				} else {
					it[mk1*4+mk2] -= diff
				}
			}
		}
	}
}

// WarpPerspective maps src through the homography m (source → destination, as given to
// cv2.warpPerspective) into a w×h image, equal to
// cv2.warpPerspective(src, m, (w, h), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE):
// m is inverted with OpenCV's 3×3 formula, each destination pixel's source position is
// computed in float64 per 32-pixel-wide block as OpenCV does and rounded to 1/32 pixel,
// and the 4×4 bicubic kernel uses OpenCV's 15-bit fixed-point table.
func WarpPerspective(src Mat8, m [9]float64, w, h int) Mat8 {
	cubicTabOnce.Do(initCubicTab)
	dst := NewMat8(h, w, src.C)
	if w <= 0 || h <= 0 || src.W <= 0 || src.H <= 0 {
		return dst
	}
	// A singular m inverts to the zero matrix, as in OpenCV: every pixel then takes
	// the source pixel (0, 0).
	inv, _ := invert3(m)
	const blockSz = 32
	bh0 := min(blockSz/2, h)
	bw0 := min(blockSz*blockSz/bh0, w)
	cn := src.C
	for y := 0; y < h; y++ {
		drow := dst.Pix[y*w*cn : (y+1)*w*cn]
		for x := 0; x < w; x += bw0 {
			bw := min(bw0, w-x)
			fy := float64(y)
			X0 := f64mul(inv[0], float64(x)) + f64mul(inv[1], fy) + inv[2]
			Y0 := f64mul(inv[3], float64(x)) + f64mul(inv[4], fy) + inv[5]
			W0 := f64mul(inv[6], float64(x)) + f64mul(inv[7], fy) + inv[8]
			for x1 := 0; x1 < bw; x1++ {
				fx1 := float64(x1)
				W := W0 + f64mul(inv[6], fx1)
				if W != 0 {
					W = interTabSize / W
				}
				X := roundSatInt(f64mul(X0+f64mul(inv[0], fx1), W))
				Y := roundSatInt(f64mul(Y0+f64mul(inv[3], fx1), W))
				sx := int(sat16(int32(X >> interBits)))
				sy := int(sat16(int32(Y >> interBits)))
				a := (Y&(interTabSize-1))*interTabSize + (X & (interTabSize - 1))
				bicubicPixel(src, sx, sy, &cubicTab[a], drow[(x+x1)*cn:(x+x1+1)*cn])
			}
		}
	}
	return dst
}

// roundSatInt is cvRound of a double clamped to the int32 range first.
func roundSatInt(v float64) int {
	v = math.Max(math.MinInt32, math.Min(math.MaxInt32, v))
	return int(math.RoundToEven(v))
}

// bicubicPixel is remapBicubic for one 8-bit pixel with BORDER_REPLICATE: the 4×4
// neighbourhood starting at (sx-1, sy-1), clamped into the image, weighted by wt.
func bicubicPixel(src Mat8, sx, sy int, wt *[16]int32, out []uint8) {
	cn := src.C
	var xs, ys [4]int
	for i := 0; i < 4; i++ {
		xs[i] = clampInt(sx-1+i, 0, src.W-1) * cn
		ys[i] = clampInt(sy-1+i, 0, src.H-1) * src.W * cn
	}
	for k := 0; k < cn; k++ {
		var sum int32
		for i := 0; i < 4; i++ {
			row := src.Pix[ys[i]+k:]
			sum += int32(row[xs[0]])*wt[i*4] + int32(row[xs[1]])*wt[i*4+1] +
				int32(row[xs[2]])*wt[i*4+2] + int32(row[xs[3]])*wt[i*4+3]
		}
		out[k] = satU8((sum + 1<<(remapCoefBits-1)) >> remapCoefBits)
	}
}
