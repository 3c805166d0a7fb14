package op

import (
	"sync"

	"paddle/core/parallel"
)

// convShape describes one conv2d: x (n, c, g.H, g.W) → y (n, oc, g.OH, g.OW)
// with weight (oc, c/groups, g.KH, g.KW). Transposed convolutions run as this
// conv's adjoint.
type convShape struct {
	n, c, oc, groups int
	g                geom2
}

// convForward computes y = conv(x, w) + b (b may be nil). Each (image, group)
// is one task: im2col of that group's channels (skipped for pointwise convs),
// then one GEMM w_g (ocg, cg·KH·KW) · col (cg·KH·KW, OH·OW).
func convForward[E float32 | float64](cs convShape, x, w, b, y []E) {
	g := cs.g
	cg, ocg := cs.c/cs.groups, cs.oc/cs.groups
	if cg == 1 {
		depthwiseForward(cs, x, w, b, y)
		return
	}
	hw, ohw, k := g.H*g.W, g.OH*g.OW, cg*g.KH*g.KW
	pw := g.isPointwise()
	parallel.For(cs.n*cs.groups, 1, func(lo, hi int) {
		var col []E
		if !pw {
			col = make([]E, k*ohw)
		}
		for t := lo; t < hi; t++ {
			ni, gi := t/cs.groups, t%cs.groups
			src := x[(ni*cs.c+gi*cg)*hw:]
			if !pw {
				im2col(src, cg, g, col)
				src = col
			}
			yg := y[(ni*cs.oc+gi*ocg)*ohw:]
			convGemm(false, false, ocg, ohw, k, w[gi*ocg*k:], k, src, ohw, 0, yg, ohw)
			if b != nil {
				addPlaneBias(yg, b[gi*ocg:(gi+1)*ocg], ohw)
			}
		}
	})
}

// addPlaneBias adds b[o] to each of the len(b) planes of size plane in y.
func addPlaneBias[E float32 | float64](y, b []E, plane int) {
	for o, bv := range b {
		row := y[o*plane : (o+1)*plane]
		for i := range row {
			row[i] += bv
		}
	}
}

// convBackwardData computes dx = convᵀ(dy, w) + b (b may be nil, added per x
// channel): the input gradient of conv2d and the forward of conv_transpose2d.
// Per (image, group): col = w_gᵀ · dy_g, then col2im into dx.
func convBackwardData[E float32 | float64](cs convShape, dy, w, b, dx []E) {
	g := cs.g
	cg, ocg := cs.c/cs.groups, cs.oc/cs.groups
	if cg == 1 {
		depthwiseBackwardData(cs, dy, w, b, dx)
		return
	}
	hw, ohw, k := g.H*g.W, g.OH*g.OW, cg*g.KH*g.KW
	pw := g.isPointwise()
	parallel.For(cs.n*cs.groups, 1, func(lo, hi int) {
		var col []E
		if !pw {
			col = make([]E, k*ohw)
		}
		for t := lo; t < hi; t++ {
			ni, gi := t/cs.groups, t%cs.groups
			dxg := dx[(ni*cs.c+gi*cg)*hw:]
			dyg := dy[(ni*cs.oc+gi*ocg)*ohw:]
			if pw {
				convGemm(true, false, k, ohw, ocg, w[gi*ocg*k:], k, dyg, ohw, 0, dxg, ohw)
			} else {
				convGemm(true, false, k, ohw, ocg, w[gi*ocg*k:], k, dyg, ohw, 0, col, ohw)
				clear(dxg[:cg*hw])
				col2im(col, cg, g, dxg)
			}
			if b != nil {
				addPlaneBias(dxg, b[gi*cg:(gi+1)*cg], hw)
			}
		}
	})
}

// convFilterGrad computes dw = Σ_n dy_g · im2col(x_g)ᵀ for each group.
// Images are split among workers, each summing into its own buffer.
func convFilterGrad[E float32 | float64](cs convShape, x, dy, dw []E) {
	g := cs.g
	cg, ocg := cs.c/cs.groups, cs.oc/cs.groups
	if cg == 1 {
		depthwiseFilterGrad(cs, x, dy, dw)
		return
	}
	hw, ohw, k := g.H*g.W, g.OH*g.OW, cg*g.KH*g.KW
	pw := g.isPointwise()
	var mu sync.Mutex
	clear(dw)
	parallel.For(cs.n, 1, func(lo, hi int) {
		part := dw
		if lo != 0 || hi != cs.n {
			part = make([]E, len(dw))
		}
		var col []E
		if !pw {
			col = make([]E, k*ohw)
		}
		for ni := lo; ni < hi; ni++ {
			for gi := range cs.groups {
				src := x[(ni*cs.c+gi*cg)*hw:]
				if !pw {
					im2col(src, cg, g, col)
					src = col
				}
				convGemm(false, true, ocg, k, ohw, dy[(ni*cs.oc+gi*ocg)*ohw:], ohw, src, ohw, 1, part[gi*ocg*k:], k)
			}
		}
		if lo != 0 || hi != cs.n {
			mu.Lock()
			for i, v := range part {
				dw[i] += v
			}
			mu.Unlock()
		}
	})
}

