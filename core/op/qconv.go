package op

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"paddle/core/parallel"
	"paddle/core/scratch"
	"paddle/core/tensor"
)

// qconv2d is the quantized convolution with its epilogue fused: x (N, C,
// H, W) uint8/int8, w (OC, C/groups, KH, KW) int8/uint8 with per-output-
// channel scales, an optional bias (OC), conv2d's attributes and the
// quantization attributes (quant.go). Each (image, group, tile of output
// rows) unrolls its window into a byte matrix (padding holds x's zero
// point, the quantized 0) and multiplies it by the weights through
// matmul_integer (the backend's int8 GEMM). ONNX QLinearConv, ConvInteger
// and folded QDQ Conv import as it.
var qconv2dDef = define(&Def{
	Name: "qconv2d", Arity: -1, Overwrites: true,
	Infer: func(in []Meta, a Attrs) ([]Meta, error) {
		if len(in) < 2 || len(in) > 3 {
			return nil, fmt.Errorf("want 2 or 3 inputs (x, w, bias), got %d", len(in))
		}
		x, w := in[0], in[1]
		if len(x.Shape) != 4 || len(w.Shape) != 4 {
			return nil, fmt.Errorf("x %v and w %v: want (N, C, H, W) and (OC, C/groups, KH, KW)", x.Shape, w.Shape)
		}
		groups := a.Int("groups", 1)
		if groups < 1 || x.Shape[1] != w.Shape[1]*groups || w.Shape[0]%groups != 0 {
			return nil, fmt.Errorf("x %v, w %v and groups %d do not match", x.Shape, w.Shape, groups)
		}
		if _, err := checkQuantInputs(in, w.Shape[0]); err != nil {
			return nil, err
		}
		q, err := parseQuant(a, w.Shape[0])
		if err != nil {
			return nil, err
		}
		g, err := makeGeom(x.Shape[2], x.Shape[3], w.Shape[2], w.Shape[3], a, false)
		if err != nil {
			return nil, err
		}
		return []Meta{{q.out, tensor.Shape{x.Shape[0], w.Shape[0], g.OH, g.OW}}}, nil
	},
	Ref: qconv2dRef,
})

// QConv2D runs qconv2d on x, w and bias (may be nil) with the conv
// parameters p and the quantization attributes qa (QuantAttrs, plus "act").
func QConv2D(x, w, bias *T, p ConvParams, qa Attrs) *T {
	a := p.Attrs()
	for k, v := range qa {
		a[k] = v
	}
	in := []*T{x, w}
	if bias != nil {
		in = append(in, bias)
	}
	return call1(qconv2dDef, a, in...)
}

// byteView is elements [off, off+n) of a uint8 or int8 tensor as a tensor of shape s.
func byteView(t *T, off int, s ...int) *T {
	n := tensor.Shape(s).NumElements()
	if t.DType() == tensor.Int8 {
		return tensor.FromSlice(t.I8()[off:off+n], s...)
	}
	return tensor.FromSlice(t.U8()[off:off+n], s...)
}

