package op

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// More movement primitives: concat, split, slice, pad, squeeze, unsqueeze,
// flatten, tile (ONNX semantics), plus the composite Stack. Their kernels
// work on every dtype: they only move elements. Backward passes that are not
// a reshape or a sum scatter-add the gradient through the forward's flat
// index map (ScatterAdd), so they are differentiable again.

func init() {
	concatDef = define(&Def{
		Name: "concat", Export: copyAttrs(intAttr("axis", 0)), Overwrites: true, ONNX: "Concat", Arity: -1, Infer: concatInfer,
		Ref: func(out, in []*T, a Attrs) {
			axis, _ := tensor.NormAxis(a.Int("axis", 0), out[0].Rank())
			outer, chunks := splitChunks(out[0].Shape(), in, axis)
			interleave(out[0], in, chunks, outer, true)
		},
		// each input gets its slab of the gradient back
		VJP: func(c *VJPCtx) []*T {
			axis, _ := tensor.NormAxis(c.Attrs.Int("axis", 0), c.Out[0].Rank())
			sizes := make([]int, len(c.In))
			for i, x := range c.In {
				sizes[i] = x.Shape()[axis]
			}
			return Split(c.G(0), axis, sizes...)
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{rnd(r, 2, 3, 2), rnd(r, 2, 1, 2), rnd(r, 2, 2, 2)}, Attrs{"axis": -2}
		},
	})
	splitDef = define(&Def{
		Name: "split", Export: exportSplit, ONNX: "Split", Arity: 1, Infer: splitInfer,
		Ref: func(out, in []*T, a Attrs) {
			axis, _ := tensor.NormAxis(a.Int("axis", 0), in[0].Rank())
			outer, chunks := splitChunks(in[0].Shape(), out, axis)
			interleave(in[0], out, chunks, outer, false)
		},
		VJP: func(c *VJPCtx) []*T {
			gs := make([]*T, len(c.Out))
			for i := range gs {
				gs[i] = c.G(i)
			}
			return []*T{Concat(c.Attrs.Int("axis", 0), gs...)}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{rnd(r, 2, 5, 2)}, Attrs{"axis": 1, "sizes": []int{2, 0, 3}}
		},
	})
	sliceDef = define(&Def{
		Name: "slice", Export: inputsFrom("Slice", "starts", "ends", "axes", "steps"), ONNX: "Slice", Arity: 1,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			s, _, err := sliceCoords(in[0].Shape, a)
			if err != nil {
				return nil, err
			}
			return []Meta{{in[0].DType, s}}, nil
		},
		Ref: func(out, in []*T, a Attrs) {
			_, coord, _ := sliceCoords(in[0].Shape(), a)
			gatherCoords(out[0], in[0], coord)
		},
		VJP: func(c *VJPCtx) []*T {
			_, coord, _ := sliceCoords(c.In[0].Shape(), c.Attrs)
			return []*T{scatterBack(c.G(0), c.In[0].Shape(), coordIndex(c.Out[0].Shape(), c.In[0].Shape(), coord))}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{rnd(r, 4, 5, 3)}, Attrs{"starts": []int{-1, 1}, "ends": []int{-1 << 40, 100}, "axes": []int{0, -2}, "steps": []int{-2, 2}}
		},
	})
	padDef = define(&Def{
		Name: "pad", Export: exportPad, ONNX: "Pad", Arity: 1,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			s, _, err := padCoords(in[0].Shape, a)
			if err != nil {
				return nil, err
			}
			return []Meta{{in[0].DType, s}}, nil
		},
		Ref: func(out, in []*T, a Attrs) {
			_, coord, _ := padCoords(in[0].Shape(), a)
			if v := a.Float("value", 0); v != 0 && a.Str("mode", "constant") == "constant" {
				out[0].Fill(v)
			}
			gatherCoords(out[0], in[0], coord)
		},
		VJP: func(c *VJPCtx) []*T {
			if c.Attrs.Str("mode", "constant") == "constant" {
				// padding with the negated pads crops the gradient back (and zero-fills what the forward cropped)
				pads := c.Attrs.Ints("pads", nil)
				neg := make([]int, len(pads))
				for i, p := range pads {
					neg[i] = -p
				}
				return []*T{call1(padDef, Attrs{"pads": neg, "axes": c.Attrs.Ints("axes", nil)}, c.G(0))}
			}
			_, coord, _ := padCoords(c.In[0].Shape(), c.Attrs)
			return []*T{scatterBack(c.G(0), c.In[0].Shape(), coordIndex(c.Out[0].Shape(), c.In[0].Shape(), coord))}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{rnd(r, 3, 4)}, Attrs{"pads": []int{2, 1, 1, 3}, "mode": "reflect"}
		},
	})
	squeezeDef = define(&Def{
		Name: "squeeze", Export: inputsFrom("Squeeze", "axes"), ONNX: "Squeeze", Arity: 1, Infer: squeezeInfer,
		Ref: reshapeCopy, VJP: reshapeBack,
		Sample: func(r *rand.Rand) ([]*T, Attrs) { return []*T{rnd(r, 1, 3, 1, 2)}, Attrs{"axes": []int{-2}} },
	})
	unsqueezeDef = define(&Def{
		Name: "unsqueeze", Export: inputsFrom("Unsqueeze", "axes"), ONNX: "Unsqueeze", Arity: 1, Infer: unsqueezeInfer,
		Ref: reshapeCopy, VJP: reshapeBack,
		Sample: func(r *rand.Rand) ([]*T, Attrs) { return []*T{rnd(r, 3, 2)}, Attrs{"axes": []int{0, -1}} },
	})
	flattenDef = define(&Def{
		Name: "flatten", Export: copyAttrs(intAttr("axis", 1)), ONNX: "Flatten", Arity: 1,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			s := in[0].Shape
			axis := a.Int("axis", 1)
			if axis < 0 {
				axis += len(s)
			}
			if axis < 0 || axis > len(s) {
				return nil, fmt.Errorf("axis %d out of range for rank %d", a.Int("axis", 1), len(s))
			}
			return []Meta{{in[0].DType, tensor.Shape{s[:axis].NumElements(), s[axis:].NumElements()}}}, nil
		},
		Ref: reshapeCopy, VJP: reshapeBack,
		Sample: func(r *rand.Rand) ([]*T, Attrs) { return []*T{rnd(r, 2, 3, 2)}, Attrs{"axis": -1} },
	})
	tileDef = define(&Def{
		Name: "tile", Export: inputsFrom("Tile", "repeats"), ONNX: "Tile", Arity: 1,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			reps := a.Ints("repeats", nil)
			if len(reps) != len(in[0].Shape) {
				return nil, fmt.Errorf("repeats %v for an input of rank %d", reps, len(in[0].Shape))
			}
			s := in[0].Shape.Clone()
			for i, r := range reps {
				if r < 0 {
					return nil, fmt.Errorf("negative repeat in %v", reps)
				}
				s[i] *= r
			}
			return []Meta{{in[0].DType, s}}, nil
		},
		Ref: func(out, in []*T, _ Attrs) {
			s := in[0].Shape()
			coord := make([][]int, len(s))
			for ax, d := range s {
				coord[ax] = make([]int, out[0].Shape()[ax])
				for o := range coord[ax] {
					coord[ax][o] = o % d
				}
			}
			gatherCoords(out[0], in[0], coord)
		},
		// g viewed as (r0, d0, r1, d1, ...) summed over the repeat axes
		VJP: func(c *VJPCtx) []*T {
			s, reps := c.In[0].Shape(), c.Attrs.Ints("repeats", nil)
			split := make([]int, 0, 2*len(s))
			axes := make([]int, len(s))
			for i, d := range s {
				split = append(split, reps[i], d)
				axes[i] = 2 * i
			}
			return []*T{Reshape(Sum(Reshape(c.G(0), split...), axes, false), s...)}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) { return []*T{rnd(r, 2, 3)}, Attrs{"repeats": []int{2, 3}} },
	})
}

