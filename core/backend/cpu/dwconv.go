//go:build (amd64 || arm64) && !purego

package cpu

import (
	"unsafe"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/scratch"
	"paddle/core/tensor"
)

// The depthwise convolution's driver, shared by the vector levels; only
// the row kernel (dwRow: dwconv_amd64.go, dwconv_arm64.go) is per ISA.

// depthwiseKernel returns the conv2d kernel for float32 depthwise
// convolutions (strides 1 or 2) at the levels with a row kernel (dwRow:
// avx2, avx512, neon), nil at generic.
func depthwiseKernel() op.Kernel {
	if dwRow() == nil {
		return nil
	}
	return depthwiseConv2D
}

// depthwiseConv2D is an op.Kernel for conv2d: x (N, C, H, W) with w (C, 1,
// KH, KW) and optional b (C), groups = C, strides 1 or 2, unit dilations,
// explicit pads. Each (image, channel) plane is copied into a zero-padded
// buffer, then every output row is one call of the level's row kernel (dwRow); with column
// stride 2 the buffer holds each row's even columns, then its odd columns,
// and a row is two calls (even taps on the even half, odd taps on the odd
// half). Other calls return false (the reference kernels run).
func depthwiseConv2D(out, in []*op.T, a op.Attrs) bool {
	return depthwiseConv2DEx(out, in, a, nil)
}

// depthwiseExKernel returns op.DepthwiseEx's kernel, nil when depthwiseKernel is.
func depthwiseExKernel() func(out, in []*op.T, a op.Attrs, ep *op.GemmEpilogue) bool {
	if depthwiseKernel() == nil {
		return nil
	}
	return depthwiseEx
}

// depthwiseEx is op.DepthwiseEx: depthwiseConv2D with the epilogue (no
// row bias) applied to each output plane right after it is computed, while
// it is in cache, instead of a second pass over the whole output.
func depthwiseEx(out, in []*op.T, a op.Attrs, ep *op.GemmEpilogue) bool {
	e := Epilogue{Affine: ep.Affine, Scale: ep.Scale, Shift: ep.Shift}
	switch ep.Act {
	case op.GemmActNone:
	case op.GemmActHardSwish:
		e.Act = ActHardSwish6
	case op.GemmActRelu:
		e.Act = ActRelu
	default:
		return false
	}
	if ep.RowBias != nil || out[0].DType() != tensor.Float32 {
		return false
	}
	return depthwiseConv2DEx(out, in, a, &e)
}

// depthwiseConv2DEx is depthwiseConv2D, then ep (nil: none) on each plane.
func depthwiseConv2DEx(out, in []*op.T, a op.Attrs, ep *Epilogue) bool {
	x, w := in[0], in[1]
	dwConvRow := dwRow()
	if x.DType() != tensor.Float32 || len(in) > 3 || dwConvRow == nil {
		return false
	}
	xs, ws := x.Shape(), w.Shape()
	n, c, h, wd := xs[0], xs[1], xs[2], xs[3]
	kh, kw := ws[2], ws[3]
	if a.Int("groups", 1) != c || ws[0] != c || ws[1] != 1 || kh > 7 || kw > 7 {
		return false
	}
	if ap := a.Str("auto_pad", ""); ap != "" && ap != "NOTSET" {
		return false
	}
	for _, v := range a.Ints("dilations", nil) {
		if v != 1 {
			return false
		}
	}
	sh, sw := 1, 1
	switch st := a.Ints("strides", nil); len(st) {
	case 0:
	case 1:
		sh, sw = st[0], st[0]
	case 2:
		sh, sw = st[0], st[1]
	default:
		return false
	}
	if sh < 1 || sh > 2 || sw < 1 || sw > 2 {
		return false
	}
	var pt, pl, pb, pr int
	switch p := a.Ints("pads", nil); len(p) {
	case 0:
	case 2:
		pt, pl, pb, pr = p[0], p[1], p[0], p[1]
	case 4:
		pt, pl, pb, pr = p[0], p[1], p[2], p[3]
	default:
		return false
	}
	pl0 := dwPlan{h: h, wd: wd, kh: kh, kw: kw, sh: sh, sw: sw, pt: pt, pl: pl, hp: h + pt + pb, wp: wd + pl + pr}
	if pl0.hp < kh || pl0.wp < kw {
		return false
	}
	pl0.oh, pl0.ow = (pl0.hp-kh)/sh+1, (pl0.wp-kw)/sw+1
	pl0.we = (pl0.wp + 1) / 2
	ys := out[0].Shape()
	if pl0.oh < 1 || pl0.ow < 1 || ys[2] != pl0.oh || ys[3] != pl0.ow {
		return false
	}
	xv, wv, yv := x.F32(), w.F32(), out[0].F32()
	var bv []float32
	if len(in) == 3 {
		bv = in[2].F32()
	}
	pln := &pl0
	// the level's row kernel with the epilogue fused into its stores, for
	// each row's last call; otherwise the epilogue is a pass per plane
	last, fused := dwConvRow, (*Epilogue)(nil)
	if ep != nil {
		if f := dwRowEp(ep); f != nil {
			last, fused = f, ep
		}
	}
	pln.two = dwRow2(fused)
	parallel.For(n*c, 4, func(lo, hi int) {
		pp, pad, wEven, wOdd := pln.buffers()
		defer scratch.Put(pp)
		for p := lo; p < hi; p++ {
			ch := p % c
			pln.fill(pad, xv[p*h*wd:(p+1)*h*wd])
			var bias float32
			if bv != nil {
				bias = bv[ch]
			}
			dst := yv[p*pln.oh*pln.ow : (p+1)*pln.oh*pln.ow]
			pln.conv(dwConvRow, last, dst, pad, wv[ch*kh*kw:(ch+1)*kh*kw], wEven, wOdd, bias, fused)
			if ep != nil && fused == nil {
				epilogueFlat(ep, dst)
			}
		}
	})
	return true
}