func qconv2dRef(out, in []*T, a Attrs) {
	x, w := in[0], in[1]
	xs, ws := x.Shape(), w.Shape()
	n, c, oc := xs[0], xs[1], ws[0]
	groups := a.Int("groups", 1)
	q, err := parseQuant(a, oc)
	if err == nil {
		_, err = makeGeom(xs[2], xs[3], ws[2], ws[3], a, false)
	}
	if err != nil {
		panic(&ShapeError{Op: "qconv2d", Err: err})
	}
	g, _ := makeGeom(xs[2], xs[3], ws[2], ws[3], a, false)
	var bias *T
	if len(in) > 2 {
		bias = in[2]
	}
	ep := newQuantEpilogue(q, oc, bias, true)
	cg, ocg := c/groups, oc/groups
	k, hw, ohw := cg*g.KH*g.KW, g.H*g.W, g.OH*g.OW
	pw := g.isPointwise()
	rows := g.OH
	if !pw {
		rows = g.tileRows(k)
	}
	nt := (g.OH + rows - 1) / rows
	if groups == c && qdepthwise(out, in, q, g, ep) {
		return
	}
	xz := zeroTensor([]int{q.xZero})
	folded := q.xZero == 0
	if ib, ok := foldXZero(ep.ibias, w, q, oc); ok {
		// Σ (x - xz)·w = Σ x·w - xz·Σ w: x's zero point goes into the
		// int32 bias once, and the GEMM runs without corrections.
		ep.ibias, xz, folded = ib, zeroTensor([]int{0}), true
	}
	var direct func(gi int, b []byte, ldb, n int, acc []int32)
	if folded {
		direct = qdirect(x, w, groups, q)
	}
	if pw && direct != nil {
		qpointwise(out[0], x, groups, ep, direct)
		return
	}
	if direct != nil && groups == 1 && qshifted(out[0], x, w, g, q, ep) {
		return
	}
	parallel.For(n*groups*nt, 1, func(lo, hi int) {
		colN := 0 // pointwise: x is read in place
		if !pw {
			colN = k * rows * g.OW
		}
		// fully overwritten before they are read: contents left as they are
		colBuf, accBuf := scratch.Get[byte](colN, false), scratch.Get[int32](ocg*rows*g.OW, false)
		defer func() { scratch.Put(colBuf); scratch.Put(accBuf) }()
		for t := lo; t < hi; t++ {
			ni, gi, ti := t/nt/groups, t/nt%groups, t%nt
			oh0, oh1 := ti*rows, min((ti+1)*rows, g.OH)
			cols := (oh1 - oh0) * g.OW
			var col *T
			if pw {
				col = byteView(x, (ni*c+gi*cg)*hw, cg, hw)
			} else {
				col = tensor.FromSlice((*colBuf)[:k*cols], k, cols)
				if x.DType() == tensor.Int8 {
					col = tensor.FromSlice(bytesInt8((*colBuf)[:k*cols]), k, cols)
				}
				im2colBytes(x, (ni*c+gi*cg)*hw, cg, g, oh0, oh1, byte(q.xZero), col)
			}
			wz := q.wZero
			if len(wz) > 1 {
				wz = wz[gi*ocg : (gi+1)*ocg]
			}
			if direct != nil {
				direct(gi, rawBytesOf(col), cols, cols, (*accBuf)[:ocg*cols])
				ep.run((*accBuf)[:ocg*cols], ocg, cols, gi*ocg, out[0], (ni*oc+gi*ocg)*ohw+oh0*g.OW, ohw)
				continue
			}
			acc := tensor.FromSlice((*accBuf)[:ocg*cols], ocg, cols) // fully written by the GEMM
			Run(matmulIntegerDef, []*T{acc}, []*T{byteView(w, gi*ocg*k, ocg, k), col, zeroTensor(wz), xz}, nil)
			ep.run(acc.I32(), ocg, cols, gi*ocg, out[0], (ni*oc+gi*ocg)*ohw+oh0*g.OW, ohw)
		}
	})
}

// qaccCols is the accumulator budget (int32 elements) of one column tile
// of qpointwise: the GEMM writes the tile and the epilogue reads it back
// while it is in the L2 cache (a whole 240×240×32 image's accumulators,
// 7 MB, were written to memory and read back).
const qaccCols = 1 << 15