var concatDef, splitDef, sliceDef, padDef, squeezeDef, unsqueezeDef, flattenDef, tileDef *Def

func rnd(r *rand.Rand, shape ...int) *T { return tensor.Rand(r, tensor.Float64, -1, 1, shape...) }

func reshapeCopy(out, in []*T, _ Attrs) { out[0].CopyFrom(in[0].Reshape(out[0].Shape()...)) }

func reshapeBack(c *VJPCtx) []*T { return []*T{Reshape(c.G(0), c.In[0].Shape()...)} }

func concatInfer(in []Meta, a Attrs) ([]Meta, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("want at least one input")
	}
	r := len(in[0].Shape)
	axis, err := tensor.NormAxis(a.Int("axis", 0), r)
	if err != nil {
		return nil, err
	}
	s := in[0].Shape.Clone()
	for i, m := range in[1:] {
		if m.DType != in[0].DType {
			return nil, fmt.Errorf("input %d is %v, input 0 is %v", i+1, m.DType, in[0].DType)
		}
		if len(m.Shape) != r {
			return nil, fmt.Errorf("input %d has shape %v, input 0 has %v: ranks differ", i+1, m.Shape, in[0].Shape)
		}
		for ax, d := range m.Shape {
			if ax != axis && d != s[ax] {
				return nil, fmt.Errorf("input %d has shape %v, input 0 has %v: they differ off axis %d", i+1, m.Shape, in[0].Shape, axis)
			}
		}
		s[axis] += m.Shape[axis]
	}
	return []Meta{{in[0].DType, s}}, nil
}

