//go:build amd64 && !purego

package cpu

import (
	"golang.org/x/sys/cpu"

	"paddle/core/op"
	"paddle/core/scratch"
)

//go:noescape
func qdwPairsAVX2(dst *int32, top, bot *byte, n int, zero int32, signed uint32)

//go:noescape
func qdwPairRowAVX2(dst *int32, n int, src *int32, offs *int, ws *int32, ne int)

//go:noescape
func qdwPairsEOAVX2(even, odd *int32, top, bot *byte, n int, zero int32, signed uint32)

func init() {
	if cpu.X86.HasAVX2 {
		qDepthwiseWords = qDepthwisePairs
	}
}

// qDepthwisePairs is op.Kernels.QDepthwise8 at the avx2 level on int16
// words (qdwPairRowAVX2). Each plane is copied into a byte plane padded
// with x's zero point and widened, less the zero point, to a plane of
// row pairs: word j of pair row i holds padded rows i and i+1 at column
// j (qdwPairsAVX2; at a horizontal stride of 2 the row's even columns,
// then its odd ones, qdwPairsEOAVX2, so a tap's 8 outputs are again 8
// consecutive words). One vpmaddwd then multiplies two taps of a column,
// (w[2p][b], w[2p+1][b]), for 8 outputs and sums them in int32 (an odd
// kernel height's last pair has a zero second weight). Exact: |x - xz|
// ≤ 255 and |w| ≤ 255 fit int16, every sum fits int32. It declines
// (false) other levels, weights outside int16, a zero point outside x's
// type, kernels above 7×7, strides above 2.
func qDepthwisePairs(d *op.QDepthwise, p0, p1 int, done func(p int, acc []int32)) bool {
	if curISA() != isaAVX2 || d.KH < 1 || d.KH > 7 || d.KW < 1 || d.KW > 7 || d.SH < 1 || d.SH > 2 || d.SW < 1 || d.SW > 2 ||
		d.PT < 0 || d.PL < 0 || d.OH < 1 || d.OW < 1 {
		return false
	}
	k := d.KH * d.KW
	lo, hi := int32(0), int32(255) // x's zero point must be one of x's values (the padding)
	if d.Signed {
		lo, hi = -128, 127
	}
	if len(d.W) < d.C*k || d.XZero < lo || d.XZero > hi {
		return false
	}
	for _, v := range d.W[:d.C*k] {
		if v < -32768 || v > 32767 {
			return false
		}
	}
	np := (d.KH + 1) / 2
	ow8 := (d.OW + 7) &^ 7
	// pair rows the outputs read, and the words a row holds (a multiple
	// of 16): what the last 8-output step reads past the last output, at
	// least the input row's extent; at stride 2 as its even, then its odd
	// columns, wh words each
	hq := (d.OH-1)*d.SH + 2*(np-1) + 1
	wq := (max(ow8+d.KW-1, d.PL+d.Wd) + 15) &^ 15
	wh := (ow8 + (d.KW-1)/2 + 15) &^ 15
	if d.SW == 2 {
		wq = 2 * wh
	}
	qp := scratch.Get[int32](hq*wq, true)
	defer scratch.Put(qp)
	q := *qp
	// the plane padded with x's zero point (which, less it, is 0), as
	// many bytes a row as a pair row has words
	pbp := scratch.Get[byte]((hq+1)*wq, false)
	defer scratch.Put(pbp)
	pb := *pbp
	fillBytes(pb, byte(d.XZero))
	var signed uint32
	if d.Signed {
		signed = 1
	}
	// each channel's tap pairs: their weight words and byte offsets
	ne := np * d.KW
	offs, ws := make([]int, ne), make([]int32, d.C*ne)
	for p := range np {
		for b := range d.KW {
			offs[p*d.KW+b] = 4 * (2*p*wq + b)
			if d.SW == 2 {
				offs[p*d.KW+b] = 4 * (2*p*wq + b%2*wh + b/2)
			}
		}
	}
	for c := range d.C {
		w := d.W[c*k:][:k]
		for p := range np {
			for b := range d.KW {
				lo := uint32(uint16(int16(w[2*p*d.KW+b])))
				var hi uint32
				if 2*p+1 < d.KH {
					hi = uint32(uint16(int16(w[(2*p+1)*d.KW+b])))
				}
				ws[c*ne+p*d.KW+b] = int32(lo | hi<<16)
			}
		}
	}
	ap := scratch.Get[int32](d.OH*d.OW+8, true)
	defer scratch.Put(ap)
	acc := *ap
	for p := p0; p < p1; p++ {
		x := d.X[p*d.H*d.Wd : (p+1)*d.H*d.Wd]
		for i := range d.H {
			if r := i + d.PT; r <= hq && d.PL < wq {
				copy(pb[r*wq+d.PL:(r+1)*wq], x[i*d.Wd:(i+1)*d.Wd])
			}
		}
		// the outputs read pair rows r·SH + 2p: at a vertical stride of 2
		// only the even ones
		for i := 0; i < hq; i += d.SH {
			if d.SW == 2 {
				qdwPairsEOAVX2(&q[i*wq], &q[i*wq+wh], &pb[i*wq], &pb[(i+1)*wq], wq, d.XZero, signed)
			} else {
				qdwPairsAVX2(&q[i*wq], &pb[i*wq], &pb[(i+1)*wq], wq, d.XZero, signed)
			}
		}
		c := p % d.C
		for r := range d.OH {
			qdwPairRowAVX2(&acc[r*d.OW], d.OW, &q[r*d.SH*wq], &offs[0], &ws[c*ne], ne)
		}
		done(p, acc[:d.OH*d.OW])
	}
	return true
}