// qdirect returns the product of group gi's weights (ocg×k) with the
// k×n byte matrix b (rows ldb apart) into acc (ocg×n) on the backend's
// strided int8 GEMM (Kernels.QGEMM8) with the weights packed once (QPackA8,
// cached: qweights.go), for a qconv2d whose zero points need no correction (x's
// folded into the bias, the weights' all 0); nil without that GEMM, with
// a weight zero point, or when x and w have the same signedness (the
// GEMM takes one of each; matmul_integer flips a sign bit for those).
func qdirect(x, w *T, groups int, q quantParams) func(gi int, b []byte, ldb, n int, acc []int32) {
	gemm := Active().QGEMM8
	if gemm == nil || (x.DType() == tensor.Int8) == (w.DType() == tensor.Int8) {
		return nil
	}
	for _, z := range q.wZero {
		if z != 0 {
			return nil
		}
	}
	oc := w.Shape()[0]
	ocg, k := oc/groups, w.Shape().NumElements()/oc
	wb := rawBytesOf(w)
	aSigned := w.DType() == tensor.Int8
	packed := make([]any, groups)
	if kern := Active(); kern.QPackA8 != nil {
		packed = qwPacked(w, oc, k, groups, kern, kern.QPackA8) // packed once per weights and level
	}
	return func(gi int, b []byte, ldb, n int, acc []int32) {
		gemm(ocg, n, k, wb[gi*ocg*k:], k, aSigned, packed[gi], b, ldb, acc, n)
	}
}

// qpointwise runs a 1×1 stride-1 qconv2d through direct (qdirect): per
// image, group and tile of output columns, W·x[:, j0:j1] with x read in
// place (no copy), then the epilogue on the tile while it is in cache.
func qpointwise(out, x *T, groups int, ep *quantEpilogue, direct func(gi int, b []byte, ldb, n int, acc []int32)) {
	xs := x.Shape()
	n, c, hw := xs[0], xs[1], xs[2]*xs[3]
	oc := out.Shape()[1]
	cg, ocg := c/groups, oc/groups
	cols := min(hw, max(256, qaccCols/max(ocg, 1)/32*32))
	nt := (hw + cols - 1) / cols
	xb := rawBytesOf(x)
	parallel.For(n*groups*nt, 1, func(lo, hi int) {
		accBuf := scratch.Get[int32](ocg*cols, false)
		defer scratch.Put(accBuf)
		for t := lo; t < hi; t++ {
			ni, gi, ti := t/nt/groups, t/nt%groups, t%nt
			j0 := ti * cols
			nc := min(cols, hw-j0)
			acc := (*accBuf)[:ocg*nc]
			direct(gi, xb[(ni*c+gi*cg)*hw+j0:], hw, nc, acc)
			ep.run(acc, ocg, nc, gi*ocg, out, (ni*oc+gi*ocg)*hw+j0, hw)
		}
	})
}

