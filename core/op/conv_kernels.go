package op

import (
	"math"
	"sync"

	"paddle/core/parallel"
	"paddle/core/scratch"
)

// convShape describes one conv2d: x (n, c, g.H, g.W) → y (n, oc, g.OH, g.OW)
// with weight (oc, c/groups, g.KH, g.KW). Transposed convolutions run as this
// conv's adjoint.
type convShape struct {
	n, c, oc, groups int
	g                geom2
}

// convForward computes y = conv(x, w) + b (b may be nil). Each (image,
// group, tile of output rows) is one task: im2col of that group's channels
// for those rows (skipped for pointwise convs), then one GEMM
// w_g (ocg, cg·KH·KW) · col (cg·KH·KW, rows·OW).
func convForward[E float32 | float64](cs convShape, x, w, b, y []E) {
	convForwardEx(cs, x, w, b, y, nil)
}

// convForwardEx is convForward with the epilogue ep (float32 only, nil:
// none) fused into each tile's GEMM through SGEMMEx: the bias becomes ep's
// row bias (with ep nil, a float32 bias alone is such an epilogue, added
// while each tile is in cache). Not for depthwise convolutions (ep would be
// ignored).
func convForwardEx[E float32 | float64](cs convShape, x, w, b, y []E, ep *GemmEpilogue) {
	g := cs.g
	cg, ocg := cs.c/cs.groups, cs.oc/cs.groups
	if cg == 1 {
		depthwiseForward(cs, x, w, b, y)
		return
	}
	if winogradForward(cs, x, w, b, y, ep) {
		return
	}
	hw, ohw, k := g.H*g.W, g.OH*g.OW, cg*g.KH*g.KW
	pw := g.isPointwise()
	rows := g.OH
	if !pw {
		rows = g.tileRows(k)
	}
	nt := (g.OH + rows - 1) / rows
	gemmFor(cs.n*cs.groups*nt, func(lo, hi int) {
		var col []E
		if !pw {
			cp := scratch.Get[E](k*rows*g.OW, false) // im2col writes every element
			defer scratch.Put(cp)
			col = *cp
		}
		for t := lo; t < hi; t++ {
			ni, gi, ti := t/nt/cs.groups, t/nt%cs.groups, t%nt
			oh0, oh1 := ti*rows, min((ti+1)*rows, g.OH)
			cols := (oh1 - oh0) * g.OW
			src, ldb := x[(ni*cs.c+gi*cg)*hw:], ohw
			if !pw {
				im2col(src, cg, g, oh0, oh1, col)
				src, ldb = col, cols
			}
			yg := y[(ni*cs.oc+gi*ocg)*ohw+oh0*g.OW:]
			if _, f32 := any(y).([]float32); ep != nil || f32 && b != nil {
				var e GemmEpilogue
				if ep != nil {
					e = *ep
				}
				if b != nil {
					e.RowBias = any(b).([]float32)[gi*ocg : (gi+1)*ocg]
				}
				SGEMMEx(false, false, ocg, cols, k, 1, any(w).([]float32)[gi*ocg*k:], k, any(src).([]float32), ldb, 0, any(yg).([]float32), ohw, &e)
				continue
			}
			convGemm(false, false, ocg, cols, k, w[gi*ocg*k:], k, src, ldb, 0, yg, ohw)
			if b != nil {
				for o, bv := range b[gi*ocg : (gi+1)*ocg] {
					row := yg[o*ohw : o*ohw+cols]
					for i := range row {
						row[i] += bv
					}
				}
			}
		}
	})
}