func splitInfer(in []Meta, a Attrs) ([]Meta, error) {
	s := in[0].Shape
	axis, err := tensor.NormAxis(a.Int("axis", 0), len(s))
	if err != nil {
		return nil, err
	}
	sizes := a.Ints("sizes", nil)
	if sizes == nil {
		// ONNX num_outputs: chunks of ceil(d/n), the last one smaller
		n := a.Int("num_outputs", 0)
		if n <= 0 {
			return nil, fmt.Errorf("want attribute sizes or num_outputs > 0")
		}
		chunk := (s[axis] + n - 1) / n
		for left := s[axis]; len(sizes) < n; left -= min(chunk, left) {
			sizes = append(sizes, min(chunk, left))
		}
	}
	total := 0
	out := make([]Meta, len(sizes))
	for i, d := range sizes {
		if d < 0 {
			return nil, fmt.Errorf("negative size in %v", sizes)
		}
		total += d
		o := s.Clone()
		o[axis] = d
		out[i] = Meta{in[0].DType, o}
	}
	if total != s[axis] {
		return nil, fmt.Errorf("sizes %v add up to %d, axis %d has %d", sizes, total, axis, s[axis])
	}
	return out, nil
}

// splitChunks returns the number of outer blocks of whole (product of the axes
// before axis) and each part's contiguous run per block.
func splitChunks(whole tensor.Shape, parts []*T, axis int) (int, []int) {
	outer := whole[:axis].NumElements()
	chunks := make([]int, len(parts))
	for i, p := range parts {
		chunks[i] = p.Shape()[axis:].NumElements()
	}
	return outer, chunks
}

// interleave copies parts into whole (join) or whole into parts: whole is,
// per outer block, the parts' runs one after another.
func interleave(whole *T, parts []*T, chunks []int, outer int, join bool) {
	switch whole.DType() {
	case tensor.Float32:
		interleaveOf(whole.F32(), bufsOf[float32](parts), chunks, outer, join)
	case tensor.Float64:
		interleaveOf(whole.F64(), bufsOf[float64](parts), chunks, outer, join)
	case tensor.Int64:
		interleaveOf(whole.I64(), bufsOf[int64](parts), chunks, outer, join)
	case tensor.Int32:
		interleaveOf(whole.I32(), bufsOf[int32](parts), chunks, outer, join)
	case tensor.Uint8:
		interleaveOf(whole.U8(), bufsOf[uint8](parts), chunks, outer, join)
	case tensor.Int8:
		interleaveOf(whole.I8(), bufsOf[int8](parts), chunks, outer, join)
	case tensor.Bool:
		interleaveOf(whole.Bools(), bufsOf[bool](parts), chunks, outer, join)
	default:
		panic("op: unsupported dtype " + whole.DType().String())
	}
}