// qshifted runs a qconv2d with one group whose zero points need no
// correction (qdirect's case) without unrolling its windows: x is split
// once per image into stride phases (for stride s, phase (a, b) holds the
// padded input's pixels (s·i + a, s·j + b); one phase at stride 1), so
// that tap (kh, kw) of the kernel reads a phase shifted by a whole number
// of rows and columns, and the conv is one GEMM of the weights (k ordered
// tap by tap, C channels padded to a multiple of 4 with zero weights) by
// those shifted views. Where the backend reads B interleaved in groups of
// four rows in place (QGEMMGroups8: avx512 with VNNI), each phase holds
// the channels four by four, pixel by pixel (splitPhase4), so that a
// tap's four k rows of 32 columns are the 128 bytes the kernel reads and
// nothing is packed per tap; elsewhere each phase holds channel planes
// (splitPhase) and each group of 4 k rows lies evenly spaced, one plane
// apart (QGEMMRows8: B's rows anywhere, packed per call). Output rows are
// computed in tiles, each GEMM column an output pixel of a phase-wide row
// (the columns past OW are computed and dropped). It reports false, doing
// nothing, without QPackA8 or either GEMM.
func qshifted(out, x, w *T, g geom2, q quantParams, ep *quantEpilogue) bool {
	kern := Active()
	pack, grouped := kern.QPackA8, kern.QGEMMGroups8 != nil
	if pack == nil || kern.QGEMMRows8 == nil && !grouped {
		return false
	}
	xs := x.Shape()
	n, c, oc := xs[0], xs[1], out.Shape()[1]
	cp := (c + 3) &^ 3
	taps := g.KH * g.KW
	k := taps * cp
	// The phases the taps read, and each tap's phase and shift (pixels).
	maxDR, maxDC := (g.KH-1)*g.DH/g.SH, (g.KW-1)*g.DW/g.SW
	hq, wq := g.OH+maxDR, g.OW+maxDC
	plane := hq * wq
	phaseAt := make([]int, g.SH*g.SW) // phase → its index in the buffer + 1 (0: unused)
	var phases []int
	tapPhase, tapShift := make([]int, taps), make([]int, taps)
	for kh := range g.KH {
		for kw := range g.KW {
			r, cc := kh*g.DH, kw*g.DW
			ph := r%g.SH*g.SW + cc%g.SW
			if phaseAt[ph] == 0 {
				phases = append(phases, ph)
				phaseAt[ph] = len(phases)
			}
			tapPhase[kh*g.KW+kw], tapShift[kh*g.KW+kw] = phaseAt[ph]-1, r/g.SH*wq+cc/g.SW
		}
	}
	// A phase holds nch planes, cstride bytes apart, of esz bytes a pixel:
	// cp channel planes, or grouped, cp/4 planes of four channels a pixel.
	esz, nch, cstride := 1, cp, plane
	if grouped {
		esz, nch, cstride = 4, cp/4, 4*qgroupStride(plane)
	}
	pstride := nch * cstride
	// wq+32 pixels past the last plane: the dropped columns of the last
	// row, and grouped, the last 32-column panel, read past it.
	size := len(phases)*pstride + esz*(wq+32)
	// B's rows (or grouped, groups of 4 rows) tap by tap: tap t's plane ci
	// is the GEMM's row (group) t·nch + ci.
	off := make([]int, taps*nch)
	for t := range taps {
		for ci := range nch {
			off[t*nch+ci] = tapPhase[t]*pstride + esz*tapShift[t] + ci*cstride
		}
	}
	// The weights in that k order: wt[o, t·cp + ci] = w[o, ci, kh, kw]
	// (made and packed once per weights and level: qweights.go).
	aSigned := w.DType() == tensor.Int8
	wt, pa := qwShifted(w, oc, c, taps, kern, pack)
	rows := max(1, min(g.OH, qaccCols/max(oc*wq, 1)))
	nt := (g.OH + rows - 1) / rows
	xb, hw, ohw, pad := rawBytesOf(x), g.H*g.W, g.OH*g.OW, byte(q.xZero)
	buf := scratch.Get[byte](n*size, false)
	defer scratch.Put(buf)
	parallel.For(n*len(phases)*nch, 1, func(lo, hi int) {
		var tmp []byte
		if grouped {
			tmp = make([]byte, 4*wq)
		}
		for i := lo; i < hi; i++ {
			ni, pi, ci := i/nch/len(phases), i/nch%len(phases), i%nch
			ph := phases[pi]
			dst := (*buf)[ni*size+pi*pstride+ci*cstride:][:esz*plane]
			switch {
			case grouped:
				splitPhase4(dst, xb[(ni*c+4*ci)*hw:], min(4, c-4*ci), hw, g, ph/g.SW, ph%g.SW, hq, wq, pad, tmp, kern.Interleave4Bytes8)
			case ci < c: // the planes past c meet zero weights
				splitPhase(dst, xb[(ni*c+ci)*hw:][:hw], g, ph/g.SW, ph%g.SW, hq, wq, pad)
			}
		}
	})
	parallel.For(n*nt, 1, func(lo, hi int) {
		accBuf := scratch.Get[int32](oc*rows*wq, false)
		defer scratch.Put(accBuf)
		for t := lo; t < hi; t++ {
			ni, ti := t/nt, t%nt
			oh0, oh1 := ti*rows, min((ti+1)*rows, g.OH)
			cols := (oh1 - oh0) * wq
			acc := (*accBuf)[:oc*cols]
			b := (*buf)[ni*size+esz*oh0*wq : (ni+1)*size]
			if grouped {
				kern.QGEMMGroups8(oc, cols, k, wt, k, aSigned, pa, b, off, acc, cols)
			} else {
				kern.QGEMMRows8(oc, cols, k, wt, k, aSigned, pa, b, off, acc, cols)
			}
			// Drop the columns past OW: acc becomes oc × (oh1-oh0)·OW.
			valid := (oh1 - oh0) * g.OW
			for r := range oc {
				for y := range oh1 - oh0 {
					copy(acc[r*valid+y*g.OW:][:g.OW], acc[r*cols+y*wq:][:g.OW])
				}
			}
			ep.run(acc[:oc*valid], oc, valid, 0, out, ni*oc*ohw+oh0*g.OW, ohw)
		}
	})
	return true
}