// gemmFor is parallel.For over n tasks of grain 1 that call SGEMM,
// announced to the backend's GemmLoop when its equal chunks keep every thread busy to
// the end (n a multiple of the threads, or at least 4 tasks per thread);
// otherwise a thread whose chunk is done lends itself to the others' GEMMs.
func gemmFor(n int, f func(lo, hi int)) {
	if parts := min(parallel.Threads(), n); parts > 1 && Active().GemmLoop != nil && (n%parts == 0 || n >= 4*parts) {
		defer Active().GemmLoop(parts)()
	}
	parallel.For(n, 1, f)
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
// Per (image, group), tile by tile (tiles overlap in dx, so one worker
// takes them all): col = w_gᵀ · dy_g[:, tile], then col2im into dx.
func convBackwardData[E float32 | float64](cs convShape, dy, w, b, dx []E) {
	g := cs.g
	cg, ocg := cs.c/cs.groups, cs.oc/cs.groups
	if convTransposeBlocks(cs, dy, w, b, dx, false) {
		return
	}
	if cg == 1 {
		depthwiseBackwardData(cs, dy, w, b, dx)
		return
	}
	if winogradBackwardData(cs, dy, w, b, dx) {
		return
	}
	hw, ohw, k := g.H*g.W, g.OH*g.OW, cg*g.KH*g.KW
	pw := g.isPointwise()
	rows := g.tileRows(k)
	gemmFor(cs.n*cs.groups, func(lo, hi int) {
		var col []E
		if !pw {
			col = make([]E, k*rows*g.OW)
		}
		for t := lo; t < hi; t++ {
			ni, gi := t/cs.groups, t%cs.groups
			dxg := dx[(ni*cs.c+gi*cg)*hw:]
			dyg := dy[(ni*cs.oc+gi*ocg)*ohw:]
			if pw {
				convGemm(true, false, k, ohw, ocg, w[gi*ocg*k:], k, dyg, ohw, 0, dxg, ohw)
			} else {
				clear(dxg[:cg*hw])
				for oh0 := 0; oh0 < g.OH; oh0 += rows {
					oh1 := min(oh0+rows, g.OH)
					cols := (oh1 - oh0) * g.OW
					convGemm(true, false, k, cols, ocg, w[gi*ocg*k:], k, dyg[oh0*g.OW:], ohw, 0, col, cols)
					col2im(col, cg, g, oh0, oh1, dxg)
				}
			}
			if b != nil {
				addPlaneBias(dxg, b[gi*cg:(gi+1)*cg], hw)
			}
		}
	})
}

// convTransposeBlocks is convBackwardData when the windows do not overlap
// (kernel = stride, no pads, unit dilation, dx exactly OH·KH × OW·KW, as in
// the 2×2 stride-2 transposed convs of a DB head): each element of dx is
// one kernel tap of one dy pixel, so a tile's columns col = w_gᵀ · dy_g are
// written into dx (plus the bias) instead of accumulated, and the (image,
// group, row tile) tasks are independent: they run in parallel even for one
// image and one group. It reports false, doing nothing, for other shapes,
// for 1×1 kernels (a GEMM straight into dx) and for depthwise groups (one
// channel per group and more than one group). With relu it writes
// max(v + bias, 0) instead (conv_transpose2d_act).
func convTransposeBlocks[E float32 | float64](cs convShape, dy, w, b, dx []E, relu bool) bool {
	g := cs.g
	cg, ocg := cs.c/cs.groups, cs.oc/cs.groups
	if g.KH != g.SH || g.KW != g.SW || g.DH != 1 || g.DW != 1 || g.PT != 0 || g.PL != 0 || g.PB != 0 || g.PR != 0 ||
		g.H != g.OH*g.KH || g.W != g.OW*g.KW || (cg == 1 && cs.groups > 1) || g.KH*g.KW == 1 {
		return false
	}
	hw, ohw, kk := g.H*g.W, g.OH*g.OW, g.KH*g.KW
	k := cg * kk
	// row tiles of at most 64 Ki column floats, at least two per thread
	// when an image has the rows for it
	rows := max(1, min((1<<16)/(k*g.OW), g.OH))
	if jobs := cs.n * cs.groups; jobs < 2*parallel.Threads() {
		rows = max(1, min(rows, g.OH*jobs/(2*parallel.Threads())))
	}
	nt := (g.OH + rows - 1) / rows
	floor := E(math.Inf(-1))
	if relu {
		floor = 0
	}
	gemmFor(cs.n*cs.groups*nt, func(lo, hi int) {
		col := make([]E, k*rows*g.OW)
		for t := lo; t < hi; t++ {
			ni, gi, ti := t/nt/cs.groups, t/nt%cs.groups, t%nt
			oh0, oh1 := ti*rows, min((ti+1)*rows, g.OH)
			var bg []E
			if b != nil {
				bg = b[gi*cg : (gi+1)*cg]
			}
			blockTile(w[gi*ocg*k:], bg, ocg, cg, g.KH, g.KW, g.OW, oh1-oh0,
				dy[(ni*cs.oc+gi*ocg)*ohw+oh0*g.OW:], ohw, dx[(ni*cs.c+gi*cg)*hw+oh0*g.KH*g.W:], hw, col, floor)
		}
	})
	return true
}

// blockTile writes rows input rows of a non-overlapping transposed conv
// (one group: c input channels, weights (c, oc·kh·kw), bias b or nil)
// into dst: the product col = wᵀ·src (src's planes ld apart, iw columns)
// and its interleaving stores, oc planes ldo apart of rows·kh rows of
// iw·kw, each max(v + bias, floor). col holds oc·kh·kw·rows·iw.
func blockTile[E float32 | float64](w, b []E, c, oc, kh, kw, iw, rows int, src []E, ld int, dst []E, ldo int, col []E, floor E) {
	k, cols, ow := oc*kh*kw, rows*iw, iw*kw
	convGemm(true, false, k, cols, c, w, k, src, ld, 0, col, cols)
	for o := range oc {
		var bias E // added even when zero: -0 becomes +0 as in the accumulating path
		if b != nil {
			bias = b[o]
		}
		plane := dst[o*ldo:]
		for r := range rows {
			for t := range kh {
				out := plane[(r*kh+t)*ow : (r*kh+t+1)*ow]
				interleaveTaps(out, col[(o*kh+t)*kw*cols+r*iw:], cols, kw, bias, floor)
			}
		}
	}
}

// interleaveTaps writes one output row of a non-overlapping transposed
// conv: out[ow·kw + j] = max(src[j·stride + ow] + bias, floor) for the kw
// taps j of each of the len(out)/kw input columns ow (floor −Inf: no
// activation, 0: relu, as relu's max). The stores run in order along out
// (the tap-by-tap loop it replaces stored every kw-th element, a strided
// pass per tap: ~9 % of int8 det 960); the 2-tap case, a DB head's, pairs
// the two taps' rows.
func interleaveTaps[E float32 | float64](out, src []E, stride, kw int, bias, floor E) {
	n := len(out) / kw
	if kw == 2 {
		s0, s1 := src[:n], src[stride:stride+n]
		out = out[:2*n]
		if f := Active().Interleave2Row32; f != nil {
			if o32, ok := any(out).([]float32); ok {
				i0 := f(o32, any(s0).([]float32), any(s1).([]float32), float32(bias), float32(floor))
				s0, s1, out = s0[i0:], s1[i0:], out[2*i0:]
			}
		}
		for ow, v := range s0 {
			out[2*ow] = max(v+bias, floor)
			out[2*ow+1] = max(s1[ow]+bias, floor)
		}
		return
	}
	for ow := range n {
		o := out[ow*kw : ow*kw+kw]
		for j := range o {
			o[j] = max(src[j*stride+ow]+bias, floor)
		}
	}
}

// convFilterGrad computes dw = Σ_n dy_g · im2col(x_g)ᵀ for each group, over
// (image, row tile) tasks; workers sum into their own buffers first (of
// dwᵀ when that has the fewer columns).
func convFilterGrad[E float32 | float64](cs convShape, x, dy, dw []E) {
	g := cs.g
	cg, ocg := cs.c/cs.groups, cs.oc/cs.groups
	if cg == 1 {
		depthwiseFilterGrad(cs, x, dy, dw)
		return
	}
	if winogradFilterGrad(cs, x, dy, dw) {
		return
	}
	hw, ohw, k := g.H*g.W, g.OH*g.OW, cg*g.KH*g.KW
	pw := g.isPointwise()
	rows := g.OH
	if !pw {
		rows = g.tileRows(k)
	}
	nt := (g.OH + rows - 1) / rows
	// with more filter columns than output channels, each group's part
	// holds dw_gᵀ = col · dy_gᵀ (k × ocg): the GEMM then transposes the
	// ocg × cols tile of dy while packing, not the larger k × cols slab
	// (for a 3×3 conv 64→64, 9× fewer floats through the transposes)
	trans := k > ocg
	var mu sync.Mutex
	clear(dw)
	gemmFor(cs.n*nt, func(lo, hi int) {
		whole := lo == 0 && hi == cs.n*nt && !trans
		part := dw
		if !whole {
			part = make([]E, len(dw))
		}
		var col []E
		if !pw {
			col = make([]E, k*rows*g.OW)
		}
		for t := lo; t < hi; t++ {
			ni, ti := t/nt, t%nt
			oh0, oh1 := ti*rows, min((ti+1)*rows, g.OH)
			cols := (oh1 - oh0) * g.OW
			for gi := range cs.groups {
				src, ldb := x[(ni*cs.c+gi*cg)*hw:], ohw
				if !pw {
					im2col(src, cg, g, oh0, oh1, col)
					src, ldb = col, cols
				}
				dyg := dy[(ni*cs.oc+gi*ocg)*ohw+oh0*g.OW:]
				if trans {
					convGemm(false, true, k, ocg, cols, src, ldb, dyg, ohw, 1, part[gi*ocg*k:], ocg)
					continue
				}
				convGemm(false, true, ocg, k, cols, dyg, ohw, src, ldb, 1, part[gi*ocg*k:], k)
			}
		}
		if whole {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !trans {
			for i, v := range part {
				dw[i] += v
			}
			return
		}
		for gi := range cs.groups {
			pg, dg := part[gi*ocg*k:(gi+1)*ocg*k], dw[gi*ocg*k:(gi+1)*ocg*k]
			for kk := range k {
				for o, v := range pg[kk*ocg : (kk+1)*ocg] {
					dg[o*k+kk] += v
				}
			}
		}
	})
}

// Depthwise convolutions (one input channel per group, oc/groups output
// channels reading it) run as direct loops: im2col would copy every input
// KH·KW times for a GEMM with a single row. Each kernel tap adds a shifted,
// strided copy of the input plane, row by row, over the range of output
// positions whose tap lands inside the input.

// depthwiseForward: y[n, o] = b[o] + Σ_taps w[o, tap] · shift(x[n, o/ocg]).
// It works one output row at a time so the row stays in L1 while every
// kernel row adds into it.
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
			for oh := range g.OH {
				yr := yp[oh*g.OW : (oh+1)*g.OW]
				for kh := range g.KH {
					ih := oh*g.SH + kh*g.DH - g.PT
					if ih < 0 || ih >= g.H {
						continue
					}
					dwRow(yr, xp[ih*g.W:(ih+1)*g.W], w[o*kk+kh*g.KW:o*kk+(kh+1)*g.KW], g)
				}
			}
		}
	})
}

