package op

import (
	"fmt"
	"math"

	"paddle/core/parallel"
	"paddle/core/scratch"
	"paddle/core/tensor"
)

// conv_transpose2d_pair is two transposed convs in a row (each
// conv_transpose2d_act, or conv_transpose2d when its attributes name no
// act), the second reading only the first's output, as one op
// (core/graph/pass fuses them): inputs x, w1, b1, w2, b2; attributes first
// and second, each its conv's attributes. Where both are non-overlapping
// (kernel = stride, no pads, unit dilation, one group: a DB head's two 2×2
// stride-2 convs) and float32, it runs per tile of x's rows: the first
// conv's output tile is made in cache and read by the second, never
// written whole (PP-OCRv4 det at 960: 24×480×480 floats), each conv's
// products and stores as conv_transpose2d_act makes them (bitwise the two
// ops). Other shapes run the two ops.
var convTransposePairDef = define(&Def{
	Name: "conv_transpose2d_pair", Arity: 5, Overwrites: true, Export: exportConvTransposePair,
	Infer: func(in []Meta, a Attrs) ([]Meta, error) {
		first, second, err := pairAttrs(a)
		if err != nil {
			return nil, err
		}
		mid, err := pairDef(first).InferMeta([]Meta{in[0], in[1], in[2]}, first)
		if err != nil {
			return nil, fmt.Errorf("first: %w", err)
		}
		out, err := pairDef(second).InferMeta([]Meta{mid[0], in[3], in[4]}, second)
		if err != nil {
			return nil, fmt.Errorf("second: %w", err)
		}
		return out, nil
	},
	Ref: convTransposePairRef,
})

// pairDef is the op of one conv of conv_transpose2d_pair with attributes
// a: conv_transpose2d_act, or conv_transpose2d when a names no act.
func pairDef(a Attrs) *Def {
	if a.Str("act", "") == "" {
		return convTranspose2dDef
	}
	return Lookup("conv_transpose2d_act") // defined in fused.go's init
}

// pairAttrs returns conv_transpose2d_pair's two convs' attributes.
func pairAttrs(a Attrs) (first, second Attrs, err error) {
	first, ok1 := a["first"].(Attrs)
	second, ok2 := a["second"].(Attrs)
	if !ok1 || !ok2 {
		return nil, nil, fmt.Errorf("attributes first and second: want the two convs' attributes")
	}
	return first, second, nil
}

func convTransposePairRef(out, in []*T, a Attrs) {
	first, second, _ := pairAttrs(a)
	if convTransposePairTiles(out[0], in, first, second) {
		return
	}
	mid := call1(pairDef(first), first, in[0], in[1], in[2])
	Run(pairDef(second), out, []*T{mid, in[3], in[4]}, second)
}

// pairBlocks is one non-overlapping transposed conv of the pair: its
// weights (C, OC, KH, KW), bias, kernel (= stride), output channels and
// the floor of its stores (0: relu, −Inf: none).
type pairBlocks struct {
	w, b       []float32
	oc, kh, kw int
	floor      float32
	act        *Def // applied after the stores when not relu (nil: none)
	actAttrs   Attrs
	inC, iw    int // its input's channels and columns
}

// pairConv checks that conv_transpose2d_act with attributes a on an input
// of shape xs (N, C, H, W) and weights w, bias b runs as non-overlapping
// blocks with one group on float32 data, and returns it.
func pairConv(xs tensor.Shape, w, b *T, a Attrs) (pairBlocks, bool) {
	if w.DType() != tensor.Float32 || b.DType() != tensor.Float32 || len(xs) != 4 || w.Rank() != 4 ||
		!w.IsContiguous() || !b.IsContiguous() || a.Int("groups", 1) != 1 ||
		a.Float("scale", 1) != 1 || a.Float("shift", 0) != 0 {
		return pairBlocks{}, false
	}
	g, err := convTGeom(xs, w.Shape(), a)
	if err != nil || g.KH != g.SH || g.KW != g.SW || g.DH != 1 || g.DW != 1 || g.PT != 0 || g.PL != 0 || g.PB != 0 || g.PR != 0 ||
		g.H != g.OH*g.KH || g.W != g.OW*g.KW || g.KH*g.KW == 1 || w.Dim(0) != xs[1] || b.Len() != w.Dim(1) {
		return pairBlocks{}, false
	}
	p := pairBlocks{w: w.F32(), b: b.F32(), oc: w.Dim(1), kh: g.KH, kw: g.KW, floor: float32(math.Inf(-1)),
		inC: xs[1], iw: xs[3]}
	p.actAttrs, _ = a["act_attrs"].(Attrs)
	switch name := a.Str("act", ""); name {
	case "relu":
		p.floor = 0
	case "":
	default:
		if p.act = Lookup(name); p.act == nil {
			return pairBlocks{}, false
		}
	}
	return p, true
}

