//go:build amd64 && !purego

package cpu

import (
	"unsafe"

	"golang.org/x/sys/cpu"

	"paddle/core/op"
	"paddle/core/scratch"
)

//go:noescape
func qdwRow2VNNI(dst *int32, ldd int, src *byte, ld, rowB, n, cs int, wq *int32, kh, nq int, idx *byte, init int32, m1, m2 uint16, pairs, srcPair int)

func init() {
	if cpu.X86.HasAVX512VNNI && cpu.X86.HasAVX512VBMI && cpu.X86.HasAVX512BW {
		qDepthwiseDirect = qDepthwiseVNNI
	}
}

// qDepthwiseVNNI is op.Kernels.QDepthwise8 at the avx512 level on bytes
// (qdwRow2VNNI): each plane is copied into a byte buffer padded with x's
// zero point (int8 x shifted to uint8 by +128, its zero point too), so
// Σ (x - xz)·w over the taps inside the plane is Σ x·w over all taps
// less xz·Σ w, the accumulators' start. It declines (false) below
// avx512, for weights outside int8 (a weight zero point moved them),
// kernels wider than 8 or taller than 7, strides above 2.
func qDepthwiseVNNI(d *op.QDepthwise, p0, p1 int, done func(p int, acc []int32)) bool {
	if curISA() != isaAVX512 || d.KH < 1 || d.KH > 7 || d.KW < 1 || d.KW > 8 || d.SH < 1 || d.SH > 2 || d.SW < 1 || d.SW > 2 ||
		d.PT < 0 || d.PL < 0 || d.OH < 1 || d.OW < 1 {
		return false
	}
	zero := d.XZero
	if d.Signed {
		zero += 128
	}
	k := d.KH * d.KW
	if zero < 0 || zero > 255 || len(d.W) < d.C*k {
		return false
	}
	for _, v := range d.W[:d.C*k] {
		if v < -128 || v > 127 {
			return false
		}
	}
	nq := (d.KW + 3) / 4
	// the padded plane: the rows both outputs of the last row pair read
	// (an odd last row's partner is computed into acc's slack), at least
	// the input's, then the step's reads past the last row's start
	ohp := (d.OH + 1) &^ 1
	hp := max((ohp-1)*d.SH+d.KH, d.H+d.PT)
	wp := max((d.OW-1)*d.SW+d.KW, d.Wd+d.PL)
	steps := (d.OW + 31) / 32
	pp := scratch.Get[byte](hp*wp+32*d.SW*steps+4*nq+64, false)
	defer scratch.Put(pp)
	pad := *pp
	fillBytes(pad, byte(zero)) // the zero point everywhere
	var idx [64]byte
	for j := range 16 {
		for t := range 4 {
			idx[4*j+t] = byte(j*d.SW + t)
		}
	}
	tail := d.OW - 32*(steps-1)
	m1, m2 := uint16(1<<min(tail, 16)-1), uint16(1<<max(tail-16, 0)-1)
	// each channel's weights as dwords of four taps (zero past the
	// kernel's width) and their sum, once per call
	wq, init := make([]int32, d.C*d.KH*nq), make([]int32, d.C)
	for c := range d.C {
		var sum int32
		for a := range d.KH {
			for b := range d.KW {
				v := d.W[(c*d.KH+a)*d.KW+b]
				sum += v
				wq[(c*d.KH+a)*nq+b/4] |= int32(uint32(uint8(int8(v))) << (8 * (b % 4)))
			}
		}
		init[c] = -zero * sum
	}
	ap := scratch.Get[int32](ohp*d.OW, true)
	defer scratch.Put(ap)
	acc := *ap
	for p := p0; p < p1; p++ {
		x := d.X[p*d.H*d.Wd : (p+1)*d.H*d.Wd]
		for i := range d.H {
			row := pad[(i+d.PT)*wp+d.PL:][:d.Wd]
			if d.Signed {
				xorBytes(row, x[i*d.Wd:(i+1)*d.Wd])
			} else {
				copy(row, x[i*d.Wd:(i+1)*d.Wd])
			}
		}
		c := p % d.C
		qdwRow2VNNI(&acc[0], 4*d.OW, &pad[0], wp, d.SH*wp, d.OW, 16*d.SW,
			&wq[c*d.KH*nq], d.KH, nq, &idx[0], init[c], m1, m2, ohp/2, 2*d.SH*wp)
		done(p, acc[:d.OH*d.OW])
	}
	return true
}

// xorBytes sets dst[i] = src[i] ^ 0x80: int8 bits as uint8 + 128.
func xorBytes(dst, src []byte) {
	n := min(len(dst), len(src))
	i := 0
	for ; i+8 <= n; i += 8 {
		v := *(*uint64)(unsafe.Pointer(&src[i])) ^ 0x8080808080808080
		*(*uint64)(unsafe.Pointer(&dst[i])) = v
	}
	for ; i < n; i++ {
		dst[i] = src[i] ^ 0x80
	}
}
