//go:build amd64 && !purego

package cpu

import (
	"unsafe"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// dwConvRowAVX512 computes one output row of a depthwise convolution with
// unit column stride over a zero-padded plane: dst[i] = init + Σ_{a<kh, b<kw}
// w[a*kw+b]·src[a*ld+i+b] for i < n, init = dst[i] when acc != 0, else bias
// (16 outputs per vector, 4 vectors at once).
//
//go:noescape
func dwConvRowAVX512(dst, src *float32, ld, n int, w *float32, kh, kw int, bias float32, acc uint32)

// dwConvRowAVX2 is dwConvRowAVX512 for the avx2 level (avx2_amd64.s):
// 8 outputs per vector, 8 vectors at once.
//
//go:noescape
func dwConvRowAVX2(dst, src *float32, ld, n int, w *float32, kh, kw int, bias float32, acc uint32)

// dwRow returns the active level's depthwise row kernel, nil at generic.
func dwRow() func(dst, src *float32, ld, n int, w *float32, kh, kw int, bias float32, acc uint32) {
	switch curISA() {
	case isaAVX512:
		return dwConvRowAVX512
	case isaAVX2:
		return dwConvRowAVX2
	}
	return nil
}

// depthwiseKernel returns the conv2d kernel for float32 depthwise
// convolutions (strides 1 or 2) at the avx2 and avx512 levels, nil at
// generic.
func depthwiseKernel() op.Kernel {
	if dwRow() == nil {
		return nil
	}
	return depthwiseConv2D
}

// depthwiseConv2D is an op.Kernel for conv2d: x (N, C, H, W) with w (C, 1,
// KH, KW) and optional b (C), groups = C, strides 1 or 2, unit dilations,
// explicit pads. Each (image, channel) plane is copied into a zero-padded
// buffer, then every output row is one dwConvRowAVX512 call; with column
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
	hp, wp := h+pt+pb, wd+pl+pr
	oh, ow := (hp-kh)/sh+1, (wp-kw)/sw+1
	ys := out[0].Shape()
	if oh < 1 || ow < 1 || ys[2] != oh || ys[3] != ow {
		return false
	}
	xv, wv, yv := x.F32(), w.F32(), out[0].F32()
	var bv []float32
	if len(in) == 3 {
		bv = in[2].F32()
	}
	if hp < kh || wp < kw {
		return false
	}
	// column stride 2: a padded row is stored as its even columns (we of
	// them) then its odd columns; tap b reads half b%2 at offset b/2
	we := (wp + 1) / 2
	parallel.For(n*c, 4, func(lo, hi int) {
		pad := make([]float32, hp*wp)
		var wEven, wOdd []float32
		if sw == 2 {
			wEven, wOdd = make([]float32, kh*((kw+1)/2)), make([]float32, kh*(kw/2))
		}
		for p := lo; p < hi; p++ {
			ch := p % c
			src := xv[p*h*wd : (p+1)*h*wd]
			if sw == 1 {
				for i := range h {
					copy(pad[(i+pt)*wp+pl:(i+pt)*wp+pl+wd], src[i*wd:(i+1)*wd])
				}
			} else {
				// column q = j+pl of a padded row goes to q/2 of its even
				// half when q is even, to we+q/2 when odd: two stride-2
				// gathers over all rows (j0 is the first column of each)
				for _, j0 := range [2]int{pl % 2, 1 - pl%2} {
					if cnt := (wd - j0 + 1) / 2; cnt > 0 {
						q := j0 + pl
						stride2Rows(pad[pt*wp+q/2+q%2*we:], wp, src[j0:], wd, cnt, h)
					}
				}
			}
			var bias float32
			if bv != nil {
				bias = bv[ch]
			}
			wk := wv[ch*kh*kw : (ch+1)*kh*kw]
			dst := yv[p*oh*ow : (p+1)*oh*ow]
			if sw == 1 {
				for r := range oh {
					// only the kernel rows over the input: planes of a few
					// rows (a 5×5 kernel on 2 or 3 rows) are mostly padding
					a0, a1 := max(0, pt-r*sh), min(kh, h+pt-r*sh)
					d := dst[r*ow : (r+1)*ow]
					if a1 <= a0 {
						for i := range d {
							d[i] = bias
						}
						continue
					}
					dwConvRow(&d[0], &pad[(r*sh+a0)*wp], wp, ow, &wk[a0*kw], a1-a0, kw, bias, 0)
				}
				if ep != nil {
					epilogueFlat(ep, dst)
				}
				continue
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
				dwConvRow(d, &s[0], wp, ow, unsafe.SliceData(wEven), kh, ke, bias, 0)
				if ko > 0 {
					dwConvRow(d, &s[we], wp, ow, unsafe.SliceData(wOdd), kh, ko, 0, 1)
				}
			}
			if ep != nil {
				epilogueFlat(ep, dst)
			}
		}
	})
	return true
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

// dwFilterGrad3x3AVX512 and dwFilterGrad5x5AVX512 add, for one (image,
// channel) plane, Σ_{r<oh, j<ow} dy[r*ow+j]·x[(r+a)*ld+j+b] into lane j%16
// of acc[(a*kw+b)*16:]: the depthwise filter gradient over a padded x.
//
//go:noescape
func dwFilterGrad3x3AVX512(dy, x *float32, ld, oh, ow int, acc *float32)

//go:noescape
func dwFilterGrad5x5AVX512(dy, x *float32, ld, oh, ow int, acc *float32)

// dwFilterGrad3x3AVX2, dwFilterGrad5x2AVX2 and dwFilterGrad5x1AVX2 are
// the avx2 level's (avx2_amd64.s): 8 lanes, all 3 filter rows of a 3×3 or
// 2 or 1 of a 5×5's (x and acc at the first of them) per call.
//
//go:noescape
func dwFilterGrad3x3AVX2(dy, x *float32, ld, oh, ow int, acc *float32)

//go:noescape
func dwFilterGrad5x2AVX2(dy, x *float32, ld, oh, ow int, acc *float32)

//go:noescape
func dwFilterGrad5x1AVX2(dy, x *float32, ld, oh, ow int, acc *float32)

// dwFilterGrad5x5AVX2 is dwFilterGrad5x5AVX512 for the avx2 level in 8
// lanes: filter rows 0–1, 2–3 and 4 in three passes over the plane.
func dwFilterGrad5x5AVX2(dy, x *float32, ld, oh, ow int, acc *float32) {
	row := func(a int) *float32 { return (*float32)(unsafe.Add(unsafe.Pointer(x), 4*a*ld)) }
	dwFilterGrad5x2AVX2(dy, x, ld, oh, ow, acc)
	dwFilterGrad5x2AVX2(dy, row(2), ld, oh, ow, (*float32)(unsafe.Add(unsafe.Pointer(acc), 4*10*8)))
	dwFilterGrad5x1AVX2(dy, row(4), ld, oh, ow, (*float32)(unsafe.Add(unsafe.Pointer(acc), 4*20*8)))
}

// dwFilterGradFuncs are the active level's filter-gradient plane kernels
// (3×3, 5×5) and their lanes, or lanes 0 below avx2.
func dwFilterGradFuncs() (k3, k5 func(dy, x *float32, ld, oh, ow int, acc *float32), lanes int) {
	switch curISA() {
	case isaAVX512:
		return dwFilterGrad3x3AVX512, dwFilterGrad5x5AVX512, 16
	case isaAVX2:
		return dwFilterGrad3x3AVX2, dwFilterGrad5x5AVX2, 8
	}
	return nil, nil, 0
}

// depthwiseFilterGradKernel is the conv2d_filter_grad kernel for float32
// depthwise 3×3 and 5×5 convolutions with stride 1, or nil below avx2.
func depthwiseFilterGradKernel() op.Kernel {
	if _, _, lanes := dwFilterGradFuncs(); lanes == 0 {
		return nil
	}
	return depthwiseFilterGrad
}

// depthwiseFilterGrad is an op.Kernel for conv2d_filter_grad: x (N, C, H, W),
// dy (N, C, OH, OW) → dw (C, 1, K, K) for groups = C, K = 3 or 5, unit
// strides and dilations, explicit pads, dy exactly the conv's output size.
// Per channel (in parallel), each image's padded plane is one assembly call
// accumulating K² vectors of partial sums.
func depthwiseFilterGrad(out, in []*op.T, a op.Attrs) bool {
	x, dy := in[0], in[1]
	k3, k5, lanes := dwFilterGradFuncs()
	if x.DType() != tensor.Float32 || lanes == 0 {
		return false
	}
	xs, ds := x.Shape(), dy.Shape()
	n, c, h, wd := xs[0], xs[1], xs[2], xs[3]
	ks := a.Ints("kernel_shape", nil)
	if len(ks) != 2 || ks[0] != ks[1] || (ks[0] != 3 && ks[0] != 5) || a.Int("groups", 1) != c || ds[1] != c {
		return false
	}
	k := ks[0]
	if ap := a.Str("auto_pad", ""); ap != "" && ap != "NOTSET" {
		return false
	}
	for _, key := range []string{"strides", "dilations"} {
		for _, v := range a.Ints(key, nil) {
			if v != 1 {
				return false
			}
		}
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
	hp, wp := h+pt+pb, wd+pl+pr
	oh, ow := hp-k+1, wp-k+1
	if oh < 1 || ow < 1 || ds[2] != oh || ds[3] != ow {
		return false
	}
	fn := k3
	if k == 5 {
		fn = k5
	}
	xv, dv, wv := x.F32(), dy.F32(), out[0].F32()
	parallel.For(c, 1, func(lo, hi int) {
		pad := make([]float32, hp*wp)
		acc := make([]float32, k*k*lanes)
		for ch := lo; ch < hi; ch++ {
			clear(acc)
			for ni := range n {
				src := xv[(ni*c+ch)*h*wd : (ni*c+ch+1)*h*wd]
				for i := range h {
					copy(pad[(i+pt)*wp+pl:(i+pt)*wp+pl+wd], src[i*wd:(i+1)*wd])
				}
				fn(&dv[(ni*c+ch)*oh*ow], &pad[0], wp, oh, ow, &acc[0])
			}
			for t := range k * k {
				var s float32
				for _, v := range acc[t*lanes : (t+1)*lanes] {
					s += v
				}
				wv[ch*k*k+t] = s
			}
		}
	})
	return true
}
