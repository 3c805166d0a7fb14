package op

import (
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Window geometry, im2col/col2im and a typed GEMM shared by convolution and
// pooling (conv.go, conv_grad.go, pool.go).

// geom2 is the 2-D sliding-window geometry of one conv or pool: input H×W,
// kernel KH×KW, strides, dilations, pads (top, left, bottom, right) and the
// output OH×OW.
type geom2 struct {
	H, W, KH, KW, SH, SW, DH, DW, PT, PL, PB, PR, OH, OW int
}

// winPair reads a 2-element int attribute (a single value is repeated).
func winPair(a Attrs, k string, def int) ([2]int, error) {
	v := a.Ints(k, nil)
	switch len(v) {
	case 0:
		return [2]int{def, def}, nil
	case 1:
		return [2]int{v[0], v[0]}, nil
	case 2:
		return [2]int{v[0], v[1]}, nil
	}
	return [2]int{}, fmt.Errorf("attribute %s = %v: want 2 values", k, v)
}

// winOut is the number of window positions along one axis.
func winOut(in, k, s, d, p0, p1 int, ceil bool) int {
	span := in + p0 + p1 - ((k-1)*d + 1)
	if span < 0 {
		return 0
	}
	if !ceil {
		return span/s + 1
	}
	out := (span+s-1)/s + 1
	// PyTorch's rule: the last window must start inside the input or the begin padding
	if (out-1)*s >= in+p0 {
		out--
	}
	return out
}

// makeGeom resolves strides, dilations, pads and auto_pad ("", NOTSET,
// SAME_UPPER, SAME_LOWER, VALID: ONNX semantics) for an h×w input and a
// kh×kw kernel.
func makeGeom(h, w, kh, kw int, a Attrs, ceil bool) (geom2, error) {
	g, err := windowAttrs(h, w, kh, kw, a)
	if err != nil {
		return g, err
	}
	g.OH = winOut(h, kh, g.SH, g.DH, g.PT, g.PB, ceil)
	g.OW = winOut(w, kw, g.SW, g.DW, g.PL, g.PR, ceil)
	if g.OH < 1 || g.OW < 1 {
		return g, fmt.Errorf("input %dx%d is too small for kernel %dx%d (dilations %d %d, pads %v)",
			h, w, kh, kw, g.DH, g.DW, g.explicitPads())
	}
	return g, nil
}

// windowAttrs is makeGeom without the output size.
func windowAttrs(h, w, kh, kw int, a Attrs) (geom2, error) {
	g := geom2{H: h, W: w, KH: kh, KW: kw}
	s, err := winPair(a, "strides", 1)
	if err != nil {
		return g, err
	}
	d, err := winPair(a, "dilations", 1)
	if err != nil {
		return g, err
	}
	g.SH, g.SW, g.DH, g.DW = s[0], s[1], d[0], d[1]
	if g.SH < 1 || g.SW < 1 || g.DH < 1 || g.DW < 1 || kh < 1 || kw < 1 {
		return g, fmt.Errorf("strides %v, dilations %v and kernel %dx%d must be positive", s, d, kh, kw)
	}
	switch ap := a.Str("auto_pad", ""); ap {
	case "", "NOTSET":
		p := a.Ints("pads", nil)
		switch len(p) {
		case 0:
		case 2:
			g.PT, g.PL, g.PB, g.PR = p[0], p[1], p[0], p[1]
		case 4:
			g.PT, g.PL, g.PB, g.PR = p[0], p[1], p[2], p[3]
		default:
			return g, fmt.Errorf("pads %v: want [top, left, bottom, right]", p)
		}
		if g.PT < 0 || g.PL < 0 || g.PB < 0 || g.PR < 0 {
			return g, fmt.Errorf("pads %v must not be negative", p)
		}
	case "VALID":
	case "SAME_UPPER", "SAME_LOWER":
		g.PT, g.PB = samePads(h, kh, g.SH, g.DH, ap == "SAME_UPPER")
		g.PL, g.PR = samePads(w, kw, g.SW, g.DW, ap == "SAME_UPPER")
	default:
		return g, fmt.Errorf("auto_pad %q: want SAME_UPPER, SAME_LOWER, VALID or empty", ap)
	}
	return g, nil
}

// samePads splits the padding that makes out = ceil(in/s); the odd pixel goes
// to the end for SAME_UPPER and to the beginning for SAME_LOWER.
func samePads(in, k, s, d int, upper bool) (int, int) {
	out := (in + s - 1) / s
	total := max((out-1)*s+(k-1)*d+1-in, 0)
	small := total / 2
	if upper {
		return small, total - small
	}
	return total - small, small
}

// explicitPads returns the resolved pads as an attribute value.
func (g geom2) explicitPads() []int { return []int{g.PT, g.PL, g.PB, g.PR} }

// winRange returns the range [lo, hi) of output positions o for which
// o*s + off lies inside [0, n).
func winRange(out, s, off, n int) (int, int) {
	lo := 0
	if off < 0 {
		lo = (-off + s - 1) / s
	}
	hi := 0
	if n-1-off >= 0 {
		hi = (n-1-off)/s + 1
	}
	return min(lo, out), min(max(hi, lo), out)
}

// colBudget caps an im2col slab (elements): output rows are processed in
// tiles whose slab fits, so memory stays bounded on large images (a 3x3
// conv of 96 channels at 240x240 would otherwise need a 200 MB matrix) and
// the slab stays in L2 (512 KiB, beside the GEMM's packed B block) between
// its writing and the GEMM's packing where K is short (colMinCols bounds
// the tiles of long-K convs): 1 Mi floats made a 32→64 3×3 stride-2 conv at
// 112² 3–12% slower (CPU time, 1 thread).
var colBudget = 1 << 17 // a var so tests can force small tiles

// colMinCols is the fewest columns (output pixels) a tile's GEMM gets when
// the budget would allow fewer (long K): below that, packing the whole
// filter matrix for each GEMM costs more than the slab's trip to L3.
const colMinCols = 512

// tileRows is the number of output rows per im2col tile for k = C·KH·KW.
func (g geom2) tileRows(k int) int {
	rows := max(colBudget/max(k*g.OW, 1), (colMinCols+g.OW-1)/g.OW)
	return max(1, min(g.OH, rows))
}

// rowClip clips a tap's valid output rows [lo, hi) to the tile [oh0, oh1).
func rowClip(lo, hi, oh0, oh1 int) (int, int) {
	lo, hi = min(max(lo, oh0), oh1), min(hi, oh1) // lo past the tile: no valid rows
	return lo, max(hi, lo)
}

// im2col unrolls output rows [oh0, oh1) of one image's c channels
// x: (c, H, W) into col: (c*KH*KW, (oh1-oh0)*OW), zero where the window
// reads padding.
func im2col[E float32 | float64](x []E, c int, g geom2, oh0, oh1 int, col []E) {
	im2colPad(x, c, g, oh0, oh1, 0, col)
}

// im2colPad is im2col with pad where the window reads padding (bytes: the
// quantized zero of qconv2d); whole rows are copied (stride 1) or gathered
// without per-element bounds tests.
func im2colPad[E float32 | float64 | byte](x []E, c int, g geom2, oh0, oh1 int, pad E, col []E) {
	n := (oh1 - oh0) * g.OW
	var s2 func(dst []E, ldd int, src []E, lds, n, rows int) // the vector stride-2 gather, for float32
	if g.SW == 2 {
		if f, ok := any(Active().Stride2Rows32).(func(dst []E, ldd int, src []E, lds, n, rows int)); ok && f != nil {
			s2 = f
		}
	}
	for ci := range c {
		xc := x[ci*g.H*g.W:]
		for kh := range g.KH {
			offH := kh*g.DH - g.PT
			hlo, hhi := winRange(g.OH, g.SH, offH, g.H)
			hlo, hhi = rowClip(hlo, hhi, oh0, oh1)
			for kw := range g.KW {
				row := col[((ci*g.KH+kh)*g.KW+kw)*n:][:n]
				offW := kw*g.DW - g.PL
				wlo, whi := winRange(g.OW, g.SW, offW, g.W)
				fill(row[:(hlo-oh0)*g.OW], pad)
				fill(row[(hhi-oh0)*g.OW:], pad)
				if s2 != nil && wlo < whi && hlo < hhi {
					// all rows of the tap in one call, then the padding columns
					s2(row[(hlo-oh0)*g.OW+wlo:], g.OW, xc[(hlo*g.SH+offH)*g.W+wlo*2+offW:], g.SH*g.W, whi-wlo, hhi-hlo)
					for oh := hlo; oh < hhi; oh++ {
						dst := row[(oh-oh0)*g.OW : (oh-oh0+1)*g.OW]
						fill(dst[:wlo], pad)
						fill(dst[whi:], pad)
					}
					continue
				}
				for oh := hlo; oh < hhi; oh++ {
					dst := row[(oh-oh0)*g.OW : (oh-oh0+1)*g.OW]
					src := xc[(oh*g.SH+offH)*g.W:]
					fill(dst[:wlo], pad)
					fill(dst[whi:], pad)
					if wlo >= whi { // the tap reads only padding (a pad wider than the row)
						continue
					}
					if g.SW == 1 {
						copy(dst[wlo:whi], src[wlo+offW:whi+offW])
						continue
					}
					for ow := wlo; ow < whi; ow++ {
						dst[ow] = src[ow*g.SW+offW]
					}
				}
			}
		}
	}
}

// fill sets every element of s to v (clear's memclr when v is 0).
func fill[E float32 | float64 | byte](s []E, v E) {
	if v == 0 {
		clear(s)
		return
	}
	for i := range s {
		s[i] = v
	}
}

// col2im is im2col's adjoint: it adds col: (c*KH*KW, (oh1-oh0)*OW) into
// x: (c, H, W).
func col2im[E float32 | float64](col []E, c int, g geom2, oh0, oh1 int, x []E) {
	n := (oh1 - oh0) * g.OW
	var s2 func(dst, src []E) // the vector stride-2 scatter, for float32
	if g.SW == 2 {
		if f, ok := any(Active().Stride2Add32).(func(dst, src []E)); ok && f != nil {
			s2 = f
		}
	}
	for ci := range c {
		xc := x[ci*g.H*g.W:]
		for kh := range g.KH {
			offH := kh*g.DH - g.PT
			hlo, hhi := winRange(g.OH, g.SH, offH, g.H)
			hlo, hhi = rowClip(hlo, hhi, oh0, oh1)
			for kw := range g.KW {
				row := col[((ci*g.KH+kh)*g.KW+kw)*n:][:n]
				offW := kw*g.DW - g.PL
				wlo, whi := winRange(g.OW, g.SW, offW, g.W)
				if wlo >= whi { // the tap reads only padding
					continue
				}
				for oh := hlo; oh < hhi; oh++ {
					src := row[(oh-oh0)*g.OW : (oh-oh0+1)*g.OW]
					dst := xc[(oh*g.SH+offH)*g.W:]
					if g.SW == 1 {
						d := dst[wlo+offW : whi+offW]
						for i, v := range src[wlo:whi] {
							d[i] += v
						}
						continue
					}
					if s2 != nil {
						s2(dst[wlo*2+offW:], src[wlo:whi])
						continue
					}
					for ow := wlo; ow < whi; ow++ {
						dst[ow*g.SW+offW] += src[ow]
					}
				}
			}
		}
	}
}

// isPointwise reports whether the window is 1x1 with unit strides and no
// padding, so an image already is its own im2col matrix.
func (g geom2) isPointwise() bool {
	return g.KH == 1 && g.KW == 1 && g.SH == 1 && g.SW == 1 && g.PT == 0 && g.PL == 0 && g.PB == 0 && g.PR == 0
}

// convGemm computes c = a·b + beta*c for row-major a (m×k, or k×m when ta),
// b (k×n, or n×k when tb) and c (m×n): float32 through SGEMM (the backend's
// when one is active), float64 through gonum's Dgemm.
func convGemm[E float32 | float64](ta, tb bool, m, n, k int, a []E, lda int, b []E, ldb int, beta E, c []E, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	switch av := any(a).(type) {
	case []float32:
		SGEMM(ta, tb, m, n, k, 1, av, lda, any(b).([]float32), ldb, float32(beta), any(c).([]float32), ldc)
	case []float64:
		tA, tB := blas.NoTrans, blas.NoTrans
		if ta {
			tA = blas.Trans
		}
		if tb {
			tB = blas.Trans
		}
		gonum.Implementation{}.Dgemm(tA, tB, m, n, k, 1, av, lda, any(b).([]float64), ldb, float64(beta), any(c).([]float64), ldc)
	}
}