// dwRow adds one kernel row wk applied to input row src into output row dst.
// 3- and 5-wide undilated kernels (most depthwise convs) take a fused loop
// over the columns where all taps are inside the row.
func dwRow[E float32 | float64](dst, src, wk []E, g geom2) {
	lo, hi := 0, 0
	if (g.KW == 3 || g.KW == 5) && g.DW == 1 {
		lo, hi = winRange(g.OW, g.SW, -g.PL, g.W-g.KW+1)
		if lo < hi {
			d := dst[lo:hi]
			s := src[lo*g.SW-g.PL:]
			switch {
			case g.KW == 3 && g.SW == 1:
				w0, w1, w2 := wk[0], wk[1], wk[2]
				s = s[:len(d)+2]
				if f, ok := any(Active().DWRow3x32).(func(d, s []E, w0, w1, w2 E)); ok && f != nil {
					f(d, s, w0, w1, w2)
					break
				}
				for i := range d {
					d[i] += w0*s[i] + w1*s[i+1] + w2*s[i+2]
				}
			case g.KW == 3:
				w0, w1, w2 := wk[0], wk[1], wk[2]
				for i := range d {
					j := i * g.SW
					d[i] += w0*s[j] + w1*s[j+1] + w2*s[j+2]
				}
			default:
				w0, w1, w2, w3, w4 := wk[0], wk[1], wk[2], wk[3], wk[4]
				for i := range d {
					j := i * g.SW
					d[i] += w0*s[j] + w1*s[j+1] + w2*s[j+2] + w3*s[j+3] + w4*s[j+4]
				}
			}
		} else {
			lo, hi = 0, 0
		}
	}
	// the remaining columns, tap by tap
	for kw, wv := range wk {
		off := kw*g.DW - g.PL
		wlo, whi := winRange(g.OW, g.SW, off, g.W)
		for _, r := range [2][2]int{{wlo, min(whi, lo)}, {max(wlo, hi), whi}} {
			if r[0] >= r[1] {
				continue
			}
			d := dst[r[0]:r[1]]
			if g.SW == 1 {
				s := src[r[0]+off : r[1]+off]
				for i, v := range s {
					d[i] += wv * v
				}
				continue
			}
			for i := range d {
				d[i] += wv * src[(r[0]+i)*g.SW+off]
			}
		}
	}
}