// dwRowFunc is a depthwise row kernel: dst[i] = init + Σ_{a<kh, b<kw}
// w[a*kw+b]·src[a*ld+i+b] for i < n, init = dst[i] when acc != 0, else bias.
type dwRowFunc = func(dst, src *float32, ld, n int, w *float32, kh, kw int, bias float32, acc uint32)

// dwRow2Func is a two-row depthwise kernel: two rows of dwRowFunc (acc 0,
// the same epilogue as the row kernel it goes with) over nf+nb+ns input
// rows from src, the first at dst over rows 0..nf+nb-1 with the filter
// rows at w, the second at dst+ldd over rows nf..nf+nb+ns-1 with those at
// w + (nf-sh)·kw, nb ≥ 1; bitwise two calls of that kernel.
type dwRow2Func = func(dst *float32, ldd int, src *float32, ld, n int, w *float32, nf, nb, ns, kw, sh int, bias float32)

// dwPlan is the geometry of one plane of a depthwise convolution with
// strides 1 or 2: the input plane h×wd padded to hp×wp (pt rows on top, pl
// columns on the left), kh×kw taps, the output oh×ow. With column stride 2
// a padded row is stored as its even columns (we of them) then its odd
// columns; tap b reads half b%2 at offset b/2.
type dwPlan struct {
	h, wd, kh, kw, sh, sw, pt, pl, hp, wp, oh, ow, we int
	// two, when set, computes two output rows of unit column stride at
	// once (each input row they share loaded once for both).
	two dwRow2Func
}

// buffers returns a zeroed padded plane (pooled: give it back with
// scratch.Put(pp)) and, for column stride 2, the even and odd taps' weight
// buffers.
func (pl *dwPlan) buffers() (pp *[]float32, pad, wEven, wOdd []float32) {
	pp = scratch.Get[float32](pl.hp*pl.wp, true)
	if pl.sw == 2 {
		wEven, wOdd = make([]float32, pl.kh*((pl.kw+1)/2)), make([]float32, pl.kh*(pl.kw/2))
	}
	return pp, *pp, wEven, wOdd
}

// fill copies the plane src (h×wd) into pad's interior (its border, never
// written, stays zero).
func (pl *dwPlan) fill(pad, src []float32) {
	h, wd, wp, pt, l := pl.h, pl.wd, pl.wp, pl.pt, pl.pl
	if pl.sw == 1 {
		for i := range h {
			copy(pad[(i+pt)*wp+l:(i+pt)*wp+l+wd], src[i*wd:(i+1)*wd])
		}
		return
	}
	// column q = j+pl of a padded row goes to q/2 of its even half when q
	// is even, to we+q/2 when odd: two stride-2 gathers over all rows (j0
	// is the first column of each)
	for _, j0 := range [2]int{l % 2, 1 - l%2} {
		if cnt := (wd - j0 + 1) / 2; cnt > 0 {
			q := j0 + l
			stride2Rows(pad[pt*wp+q/2+q%2*pl.we:], wp, src[j0:], wd, cnt, h)
		}
	}
}