// run writes the conv of rows input rows (plane stride ld) into dst
// (plane stride ldo, rows·KH rows of IW·KW), col a scratch of
// OC·KH·KW·rows·IW: convTransposeBlocks's tile (blockTile).
func (p *pairBlocks) run(src []float32, ld, rows int, dst []float32, ldo int, col []float32) {
	blockTile(p.w, p.b, p.inC, p.oc, p.kh, p.kw, p.iw, rows, src, ld, dst, ldo, col, p.floor)
}

// convTransposePairTiles runs the pair per tile of x's rows when both
// convs are non-overlapping blocks (pairConv), and reports whether it did.
func convTransposePairTiles(y *T, in []*T, first, second Attrs) bool {
	x := in[0]
	if x.DType() != tensor.Float32 || !x.IsContiguous() {
		return false
	}
	p1, ok := pairConv(x.Shape(), in[1], in[2], first)
	if !ok {
		return false
	}
	mh, mw := x.Dim(2)*p1.kh, x.Dim(3)*p1.kw
	p2, ok := pairConv(tensor.Shape{x.Dim(0), p1.oc, mh, mw}, in[3], in[4], second)
	if !ok || !y.IsContiguous() || y.DType() != tensor.Float32 || !y.Shape().Equal(tensor.Shape{x.Dim(0), p2.oc, mh * p2.kh, mw * p2.kw}) {
		return false
	}
	n, h, w := x.Dim(0), x.Dim(2), x.Dim(3)
	// tiles of x rows: the first conv's columns as convTransposeBlocks
	// tiles them (at most 64 Ki floats), at least two tiles per thread
	rows := max(1, min((1<<16)/(p1.oc*p1.kh*p1.kw*w), h))
	if n*h < 2*parallel.Threads()*rows {
		rows = max(1, n*h/(2*parallel.Threads()))
	}
	nt := (h + rows - 1) / rows
	xa, ya := x.F32(), y.F32()
	ohw := mh * p2.kh * mw * p2.kw
	gemmFor(n*nt, func(lo, hi int) {
		mp, c1p, c2p := scratch.Get[float32](p1.oc*rows*p1.kh*mw, true), scratch.Get[float32](p1.oc*p1.kh*p1.kw*rows*w, true), scratch.Get[float32](p2.oc*p2.kh*p2.kw*rows*p1.kh*mw, true)
		defer func() { scratch.Put(mp); scratch.Put(c1p); scratch.Put(c2p) }()
		mid, col1, col2 := *mp, *c1p, *c2p
		for t := lo; t < hi; t++ {
			ni, ti := t/nt, t%nt
			r0, r1 := ti*rows, min((ti+1)*rows, h)
			tr := r1 - r0
			mplane := tr * p1.kh * mw
			p1.run(xa[ni*p1.inC*h*w+r0*w:], h*w, tr, mid, mplane, col1)
			if p1.act != nil {
				Run(p1.act, []*T{tensor.FromSlice(mid[:p1.oc*mplane])}, []*T{tensor.FromSlice(mid[:p1.oc*mplane])}, p1.actAttrs)
			}
			yo := ni*p2.oc*ohw + r0*p1.kh*p2.kh*mw*p2.kw
			p2.run(mid, mplane, tr*p1.kh, ya[yo:], ohw, col2)
			if p2.act != nil {
				for c := range p2.oc {
					o := ya[yo+c*ohw:][:tr*p1.kh*p2.kh*mw*p2.kw]
					Run(p2.act, []*T{tensor.FromSlice(o)}, []*T{tensor.FromSlice(o)}, p2.actAttrs)
				}
			}
		}
	})
	return true
}

// exportConvTransposePair writes the pair as its two convs (each
// ConvTranspose and its activation).
func exportConvTransposePair(w ONNXWriter, in, out []string) error {
	first, second, err := pairAttrs(w.Attrs())
	if err != nil {
		return err
	}
	d1, d2 := pairDef(first), pairDef(second)
	mid := Meta{DType: w.In(0).DType} // its shape when the input's is known
	if m, err := d1.InferMeta([]Meta{w.In(0), w.In(1), w.In(2)}, first); err == nil {
		mid = m[0]
	}
	t := w.Fresh(out[0] + "/first")
	if err := d1.Export(w.Sub(d1, first, w.In(0), w.In(1), w.In(2)), in[:3], []string{t}); err != nil {
		return err
	}
	return d2.Export(w.Sub(d2, second, mid, w.In(3), w.In(4)), []string{t, in[3], in[4]}, out)
}