// depthwiseBackwardData scatters each dy plane back through the taps:
// dx[n, c] = b[c] + Σ_{o in group c} Σ_taps w[o, tap] · shiftᵀ(dy[n, o]),
// one dx row at a time (the rows of dy and kernel rows that land on it).
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
			for ih := range g.H {
				xr := xp[ih*g.W : (ih+1)*g.W]
				for kh := range g.KH {
					t := ih + g.PT - kh*g.DH
					if t < 0 || t%g.SH != 0 || t/g.SH >= g.OH {
						continue
					}
					oh := t / g.SH
					for o := ci * ocg; o < (ci+1)*ocg; o++ {
						yr := dy[(ni*cs.oc+o)*ohw+oh*g.OW : (ni*cs.oc+o)*ohw+(oh+1)*g.OW]
						dwRowT(xr, yr, w[o*kk+kh*g.KW:o*kk+(kh+1)*g.KW], g)
					}
				}
			}
		}
	})
}

// dwRowT is dwRow's adjoint: it scatters output row src through kernel row
// wk into input row dst. With unit stride a 3- or 5-wide undilated kernel is
// a correlation with the flipped kernel, fused over the interior columns.
func dwRowT[E float32 | float64](dst, src, wk []E, g geom2) {
	lo, hi := 0, 0
	if (g.KW == 3 || g.KW == 5) && g.DW == 1 && g.SW == 1 {
		lo, hi = max(0, g.KW-1-g.PL), min(g.W, g.OW-g.PL)
		if lo < hi {
			d := dst[lo:hi]
			s := src[lo+g.PL-g.KW+1:]
			s = s[:len(d)+g.KW-1]
			f, _ := any(Active().DWRow3x32).(func(d, s []E, w0, w1, w2 E))
			switch {
			case g.KW == 3 && f != nil:
				f(d, s, wk[2], wk[1], wk[0])
			case g.KW == 3:
				w0, w1, w2 := wk[0], wk[1], wk[2]
				for i := range d {
					d[i] += w2*s[i] + w1*s[i+1] + w0*s[i+2]
				}
			default:
				w0, w1, w2, w3, w4 := wk[0], wk[1], wk[2], wk[3], wk[4]
				for i := range d {
					d[i] += w4*s[i] + w3*s[i+1] + w2*s[i+2] + w1*s[i+3] + w0*s[i+4]
				}
			}
		} else {
			lo, hi = 0, 0
		}
	}
	for kw, wv := range wk {
		off := kw*g.DW - g.PL
		wlo, whi := winRange(g.OW, g.SW, off, g.W)
		for _, r := range [2][2]int{{wlo, min(whi, lo-off)}, {max(wlo, hi-off), whi}} {
			if r[0] >= r[1] {
				continue
			}
			s := src[r[0]:r[1]]
			if g.SW == 1 {
				d := dst[r[0]+off : r[1]+off]
				for i, v := range s {
					d[i] += wv * v
				}
				continue
			}
			for i, v := range s {
				dst[(r[0]+i)*g.SW+off] += wv * v
			}
		}
	}
}