// conv computes the output plane dst (oh×ow) from the filled pad, the
// channel's taps wk (kh×kw) and bias, one row kernel call per output row
// (two with column stride 2, the taps split into wEven and wOdd). Each
// row's last call is last's; when ep is not nil, last applies it (fused
// into its stores) and conv applies it to the rows last does not write.
func (pl *dwPlan) conv(dwConvRow, last dwRowFunc, dst, pad, wk, wEven, wOdd []float32, bias float32, ep *Epilogue) {
	kh, kw, wp, oh, ow, sh := pl.kh, pl.kw, pl.wp, pl.oh, pl.ow, pl.sh
	if pl.sw == 1 {
		// taps is output row r's kernel rows over the input [a0, a1):
		// planes of a few rows (a 5×5 kernel on 2 or 3 rows) are mostly
		// padding
		taps := func(r int) (a0, a1 int) { return max(0, pl.pt-r*sh), min(kh, pl.h+pl.pt-r*sh) }
		for r := 0; r < oh; r++ {
			a0, a1 := taps(r)
			if pl.two != nil && r+1 < oh && a0 < a1 {
				// rows r and r+1 read padded rows [i0, i1) and [j0, j1):
				// one call when r's start and end come first and they
				// share rows
				b0, b1 := taps(r + 1)
				i0, i1, j0, j1 := r*sh+a0, r*sh+a1, (r+1)*sh+b0, (r+1)*sh+b1
				if b0 < b1 && i0 <= j0 && i1 <= j1 && j0 < i1 {
					pl.two(&dst[r*ow], ow, &pad[i0*wp], wp, ow, &wk[a0*kw], j0-i0, i1-j0, j1-i1, kw, sh, bias)
					r++
					continue
				}
			}
			d := dst[r*ow : (r+1)*ow]
			if a1 <= a0 {
				for i := range d {
					d[i] = bias
				}
				if ep != nil {
					epilogueFlat(ep, d)
				}
				continue
			}
			last(&d[0], &pad[(r*sh+a0)*wp], wp, ow, &wk[a0*kw], a1-a0, kw, bias, 0)
		}
		return
	}
	ke, ko := (kw+1)/2, kw/2
	for a := range kh {
		for b := range kw {
			if b%2 == 0 {
				wEven[a*ke+b/2] = wk[a*kw+b]
			} else {
				wOdd[a*ko+b/2] = wk[a*kw+b]
			}
		}
	}
	for r := range oh {
		d, s := &dst[r*ow], pad[r*sh*wp:]
		if ko == 0 {
			last(d, &s[0], wp, ow, unsafe.SliceData(wEven), kh, ke, bias, 0)
			continue
		}
		dwConvRow(d, &s[0], wp, ow, unsafe.SliceData(wEven), kh, ke, bias, 0)
		last(d, &s[pl.we], wp, ow, unsafe.SliceData(wOdd), kh, ko, 0, 1)
	}
}

// depthwiseTransposeKernel is depthwiseKernel's conv_transpose2d twin.
func depthwiseTransposeKernel() op.Kernel {
	if depthwiseKernel() == nil {
		return nil
	}
	return depthwiseConvT2D
}

// depthwiseConvT2D is an op.Kernel for conv_transpose2d in the depthwise,
// stride-1 case (conv2d's input gradient): x (N, C, H, W), w (C, 1, KH, KW),
// groups = C, unit strides and dilations, no output padding, pads ≤ K-1. It
// is the depthwise conv2d of x with the flipped kernel and pads K-1-p.
func depthwiseConvT2D(out, in []*op.T, a op.Attrs) bool {
	x, w := in[0], in[1]
	if x.DType() != tensor.Float32 || len(in) > 3 {
		return false
	}
	c, ws := x.Shape()[1], w.Shape()
	kh, kw := ws[2], ws[3]
	if a.Int("groups", 1) != c || ws[0] != c || ws[1] != 1 || kh > 7 || kw > 7 {
		return false
	}
	if ap := a.Str("auto_pad", ""); ap != "" && ap != "NOTSET" {
		return false
	}
	for _, key := range []string{"strides", "dilations", "output_padding"} {
		want := 1
		if key == "output_padding" {
			want = 0
		}
		for _, v := range a.Ints(key, nil) {
			if v != want {
				return false
			}
		}
	}
	p := []int{0, 0, 0, 0}
	switch pp := a.Ints("pads", nil); len(pp) {
	case 0:
	case 2:
		p = []int{pp[0], pp[1], pp[0], pp[1]}
	case 4:
		copy(p, pp)
	default:
		return false
	}
	np := []int{kh - 1 - p[0], kw - 1 - p[1], kh - 1 - p[2], kw - 1 - p[3]}
	for _, v := range np {
		if v < 0 {
			return false
		}
	}
	wv := w.F32()
	flipped := tensor.New(tensor.Float32, c, 1, kh, kw)
	fv := flipped.F32()
	for ch := range c {
		for i := range kh {
			for j := range kw {
				fv[(ch*kh+i)*kw+j] = wv[(ch*kh+kh-1-i)*kw+kw-1-j]
			}
		}
	}
	fin := []*op.T{x, flipped}
	if len(in) == 3 {
		fin = append(fin, in[2])
	}
	return depthwiseConv2D(out, fin, op.Attrs{"groups": c, "pads": np})
}
