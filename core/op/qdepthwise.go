package op

import (
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// QDepthwise is a depthwise int8 convolution as the backend's QDepthwise8
// kernel takes it: plane p of X (H×W bytes, uint8 or, when Signed, int8
// bits) is channel p % C of image p / C, convolved with that channel's
// KH×KW weights W[ch·KH·KW:] (already less their zero point) over the
// plane less XZero, padded with zeros (x's zero point before the
// subtraction) by PT rows on top and PL columns on the left, at strides SH
// and SW, into OH×OW accumulators:
//
//	acc[r·OW + i] = Σ_{a<KH, b<KW} (x[r·SH+a-PT][i·SW+b-PL] - XZero)·W[ch][a·KW+b]
//
// with x outside the plane 0 after the subtraction.
type QDepthwise struct {
	X                      []byte
	Signed                 bool
	XZero                  int32
	W                      []int32
	C, H, Wd, KH, KW       int
	SH, SW, PT, PL, OH, OW int
}

// at returns x[i][j] - XZero of plane p, 0 outside the plane.
func (d *QDepthwise) at(p, i, j int) int32 {
	if i < 0 || i >= d.H || j < 0 || j >= d.Wd {
		return 0
	}
	v := d.X[(p*d.H+i)*d.Wd+j]
	if d.Signed {
		return int32(int8(v)) - d.XZero
	}
	return int32(v) - d.XZero
}

// planes is the portable kernel: the sums one tap at a time.
func (d *QDepthwise) planes(p0, p1 int, done func(p int, acc []int32)) {
	acc := make([]int32, d.OH*d.OW)
	for p := p0; p < p1; p++ {
		w := d.W[p%d.C*d.KH*d.KW:][:d.KH*d.KW]
		for r := range d.OH {
			for i := range d.OW {
				var s int32
				for a := range d.KH {
					for b := range d.KW {
						s += d.at(p, r*d.SH+a-d.PT, i*d.SW+b-d.PL) * w[a*d.KW+b]
					}
				}
				acc[r*d.OW+i] = s
			}
		}
		done(p, acc)
	}
}

// qdepthwise runs qconv2d when it is depthwise (one input and one output
// channel per group) with unit dilations: every (image, channel) plane's
// int32 sums directly (the backend's QDepthwise8, else QDepthwise.planes),
// then the epilogue on the plane. It reports false for other convs.
func qdepthwise(out, in []*T, q quantParams, g geom2, ep *quantEpilogue) bool {
	x, w := in[0], in[1]
	xs, ws := x.Shape(), w.Shape()
	c := xs[1]
	if ws[0] != c || ws[1] != 1 || g.DH != 1 || g.DW != 1 {
		return false
	}
	k := g.KH * g.KW
	wk := make([]int32, c*k)
	var wi8 []int8 // the weights' elements fetched once (each I8 call checks the view)
	var wu8 []uint8
	if w.DType() == tensor.Int8 {
		wi8 = w.I8()
	} else {
		wu8 = w.U8()
	}
	for ch := range c {
		z := int32(q.wZero[min(ch, len(q.wZero)-1)])
		for t := range k {
			if wi8 != nil {
				wk[ch*k+t] = int32(wi8[ch*k+t]) - z
			} else {
				wk[ch*k+t] = int32(wu8[ch*k+t]) - z
			}
		}
	}
	d := &QDepthwise{Signed: x.DType() == tensor.Int8, XZero: int32(q.xZero), W: wk,
		C: c, H: g.H, Wd: g.W, KH: g.KH, KW: g.KW, SH: g.SH, SW: g.SW, PT: g.PT, PL: g.PL, OH: g.OH, OW: g.OW}
	if d.Signed {
		d.X = int8Bytes(x.I8())
	} else {
		d.X = x.U8()
	}
	ohw := g.OH * g.OW
	done := func(p int, acc []int32) { ep.run(acc, 1, ohw, p%c, out[0], p*ohw, ohw) }
	kern := Active().QDepthwise8
	parallel.For(xs[0]*c, 1, func(lo, hi int) {
		if kern == nil || !kern(d, lo, hi, done) {
			d.planes(lo, hi, done)
		}
	})
	return true
}