// depthwiseFilterGrad: dw[o, tap] = Σ_n Σ_positions dy[n, o] · shift(x[n, o/ocg]),
// walking each (dy row, input row) pair once for all taps of a kernel row.
func depthwiseFilterGrad[E float32 | float64](cs convShape, x, dy, dw []E) {
	g := cs.g
	hw, ohw, kk, ocg := g.H*g.W, g.OH*g.OW, g.KH*g.KW, cs.oc/cs.groups
	parallel.For(cs.oc, 1, func(lo, hi int) {
		acc := make([]float64, kk)
		for o := lo; o < hi; o++ {
			clear(acc)
			for ni := range cs.n {
				yp := dy[(ni*cs.oc+o)*ohw:]
				xp := x[(ni*cs.c+o/ocg)*hw:]
				for oh := range g.OH {
					yr := yp[oh*g.OW : (oh+1)*g.OW]
					for kh := range g.KH {
						ih := oh*g.SH + kh*g.DH - g.PT
						if ih < 0 || ih >= g.H {
							continue
						}
						dwRowGrad(acc[kh*g.KW:(kh+1)*g.KW], yr, xp[ih*g.W:(ih+1)*g.W], g)
					}
				}
			}
			for i, v := range acc {
				dw[o*kk+i] = E(v)
			}
		}
	})
}