func bufsOf[E tensor.Elem](ts []*T) [][]E {
	out := make([][]E, len(ts))
	for i, t := range ts {
		out[i] = tensor.Data[E](t)
	}
	return out
}

func interleaveOf[E tensor.Elem](whole []E, parts [][]E, chunks []int, outer int, join bool) {
	// large copies are cut into equal ranges of whole, one per thread, each
	// copying the pieces of the segments that fall in it
	parallel.For(len(whole), 1<<16, func(lo, hi int) {
		off := 0
		for o := range outer {
			for i, p := range parts {
				c := chunks[i]
				if a, b := max(off, lo), min(off+c, hi); a < b {
					src := p[o*c+a-off : o*c+b-off]
					if join {
						copy(whole[a:b], src)
					} else {
						copy(src, whole[a:b])
					}
				}
				off += c
				if off >= hi {
					return
				}
			}
		}
	})
}

// gatherRows sets row i of dst to row rows[i] of src (rows of w elements);
// rows[i] < 0 leaves row i as it is. dst and src share a dtype.
func gatherRows(dst, src *T, rows []int, w int) {
	switch dst.DType() {
	case tensor.Float32:
		gatherRowsOf(dst.F32(), src.F32(), rows, w)
	case tensor.Float64:
		gatherRowsOf(dst.F64(), src.F64(), rows, w)
	case tensor.Int64:
		gatherRowsOf(dst.I64(), src.I64(), rows, w)
	case tensor.Int32:
		gatherRowsOf(dst.I32(), src.I32(), rows, w)
	case tensor.Uint8:
		gatherRowsOf(dst.U8(), src.U8(), rows, w)
	case tensor.Int8:
		gatherRowsOf(dst.I8(), src.I8(), rows, w)
	case tensor.Bool:
		gatherRowsOf(dst.Bools(), src.Bools(), rows, w)
	default:
		panic("op: unsupported dtype " + dst.DType().String())
	}
}

func gatherRowsOf[E tensor.Elem](dst, src []E, rows []int, w int) {
	parallel.For(len(rows), max(1, (1<<15)/max(w, 1)), func(lo, hi int) {
		if w == 1 {
			for i := lo; i < hi; i++ {
				if r := rows[i]; r >= 0 {
					dst[i] = src[r]
				}
			}
			return
		}
		for i := lo; i < hi; i++ {
			if r := rows[i]; r >= 0 {
				copy(dst[i*w:(i+1)*w], src[r*w:(r+1)*w])
			}
		}
	})
}

// gatherCoords moves a contiguous in into out through an axis-separable
// coordinate map (see coordIndex): output position (o0, o1, ...) takes
// input position (coord[0][o0], coord[1][o1], ...); where a coordinate is
// < 0, out keeps its value. When the last axis reads a run of consecutive
// input positions (a slice of step 1 there, a pad or tile of other axes),
// whole rows are copied, without the index map (8 bytes an element).
func gatherCoords(out, in *T, coord [][]int) {
	r := len(coord)
	if r == 0 || !unitRun(coord[r-1]) {
		gatherRows(out, in, coordIndex(out.Shape(), in.Shape(), coord), 1)
		return
	}
	switch out.DType() {
	case tensor.Float32:
		copyRuns(out.F32(), in.F32(), out.Shape(), in.Shape(), coord)
	case tensor.Float64:
		copyRuns(out.F64(), in.F64(), out.Shape(), in.Shape(), coord)
	case tensor.Int64:
		copyRuns(out.I64(), in.I64(), out.Shape(), in.Shape(), coord)
	case tensor.Int32:
		copyRuns(out.I32(), in.I32(), out.Shape(), in.Shape(), coord)
	case tensor.Uint8:
		copyRuns(out.U8(), in.U8(), out.Shape(), in.Shape(), coord)
	case tensor.Int8:
		copyRuns(out.I8(), in.I8(), out.Shape(), in.Shape(), coord)
	case tensor.Bool:
		copyRuns(out.Bools(), in.Bools(), out.Shape(), in.Shape(), coord)
	default:
		panic("op: unsupported dtype " + out.DType().String())
	}
}