// qgroupStride returns the pixels between the planes of channel groups in
// qshifted's interleaved layout: the plane's rounded up to whole cache
// lines (16 pixels of 4 bytes), an odd number of them, so that the GEMM's
// reads of the same columns from successive groups spread over the L1
// cache's sets (a plane of a multiple of 4 KiB put them all in one).
func qgroupStride(plane int) int {
	ps := (plane + 15) &^ 15
	if ps/16%2 == 0 {
		ps += 16
	}
	return ps
}

// phaseCols returns the columns [jlo, jhi) of a phase (column offset b,
// wq wide) whose source column s·j + b - PL lies in [0, W).
func phaseCols(g geom2, b, wq int) (int, int) {
	jlo := max(0, (g.PL-b+g.SW-1)/g.SW)
	return jlo, min(wq, max(jlo, (g.W+g.PL-b+g.SW-1)/g.SW))
}

// phaseRow writes row i of phase (a, b) of the channel plane x (H×W) into
// d (wq wide): d[j] = x[s·i + a - PT, s·j + b - PL], pad outside x; jlo
// and jhi are phaseCols'.
func phaseRow(d, x []byte, g geom2, a, b, i, jlo, jhi int, pad byte) {
	r := g.SH*i + a - g.PT
	if r < 0 || r >= g.H || jlo >= jhi {
		fill(d, pad)
		return
	}
	fill(d[:jlo], pad)
	fill(d[jhi:], pad)
	src := x[r*g.W:][:g.W]
	c0 := g.SW*jlo + b - g.PL
	switch g.SW {
	case 1:
		copy(d[jlo:jhi], src[c0:])
		return
	case 2:
		evenBytes(d[jlo:jhi], src[c0:])
		return
	}
	for j := jlo; j < jhi; j++ {
		d[j] = src[c0]
		c0 += g.SW
	}
}

// evenBytes sets dst[i] = src[2i] for i < len(dst): eight at a time from
// two little-endian words (the even bytes masked, then halved in width
// twice), the rest one by one (the stride-2 phase split of int8 det's
// first conv, 960×960×3, was a byte loop ~2 % of the model).
func evenBytes(dst, src []byte) {
	i := 0
	for ; i+8 <= len(dst) && 2*i+16 <= len(src); i += 8 {
		s := src[2*i : 2*i+16]
		binary.LittleEndian.PutUint64(dst[i:], uint64(even4(binary.LittleEndian.Uint64(s)))|uint64(even4(binary.LittleEndian.Uint64(s[8:])))<<32)
	}
	for ; i < len(dst); i++ {
		dst[i] = src[2*i]
	}
}

// even4 returns bytes 0, 2, 4 and 6 of v packed into 32 bits.
func even4(v uint64) uint32 {
	v &= 0x00ff00ff00ff00ff
	v = (v | v>>8) & 0x0000ffff0000ffff
	return uint32(v | v>>16)
}

// splitPhase writes phase (a, b) of one channel plane x (H×W) of geometry g
// into dst (hq×wq): dst[i, j] = x[s·i + a - PT, s·j + b - PL] (strides SH,
// SW), pad outside x.
func splitPhase(dst, x []byte, g geom2, a, b, hq, wq int, pad byte) {
	jlo, jhi := phaseCols(g, b, wq)
	for i := range hq {
		phaseRow(dst[i*wq:][:wq], x, g, a, b, i, jlo, jhi, pad)
	}
}