// Depthwise convolutions (one input channel per group, oc/groups output
// channels reading it) run as direct loops: im2col would copy every input
// KH·KW times for a GEMM with a single row. Each kernel tap adds a shifted,
// strided copy of the input plane, row by row, over the range of output
// positions whose tap lands inside the input.

// depthwiseForward: y[n, o] = b[o] + Σ_taps w[o, tap] · shift(x[n, o/ocg]).
func depthwiseForward[E float32 | float64](cs convShape, x, w, b, y []E) {
	g := cs.g
	hw, ohw, kk, ocg := g.H*g.W, g.OH*g.OW, g.KH*g.KW, cs.oc/cs.groups
	parallel.For(cs.n*cs.oc, 4, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			ni, o := p/cs.oc, p%cs.oc
			yp := y[p*ohw : (p+1)*ohw]
			xp := x[(ni*cs.c+o/ocg)*hw : (ni*cs.c+o/ocg+1)*hw]
			if b != nil {
				for i := range yp {
					yp[i] = b[o]
				}
			} else {
				clear(yp)
			}
			for kh := range g.KH {
				offH := kh*g.DH - g.PT
				hlo, hhi := winRange(g.OH, g.SH, offH, g.H)
				for kw := range g.KW {
					wv := w[o*kk+kh*g.KW+kw]
					offW := kw*g.DW - g.PL
					wlo, whi := winRange(g.OW, g.SW, offW, g.W)
					if wlo >= whi {
						continue
					}
					for oh := hlo; oh < hhi; oh++ {
						dst := yp[oh*g.OW+wlo : oh*g.OW+whi]
						src := xp[(oh*g.SH+offH)*g.W:]
						if g.SW == 1 {
							src = src[wlo+offW : whi+offW]
							src = src[:len(dst)]
							for i, v := range src {
								dst[i] += wv * v
							}
							continue
						}
						for i := range dst {
							dst[i] += wv * src[(wlo+i)*g.SW+offW]
						}
					}
				}
			}
		}
	})
}

// depthwiseBackwardData scatters each dy plane back through the taps:
// dx[n, c] = b[c] + Σ_{o in group c} Σ_taps w[o, tap] · shiftᵀ(dy[n, o]).
func depthwiseBackwardData[E float32 | float64](cs convShape, dy, w, b, dx []E) {
	g := cs.g
	hw, ohw, kk, ocg := g.H*g.W, g.OH*g.OW, g.KH*g.KW, cs.oc/cs.groups
	parallel.For(cs.n*cs.c, 4, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			ni, ci := p/cs.c, p%cs.c
			xp := dx[p*hw : (p+1)*hw]
			if b != nil {
				for i := range xp {
					xp[i] = b[ci]
				}
			} else {
				clear(xp)
			}
			for o := ci * ocg; o < (ci+1)*ocg; o++ {
				yp := dy[(ni*cs.oc+o)*ohw : (ni*cs.oc+o+1)*ohw]
				for kh := range g.KH {
					offH := kh*g.DH - g.PT
					hlo, hhi := winRange(g.OH, g.SH, offH, g.H)
					for kw := range g.KW {
						wv := w[o*kk+kh*g.KW+kw]
						offW := kw*g.DW - g.PL
						wlo, whi := winRange(g.OW, g.SW, offW, g.W)
						if wlo >= whi {
							continue
						}
						for oh := hlo; oh < hhi; oh++ {
							src := yp[oh*g.OW+wlo : oh*g.OW+whi]
							dst := xp[(oh*g.SH+offH)*g.W:]
							if g.SW == 1 {
								dst = dst[wlo+offW : whi+offW]
								dst = dst[:len(src)]
								for i, v := range src {
									dst[i] += wv * v
								}
								continue
							}
							for i, v := range src {
								dst[(wlo+i)*g.SW+offW] += wv * v
							}
						}
					}
				}
			}
		}
	})
}

// depthwiseFilterGrad: dw[o, tap] = Σ_n Σ_positions dy[n, o] · shift(x[n, o/ocg]).
func depthwiseFilterGrad[E float32 | float64](cs convShape, x, dy, dw []E) {
	g := cs.g
	hw, ohw, kk, ocg := g.H*g.W, g.OH*g.OW, g.KH*g.KW, cs.oc/cs.groups
	parallel.For(cs.oc, 1, func(lo, hi int) {
		for o := lo; o < hi; o++ {
			for kh := range g.KH {
				offH := kh*g.DH - g.PT
				hlo, hhi := winRange(g.OH, g.SH, offH, g.H)
				for kw := range g.KW {
					offW := kw*g.DW - g.PL
					wlo, whi := winRange(g.OW, g.SW, offW, g.W)
					var acc E
					for ni := range cs.n {
						yp := dy[(ni*cs.oc+o)*ohw:]
						xp := x[(ni*cs.c+o/ocg)*hw:]
						for oh := hlo; oh < hhi; oh++ {
							dyr := yp[oh*g.OW+wlo : oh*g.OW+whi]
							src := xp[(oh*g.SH+offH)*g.W:]
							if g.SW == 1 {
								src = src[wlo+offW : whi+offW]
								src = src[:len(dyr)]
								for i, v := range src {
									acc += dyr[i] * v
								}
								continue
							}
							for i, v := range dyr {
								acc += v * src[(wlo+i)*g.SW+offW]
							}
						}
					}
					dw[o*kk+kh*g.KW+kw] = acc
				}
			}
		}
	})
}