// unitRun reports whether c is a non-empty run of consecutive positions ≥ 0.
func unitRun(c []int) bool {
	if len(c) == 0 || c[0] < 0 {
		return false
	}
	for j, v := range c {
		if v != c[0]+j {
			return false
		}
	}
	return true
}

// copyRuns is gatherCoords when coord's last axis is a unit run: each
// output row is one copy.
func copyRuns[E tensor.Elem](dst, src []E, out, in tensor.Shape, coord [][]int) {
	r := len(out)
	w := out[r-1]
	rows := out.NumElements() / max(w, 1)
	if w == 0 || rows == 0 {
		return
	}
	st := tensor.ContiguousStrides(in)
	c0 := coord[r-1][0]
	parallel.For(rows, max(1, (1<<15)/w), func(lo, hi int) {
		oc := make([]int, r-1) // odometer over the outer axes, at row lo
		for ax, rem := r-2, lo; ax >= 0; ax-- {
			oc[ax], rem = rem%out[ax], rem/out[ax]
		}
		for o := lo; o < hi; o++ {
			base, none := c0, false
			for ax, i := range oc {
				c := coord[ax][i]
				none = none || c < 0
				base += c * st[ax]
			}
			if !none {
				copy(dst[o*w:(o+1)*w], src[base:base+w])
			}
			for ax := r - 2; ax >= 0; ax-- {
				if oc[ax]++; oc[ax] < out[ax] {
					break
				}
				oc[ax] = 0
			}
		}
	})
}

// coordIndex is the flat index map of an axis-separable movement: output
// position (o0, o1, ...) reads input position (coord[0][o0], coord[1][o1], ...)
// of a contiguous tensor of shape in; any coordinate < 0 gives -1 (no source).
func coordIndex(out, in tensor.Shape, coord [][]int) []int {
	n := out.NumElements()
	idx := make([]int, n)
	r := len(out)
	if n == 0 || r == 0 {
		return idx
	}
	st := tensor.ContiguousStrides(in)
	last, w := r-1, out[r-1]
	oc := make([]int, r-1) // odometer over the outer axes
	for o := range n / w {
		base, none := 0, false
		for ax := range last {
			c := coord[ax][oc[ax]]
			none = none || c < 0
			base += c * st[ax]
		}
		row := idx[o*w : (o+1)*w]
		for j, c := range coord[last] {
			if none || c < 0 {
				row[j] = -1
			} else {
				row[j] = base + c*st[last]
			}
		}
		for ax := last - 1; ax >= 0; ax-- {
			if oc[ax]++; oc[ax] < out[ax] {
				break
			}
			oc[ax] = 0
		}
	}
	return idx
}

// scatterBack is the backward of a gather through the flat index map idx
// (all entries valid): zeros of shape s with g's elements added at idx.
func scatterBack(g *T, s tensor.Shape, idx []int) *T {
	ix := make([]int64, len(idx))
	for i, v := range idx {
		ix[i] = int64(v)
	}
	flat := ScatterAdd(tensor.New(g.DType(), s.NumElements()), tensor.FromSlice(ix, len(ix)), Reshape(g, len(ix)), 0)
	return Reshape(flat, s...)
}

