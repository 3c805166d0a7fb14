//go:build amd64 && !purego

package cpu

import (
	"unsafe"

	"golang.org/x/sys/cpu"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// dwConvRowAVX512 computes one output row of a stride-1 depthwise
// convolution over a zero-padded plane: dst[i] = bias + Σ_{a<kh, b<kw}
// w[a*kw+b]·src[a*ld+i+b] for i < n (16 outputs per vector, 4 vectors at once).
//
//go:noescape
func dwConvRowAVX512(dst, src *float32, ld, n int, w *float32, kh, kw int, bias float32)

// depthwiseKernel returns the conv2d kernel for float32 depthwise
// convolutions with stride 1 on AVX-512, or nil when the CPU lacks AVX-512.
func depthwiseKernel() op.Kernel {
	if !cpu.X86.HasAVX512F {
		return nil
	}
	return depthwiseConv2D
}

// depthwiseConv2D is an op.Kernel for conv2d: x (N, C, H, W) with w (C, 1,
// KH, KW) and optional b (C), groups = C, unit strides and dilations,
// explicit pads. Each (image, channel) plane is copied into a zero-padded
// buffer, then every output row is one dwConvRowAVX512 call. Other calls
// return false (the reference kernels run).
func depthwiseConv2D(out, in []*op.T, a op.Attrs) bool {
	x, w := in[0], in[1]
	if x.DType() != tensor.Float32 || len(in) > 3 {
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
	oh, ow := hp-kh+1, wp-kw+1
	ys := out[0].Shape()
	if oh < 1 || ow < 1 || ys[2] != oh || ys[3] != ow {
		return false
	}
	xv, wv, yv := x.F32(), w.F32(), out[0].F32()
	var bv []float32
	if len(in) == 3 {
		bv = in[2].F32()
	}
	parallel.For(n*c, 4, func(lo, hi int) {
		pad := make([]float32, hp*wp)
		for p := lo; p < hi; p++ {
			ch := p % c
			src := xv[p*h*wd : (p+1)*h*wd]
			for i := range h {
				copy(pad[(i+pt)*wp+pl:(i+pt)*wp+pl+wd], src[i*wd:(i+1)*wd])
			}
			var bias float32
			if bv != nil {
				bias = bv[ch]
			}
			wk := wv[ch*kh*kw : (ch+1)*kh*kw]
			dst := yv[p*oh*ow : (p+1)*oh*ow]
			for r := range oh {
				dwConvRowAVX512(&dst[r*ow], &pad[r*wp], wp, ow, unsafe.SliceData(wk), kh, kw, bias)
			}
		}
	})
	return true
}