// splitPhase4 is splitPhase for the nc ≤ 4 channel planes x[t·ld:] (H×W)
// at once, interleaved pixel by pixel: dst[4(i·wq + j) + t] is channel t's
// dst[i, j], pad for t ≥ nc (channels that meet zero weights). A row of
// four whole channels at stride 1 is interleaved straight from x; others
// are split into tmp (4·wq bytes) first. ilv is the backend's vector
// interleave (Kernels.Interleave4Bytes8; nil: Go loops).
func splitPhase4(dst, x []byte, nc, ld int, g geom2, a, b, hq, wq int, pad byte, tmp []byte, ilv func(dst, src []byte, ld, n int) int) {
	jlo, jhi := phaseCols(g, b, wq)
	fill(tmp[nc*wq:4*wq], pad) // the missing channels' rows, once
	for i := range hq {
		d := dst[4*i*wq:][:4*wq]
		r := g.SH*i + a - g.PT
		if r < 0 || r >= g.H || jlo >= jhi {
			fill(d, pad)
			continue
		}
		if nc == 4 && g.SW == 1 {
			fill(d[:4*jlo], pad)
			fill(d[4*jhi:], pad)
			interleave4(d[4*jlo:4*jhi], x[r*g.W+jlo+b-g.PL:], ld, jhi-jlo, ilv)
			continue
		}
		for t := range nc {
			phaseRow(tmp[t*wq:][:wq], x[t*ld:][:g.H*g.W], g, a, b, i, jlo, jhi, pad)
		}
		interleave4(d, tmp, wq, wq, ilv)
	}
}

// interleave4 sets dst[4j + t] = src[t·ld + j] for t < 4, j < n: on ilv
// (nil: none) for the prefix it takes and, past 32 columns, for the last
// 32 again (rewriting columns of the prefix with the same bytes), Go for
// what is left.
func interleave4(dst, src []byte, ld, n int, ilv func(dst, src []byte, ld, n int) int) {
	j := 0
	if ilv != nil {
		j = ilv(dst, src, ld, n)
		if j < n && n >= 32 && ilv(dst[4*(n-32):], src[n-32:], ld, 32) == 32 {
			j = n
		}
	}
	for ; j < n; j++ {
		d := dst[4*j:][:4]
		d[0], d[1], d[2], d[3] = src[j], src[ld+j], src[2*ld+j], src[3*ld+j]
	}
}

// rawBytesOf is a uint8 or int8 tensor's memory as bytes.
func rawBytesOf(t *T) []byte {
	if t.DType() == tensor.Int8 {
		return int8Bytes(t.I8())
	}
	return t.U8()
}

// bytesInt8 views bytes as int8s (same memory).
func bytesInt8(b []byte) []int8 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&b[0])), len(b))
}

// foldXZero returns bias[c] - xZero·Σ_k w[c, k] per output channel (bias
// nil: 0), wrapping in int32 as the accumulators do, when the weights'
// zero points are all 0 and x's is not; ok false otherwise.
func foldXZero(bias []int32, w *T, q quantParams, oc int) ([]int32, bool) {
	if q.xZero == 0 {
		return nil, false
	}
	for _, z := range q.wZero {
		if z != 0 {
			return nil, false
		}
	}
	sums := qwSums(w, oc, w.Shape().NumElements()/oc, true)
	out := make([]int32, oc)
	xz := int32(q.xZero)
	for c, s := range sums {
		out[c] = -xz * s
		if bias != nil {
			out[c] += bias[c]
		}
	}
	return out, true
}

// im2colBytes is im2col for a uint8/int8 x: output rows [oh0, oh1) of the
// c channels starting at element off of x unrolled into col (c·KH·KW,
// rows·OW), pad where the window reads padding.
func im2colBytes(x *T, off, c int, g geom2, oh0, oh1 int, pad byte, col *T) {
	var src, dst []byte
	if x.DType() == tensor.Int8 {
		src, dst = int8Bytes(x.I8()), int8Bytes(col.I8())
	} else {
		src, dst = x.U8(), col.U8()
	}
	im2colPad(src[off:], c, g, oh0, oh1, pad, dst)
}