// sliceCoords resolves ONNX Slice attributes against shape s: the output
// shape and, per axis, the input coordinate of each output coordinate.
func sliceCoords(s tensor.Shape, a Attrs) (tensor.Shape, [][]int, error) {
	starts, ends := a.Ints("starts", nil), a.Ints("ends", nil)
	axes, steps := a.Ints("axes", nil), a.Ints("steps", nil)
	if len(starts) != len(ends) {
		return nil, nil, fmt.Errorf("starts %v and ends %v differ in length", starts, ends)
	}
	if axes != nil && len(axes) != len(starts) || steps != nil && len(steps) != len(starts) {
		return nil, nil, fmt.Errorf("starts %v, axes %v and steps %v differ in length", starts, axes, steps)
	}
	out := s.Clone()
	coord := identityCoords(s)
	seen := make([]bool, len(s))
	for i := range starts {
		ax := i
		if axes != nil {
			var err error
			if ax, err = tensor.NormAxis(axes[i], len(s)); err != nil {
				return nil, nil, err
			}
		}
		if seen[ax] {
			return nil, nil, fmt.Errorf("axis %d sliced twice in %v", ax, axes)
		}
		seen[ax] = true
		step := 1
		if steps != nil {
			step = steps[i]
		}
		if step == 0 {
			return nil, nil, fmt.Errorf("step 0 on axis %d", ax)
		}
		d, st, en := s[ax], starts[i], ends[i]
		if st < 0 {
			st += d
		}
		if en < 0 {
			en += d
		}
		var cnt int
		if step > 0 {
			st, en = min(max(st, 0), d), min(max(en, 0), d)
			cnt = max(0, (en-st+step-1)/step)
		} else {
			st, en = min(max(st, 0), d-1), min(max(en, -1), d-1)
			cnt = max(0, (st-en-step-1)/(-step))
		}
		out[ax] = cnt
		coord[ax] = make([]int, cnt)
		for o := range cnt {
			coord[ax][o] = st + o*step
		}
	}
	return out, coord, nil
}

func identityCoords(s tensor.Shape) [][]int {
	coord := make([][]int, len(s))
	for ax, d := range s {
		coord[ax] = make([]int, d)
		for i := range d {
			coord[ax][i] = i
		}
	}
	return coord
}

// padCoords resolves ONNX Pad attributes (pads = begins then ends, over axes
// or all axes; negative pads crop) against shape s: the output shape and,
// per axis, the input coordinate of each output coordinate (-1: constant).
func padCoords(s tensor.Shape, a Attrs) (tensor.Shape, [][]int, error) {
	pads, mode := a.Ints("pads", nil), a.Str("mode", "constant")
	axes := a.Ints("axes", nil)
	if axes == nil {
		for i := range s {
			axes = append(axes, i)
		}
	}
	if len(pads) != 2*len(axes) {
		return nil, nil, fmt.Errorf("pads %v: want %d values (begins then ends) for axes %v", pads, 2*len(axes), axes)
	}
	switch mode {
	case "constant", "reflect", "edge", "wrap":
	default:
		return nil, nil, fmt.Errorf("unknown pad mode %q (known: constant, reflect, edge, wrap)", mode)
	}
	out := s.Clone()
	coord := identityCoords(s)
	for i, ax := range axes {
		ax, err := tensor.NormAxis(ax, len(s))
		if err != nil {
			return nil, nil, err
		}
		b, e, d := pads[i], pads[i+len(axes)], s[ax]
		n := d + b + e
		if n < 0 {
			return nil, nil, fmt.Errorf("pads %v crop axis %d of size %d below zero", pads, ax, d)
		}
		if d == 0 && n > 0 && mode != "constant" {
			return nil, nil, fmt.Errorf("cannot %s-pad the empty axis %d", mode, ax)
		}
		out[ax] = n
		coord[ax] = make([]int, n)
		for o := range n {
			coord[ax][o] = padSource(o-b, d, mode)
		}
	}
	return out, coord, nil
}

// padSource maps a coordinate i of a padded axis of size d onto the input.
func padSource(i, d int, mode string) int {
	if i >= 0 && i < d {
		return i
	}
	switch mode {
	case "edge":
		return min(max(i, 0), d-1)
	case "wrap":
		return ((i % d) + d) % d
	case "reflect": // mirror without repeating the edge: -1 → 1, d → d-2
		if d == 1 {
			return 0
		}
		p := 2 * (d - 1)
		i = ((i % p) + p) % p
		if i >= d {
			i = p - i
		}
		return i
	}
	return -1
}

