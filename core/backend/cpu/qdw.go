//go:build (amd64 || arm64) && !purego

package cpu

import (
	"unsafe"

	"paddle/core/op"
	"paddle/core/scratch"
)

// qDepthwiseKernel returns op.Kernels.QDepthwise8 at the levels with a
// float depthwise row kernel (dwRow), nil at generic.
func qDepthwiseKernel() func(d *op.QDepthwise, p0, p1 int, done func(p int, acc []int32)) bool {
	if dwRow() == nil {
		return nil
	}
	return qDepthwise
}

// qDepthwiseDirect, where set (qdwvnni_amd64.go), computes the sums on
// bytes; it returns false for what it does not take, which qDepthwise
// then runs on the float driver.
var qDepthwiseDirect func(d *op.QDepthwise, p0, p1 int, done func(p int, acc []int32)) bool

// qDepthwiseWords, where set (qdwavx2_amd64.go), computes the sums on
// int16 words at avx2; it returns false for what it does not take.
var qDepthwiseWords func(d *op.QDepthwise, p0, p1 int, done func(p int, acc []int32)) bool

// qDepthwise is op.Kernels.QDepthwise8 on the float depthwise driver:
// each plane, less x's zero point, is widened to float32 into the padded
// buffer (zeros in the border), the taps (less their zero point) too, and
// the float row kernel sums them. The arithmetic is exact: every product
// and partial sum is an integer of magnitude at most KH·KW·255·255 <
// 2^24 (KH, KW ≤ 7), which float32 holds exactly, so the fused
// multiply-adds never round and the sums equal the int32 ones in any
// order. The plane is then converted to int32 in place.
func qDepthwise(d *op.QDepthwise, p0, p1 int, done func(p int, acc []int32)) bool {
	if qDepthwiseDirect != nil && qDepthwiseDirect(d, p0, p1, done) {
		return true
	}
	if qDepthwiseWords != nil && qDepthwiseWords(d, p0, p1, done) {
		return true
	}
	row := dwRow()
	if row == nil || d.KH > 7 || d.KW > 7 || d.SH < 1 || d.SH > 2 || d.SW < 1 || d.SW > 2 {
		return false
	}
	pl := &dwPlan{h: d.H, wd: d.Wd, kh: d.KH, kw: d.KW, sh: d.SH, sw: d.SW, pt: d.PT, pl: d.PL, oh: d.OH, ow: d.OW}
	// the padded extent the outputs read (pads past it are never read)
	pl.hp, pl.wp = max((d.OH-1)*d.SH+d.KH, d.H+d.PT), max((d.OW-1)*d.SW+d.KW, d.Wd+d.PL)
	pl.we = (pl.wp + 1) / 2
	if d.PT < 0 || d.PL < 0 || d.OH < 1 || d.OW < 1 {
		return false
	}
	pp, pad, wEven, wOdd := pl.buffers()
	defer scratch.Put(pp)
	var src []float32
	if d.SW == 2 {
		src = make([]float32, d.H*d.Wd)
	}
	k := d.KH * d.KW
	wk := make([]float32, k)
	acc := make([]float32, d.OH*d.OW)
	for p := p0; p < p1; p++ {
		x := d.X[p*d.H*d.Wd : (p+1)*d.H*d.Wd]
		if d.SW == 1 {
			for i := range d.H {
				bytesToF32(pad[(i+d.PT)*pl.wp+d.PL:][:d.Wd], x[i*d.Wd:(i+1)*d.Wd], d.XZero, d.Signed)
			}
		} else {
			bytesToF32(src, x, d.XZero, d.Signed)
			pl.fill(pad, src)
		}
		for t, v := range d.W[p%d.C*k:][:k] {
			wk[t] = float32(v)
		}
		pl.conv(row, row, acc, pad, wk, wEven, wOdd, 0, nil)
		done(p, f32ToI32(acc))
	}
	return true
}

// bytesToF32 sets dst[i] = float32(src[i] - zero), src uint8 or, when
// signed, int8 bits.
func bytesToF32(dst []float32, src []byte, zero int32, signed bool) {
	n := min(len(dst), len(src))
	i := bytesToF32Vec(dst[:n], src[:n], zero, signed)
	for ; i < n; i++ {
		if signed {
			dst[i] = float32(int32(int8(src[i])) - zero)
		} else {
			dst[i] = float32(int32(src[i]) - zero)
		}
	}
}

// f32ToI32 converts integer-valued float32s to int32 in place and returns
// them as int32s (same memory).
func f32ToI32(f []float32) []int32 {
	i := f32ToI32Vec(f)
	v := unsafe.Slice((*int32)(unsafe.Pointer(unsafe.SliceData(f))), len(f))
	for ; i < len(f); i++ {
		v[i] = int32(f[i])
	}
	return v
}