// dwRowGrad adds Σ_ow dy[ow]·src[ow·SW + kw·DW - PL] into acc[kw] for one
// kernel row; 3- and 5-wide undilated kernels take one fused pass over the interior.
func dwRowGrad[E float32 | float64](acc []float64, dy, src []E, g geom2) {
	lo, hi := 0, 0
	if (g.KW == 3 || g.KW == 5) && g.DW == 1 {
		lo, hi = winRange(g.OW, g.SW, -g.PL, g.W-g.KW+1)
		if lo < hi {
			d := dy[lo:hi]
			s := src[lo*g.SW-g.PL:]
			if g.KW == 3 {
				var a0, a1, a2 E
				for i, v := range d {
					j := i * g.SW
					a0 += v * s[j]
					a1 += v * s[j+1]
					a2 += v * s[j+2]
				}
				acc[0] += float64(a0)
				acc[1] += float64(a1)
				acc[2] += float64(a2)
			} else {
				var a0, a1, a2, a3, a4 E
				for i, v := range d {
					j := i * g.SW
					a0 += v * s[j]
					a1 += v * s[j+1]
					a2 += v * s[j+2]
					a3 += v * s[j+3]
					a4 += v * s[j+4]
				}
				acc[0] += float64(a0)
				acc[1] += float64(a1)
				acc[2] += float64(a2)
				acc[3] += float64(a3)
				acc[4] += float64(a4)
			}
		} else {
			lo, hi = 0, 0
		}
	}
	for kw := range acc {
		off := kw*g.DW - g.PL
		wlo, whi := winRange(g.OW, g.SW, off, g.W)
		var a E
		for _, r := range [2][2]int{{wlo, min(whi, lo)}, {max(wlo, hi), whi}} {
			for ow := r[0]; ow < r[1]; ow++ {
				a += dy[ow] * src[ow*g.SW+off]
			}
		}
		acc[kw] += float64(a)
	}
}