func squeezeInfer(in []Meta, a Attrs) ([]Meta, error) {
	s := in[0].Shape
	drop := make([]bool, len(s))
	if axes := a.Ints("axes", nil); axes == nil {
		for i, d := range s {
			drop[i] = d == 1
		}
	} else {
		for _, ax := range axes {
			n, err := tensor.NormAxis(ax, len(s))
			if err != nil {
				return nil, err
			}
			if s[n] != 1 {
				return nil, fmt.Errorf("cannot squeeze axis %d of shape %v: size %d, want 1", ax, s, s[n])
			}
			drop[n] = true
		}
	}
	out := tensor.Shape{}
	for i, d := range s {
		if !drop[i] {
			out = append(out, d)
		}
	}
	return []Meta{{in[0].DType, out}}, nil
}

func unsqueezeInfer(in []Meta, a Attrs) ([]Meta, error) {
	s, axes := in[0].Shape, a.Ints("axes", nil)
	r := len(s) + len(axes)
	ins := make([]bool, r)
	for _, ax := range axes {
		n, err := tensor.NormAxis(ax, r)
		if err != nil {
			return nil, err
		}
		if ins[n] {
			return nil, fmt.Errorf("axis %d repeated in %v", n, axes)
		}
		ins[n] = true
	}
	out := make(tensor.Shape, 0, r)
	j := 0
	for i := range r {
		if ins[i] {
			out = append(out, 1)
		} else {
			out = append(out, s[j])
			j++
		}
	}
	return []Meta{{in[0].DType, out}}, nil
}

// Concat joins xs along axis (negative counts from the end); all share dtype and the other dims.
func Concat(axis int, xs ...*T) *T { return call1(concatDef, Attrs{"axis": axis}, xs...) }

// Split cuts x along axis into pieces of the given sizes, which must add up to x's size there.
func Split(x *T, axis int, sizes ...int) []*T {
	return Call(splitDef, Attrs{"axis": axis, "sizes": append([]int(nil), sizes...)}, x)
}

// Stack joins xs (all of one shape) along a new axis (in [-r-1, r]). Composite: unsqueeze + concat.
func Stack(axis int, xs ...*T) *T {
	if len(xs) == 0 {
		panic(&ShapeError{Op: "stack", Err: fmt.Errorf("want at least one input")})
	}
	ax, err := tensor.NormAxis(axis, xs[0].Rank()+1)
	if err != nil {
		panic(&ShapeError{Op: "stack", Err: err})
	}
	us := make([]*T, len(xs))
	for i, x := range xs {
		us[i] = Unsqueeze(x, ax)
	}
	return Concat(ax, us...)
}

// Slice takes x[starts:ends:steps] on the given axes (nil: the first len(starts)),
// with ONNX Slice semantics: negative starts/ends count from the end, ends are
// clamped, negative steps walk backwards. x: (...) → (...).
func Slice(x *T, starts, ends, axes, steps []int) *T {
	return call1(sliceDef, Attrs{"starts": starts, "ends": ends, "axes": axes, "steps": steps}, x)
}

// Pad pads x with ONNX Pad semantics: pads holds the begin pads of every axis
// then the end pads (negative values crop); mode is "constant" (with value),
// "reflect" (mirror, edge not repeated), "edge" (replicate) or "wrap".
func Pad(x *T, pads []int, mode string, value float64) *T {
	return call1(padDef, Attrs{"pads": pads, "mode": mode, "value": value}, x)
}

// Squeeze drops the given size-1 axes of x (none given: all of them).
func Squeeze(x *T, axes ...int) *T {
	var a []int
	if len(axes) > 0 {
		a = append(a, axes...)
	}
	return call1(squeezeDef, Attrs{"axes": a}, x)
}

// Unsqueeze inserts size-1 axes at the given positions of the output.
func Unsqueeze(x *T, axes ...int) *T {
	return call1(unsqueezeDef, Attrs{"axes": append([]int(nil), axes...)}, x)
}

// Flatten reshapes x to 2-D (ONNX Flatten): (prod(dims[:axis]), prod(dims[axis:])).
func Flatten(x *T, axis int) *T { return call1(flattenDef, Attrs{"axis": axis}, x) }

// Tile repeats x repeats[i] times along each axis i.
func Tile(x *T, repeats ...int) *T {
	return call1(tileDef, Attrs{"repeats": append([]int(nil), repeats...)}, x)
}
