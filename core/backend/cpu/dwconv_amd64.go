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

// dwConvRowEpAVX2 is dwConvRowAVX2 with an Epilogue without biases fused
// into its stores: kind is the Act (ActNone, ActRelu or ActHardSwish6,
// nothing else), or-ed with 0x100 for the affine step, whose scale and
// shift p holds (8 copies of each, in that order); bitwise epilogueAVX2.
//
//go:noescape
func dwConvRowEpAVX2(dst, src *float32, ld, n int, w *float32, kh, kw int, bias float32, acc, kind uint32, p *float32)

// dwConvRow2AVX2 computes two output rows of dwConvRowEpAVX2 (acc 0) at
// once over nf+nb+ns input rows: the first (at dst) over rows 0..nf+nb-1
// with the filter rows at w, the second (at dst + ldd) over rows
// nf..nf+nb+ns-1 with those at w + (nf-sh)·kw, nb ≥ 1: each input row is
// loaded once for both; bitwise two calls of dwConvRowEpAVX2 (kind 0:
// dwConvRowAVX2's).
//
//go:noescape
func dwConvRow2AVX2(dst *float32, ldd int, src *float32, ld, n int, w *float32, nf, nb, ns, kw, sh int, bias float32, kind uint32, p *float32)

// dwEpArgs are the fused depthwise kernels' kind and affine parameters
// for e (nil: kind 0, no epilogue), or ok false when they cannot apply it
// (e with biases, or an activation other than none, relu and hardswish6).
func dwEpArgs(e *Epilogue) (kind uint32, p *[16]float32, ok bool) {
	p = new([16]float32)
	if e == nil {
		return 0, p, true
	}
	if e.RowBias != nil || e.ColBias != nil || (e.Act != ActNone && e.Act != ActRelu && e.Act != ActHardSwish6) {
		return 0, nil, false
	}
	kind = uint32(e.Act)
	if e.Affine {
		kind |= 0x100
		for i := range 8 {
			p[i], p[8+i] = e.Scale, e.Shift
		}
	}
	return kind, p, true
}

// dwRowEp returns the active level's row kernel that applies e as it
// stores, or nil (the avx2 level only; e without biases and with the
// activation none, relu or hardswish6).
func dwRowEp(e *Epilogue) dwRowFunc {
	kind, p, ok := dwEpArgs(e)
	if curISA() != isaAVX2 || e == nil || !ok {
		return nil
	}
	return func(dst, src *float32, ld, n int, w *float32, kh, kw int, bias float32, acc uint32) {
		dwConvRowEpAVX2(dst, src, ld, n, w, kh, kw, bias, acc, kind, &p[0])
	}
}

// dwRow2 returns the active level's two-row kernel (dwRow2Func) that
// applies e as it stores (nil: no epilogue), or nil (the avx2 level only;
// e as dwRowEp takes it).
func dwRow2(e *Epilogue) dwRow2Func {
	kind, p, ok := dwEpArgs(e)
	if curISA() != isaAVX2 || !ok {
		return nil
	}
	return func(dst *float32, ldd int, src *float32, ld, n int, w *float32, nf, nb, ns, kw, sh int, bias float32) {
		dwConvRow2AVX2(dst, ldd, src, ld, n, w, nf, nb, ns, kw, sh, bias, kind, &p[0])
	}
}

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
