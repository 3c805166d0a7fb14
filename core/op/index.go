package op

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/tensor"
)

// Indexing primitives: gather (ONNX Gather), gather_elements, scatter_add,
// segment_sum/mean/max, embedding, one_hot, and the value-producing ONNX ops
// shape, constant_of_shape and range. Index inputs are int64 (int32 is also
// accepted); negative indices count from the end as in ONNX. An index out of
// range panics with *ShapeError, like a bad shape. Gradients flow to data,
// never to indices: each backward is a gather or a scatter_add, so the pair
// gather_elements / scatter_add are each other's VJP.

func init() {
	gatherDef = define(&Def{
		Name: "gather", Export: copyAttrs(intAttr("axis", 0)), ONNX: "Gather", Arity: 2, NoGrad: []int{1},
		// x: (A..., K, B...), idx: (I...) → (A..., I..., B...)
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if err := wantIndex(in[1], "indices"); err != nil {
				return nil, err
			}
			x := in[0].Shape
			axis, err := tensor.NormAxis(a.Int("axis", 0), len(x))
			if err != nil {
				return nil, err
			}
			s := append(append(x[:axis].Clone(), in[1].Shape...), x[axis+1:]...)
			return []Meta{{in[0].DType, s}}, nil
		},
		Ref: func(out, in []*T, a Attrs) {
			na, k, nb, rows := gatherPlan(in[0].Shape(), in[1], a.Int("axis", 0), "gather")
			flat := make([]int, na*len(rows))
			for i := range na {
				for j, r := range rows {
					flat[i*len(rows)+j] = i*k + r
				}
			}
			gatherRows(out[0], in[0], flat, nb)
		},
		// dx[a, idx[i], b] += g[a, i, b]: a scatter_add along the axis
		VJP: func(c *VJPCtx) []*T {
			x := c.In[0]
			na, k, nb, rows := gatherPlan(x.Shape(), c.In[1], c.Attrs.Int("axis", 0), "gather")
			ix := make([]int64, len(rows))
			for i, r := range rows {
				ix[i] = int64(r)
			}
			idx := BroadcastTo(tensor.FromSlice(ix, 1, len(ix), 1), na, len(ix), nb)
			g := Reshape(c.G(0), na, len(ix), nb)
			dx := ScatterAdd(tensor.New(x.DType(), na, k, nb), idx, g, 1)
			return []*T{Reshape(dx, x.Shape()...), nil}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{rnd(r, 2, 3, 2), tensor.FromSlice([]int64{2, -1, 0, 2}, 2, 2)}, Attrs{"axis": -2}
		},
	})
	gatherElementsDef = define(&Def{
		Name: "gather_elements", Export: copyAttrs(intAttr("axis", 0)), ONNX: "GatherElements", Arity: 2, NoGrad: []int{1},
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if _, err := elementsAxis(in[0], in[1], in[1], a); err != nil {
				return nil, err
			}
			return []Meta{{in[0].DType, in[1].Shape}}, nil
		},
		Ref: func(out, in []*T, a Attrs) {
			t := elementTargets(in[0].Shape(), in[1], a.Int("axis", 0), "gather_elements")
			gatherRows(out[0], in[0], t, 1)
		},
		VJP: func(c *VJPCtx) []*T {
			return []*T{ScatterAdd(tensor.ZerosLike(c.In[0]), c.In[1], c.G(0), c.Attrs.Int("axis", 0)), nil}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{rnd(r, 3, 4), tensor.FromSlice([]int64{0, 2, 2, -1, 1, 1}, 2, 3)}, Attrs{"axis": 1}
		},
	})
	scatterAddDef = define(&Def{
		// ONNX ScatterElements with reduction "add"; the importer maps it by attribute.
		Name: "scatter_add", Arity: 3, NoGrad: []int{1},
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if _, err := elementsAxis(in[0], in[1], in[2], a); err != nil {
				return nil, err
			}
			if in[0].DType == tensor.Bool || in[2].DType != in[0].DType {
				return nil, fmt.Errorf("src is %v, data is %v: want one numeric dtype", in[2].DType, in[0].DType)
			}
			return []Meta{in[0]}, nil
		},
		Ref: func(out, in []*T, a Attrs) {
			out[0].CopyFrom(in[0])
			addRows(out[0], in[2], elementTargets(in[0].Shape(), in[1], a.Int("axis", 0), "scatter_add"), 1)
		},
		VJP: func(c *VJPCtx) []*T {
			g := c.G(0)
			return []*T{g, nil, GatherElements(g, c.In[1], c.Attrs.Int("axis", 0))}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{rnd(r, 3, 4), tensor.FromSlice([]int64{2, 0, 2, -1, 1, 1, 0, 0}, 2, 4), rnd(r, 2, 4)}, Attrs{"axis": 0}
		},
	})
	segmentSumDef = define(&Def{
		Name: "segment_sum", Arity: 2, NoGrad: []int{1}, Infer: segmentInfer(false),
		Ref: func(out, in []*T, a Attrs) {
			addRows(out[0], in[0], segmentRows(in[1], a), in[0].Shape()[1:].NumElements())
		},
		VJP:    func(c *VJPCtx) []*T { return []*T{segmentGather(c.G(0), c.In[1], c.Attrs), nil} },
		Sample: segmentSample,
	})
	segmentMeanDef = define(&Def{
		Name: "segment_mean", Arity: 2, NoGrad: []int{1}, Infer: segmentInfer(true),
		Ref: func(out, in []*T, a Attrs) {
			addRows(out[0], in[0], segmentRows(in[1], a), in[0].Shape()[1:].NumElements())
			out[0].CopyFrom(Div(out[0], segmentCounts(in[1], a, out[0])))
		},
		VJP: func(c *VJPCtx) []*T {
			g := Div(c.G(0), segmentCounts(c.In[1], c.Attrs, c.Out[0]))
			return []*T{segmentGather(g, c.In[1], c.Attrs), nil}
		},
		Sample: segmentSample,
	})
	segmentMaxDef = define(&Def{
		// outputs the maximum and its row in data (int64; -1 for an empty segment, whose max is 0)
		Name: "segment_max", Arity: 2, NoGrad: []int{1},
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			m, err := segmentInfer(false)(in, a)
			if err != nil {
				return nil, err
			}
			return append(m, Meta{tensor.Int64, m[0].Shape}), nil
		},
		Ref: segmentMaxRef,
		// the gradient goes to the (first) row that held the maximum
		VJP: func(c *VJPCtx) []*T {
			arg := c.Out[1]
			keep := Cast(GreaterEqual(arg, ScalarLike(arg, 0)), c.In[0].DType())
			src := Mul(c.G(0), keep)
			idx := Maximum(arg, ScalarLike(arg, 0))
			return []*T{ScatterAdd(tensor.ZerosLike(c.In[0]), idx, src, 0), nil}
		},
		Sample: segmentSample,
	})
	embeddingDef = define(&Def{
		Name: "embedding", Export: exportEmbedding, Arity: 2, NoGrad: []int{0},
		// ids: (I...), weight: (V, D) → (I..., D)
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if err := wantIndex(in[0], "ids"); err != nil {
				return nil, err
			}
			if len(in[1].Shape) != 2 {
				return nil, fmt.Errorf("weight has shape %v, want (V, D)", in[1].Shape)
			}
			return []Meta{{in[1].DType, append(in[0].Shape.Clone(), in[1].Shape[1])}}, nil
		},
		Ref: func(out, in []*T, a Attrs) {
			rows, _ := embeddingRows(in[0], in[1], a)
			gatherRows(out[0], in[1], rows, in[1].Shape()[1])
		},
		// scatter-add each output row's gradient into its id's row; the padding row gets none
		VJP: func(c *VJPCtx) []*T {
			w := c.In[1]
			v, d := w.Dims2()
			rows, pad := embeddingRows(c.In[0], w, c.Attrs)
			ix := make([]int64, len(rows))
			for i, r := range rows {
				if r < 0 {
					r = pad // masked out below
				}
				ix[i] = int64(r)
			}
			idx := BroadcastTo(tensor.FromSlice(ix, len(ix), 1), len(ix), d)
			dw := ScatterAdd(tensor.ZerosLike(w), idx, Reshape(c.G(0), len(ix), d), 0)
			if pad >= 0 {
				mask := tensor.Ones(w.DType(), v, 1)
				mask.SetAt(0, pad, 0)
				dw = Mul(dw, mask)
			}
			return []*T{nil, dw}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.FromSlice([]int64{1, 3, 1, -1, 2, 3}, 3, 2), rnd(r, 5, 3)}, Attrs{"padding_idx": 2}
		},
	})
	oneHotDef = define(&Def{
		Name: "one_hot", Export: exportOneHot, Arity: 1, NoGrad: []int{0},
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if err := wantIndex(in[0], "indices"); err != nil {
				return nil, err
			}
			d, err := tensor.ParseDType(a.Str("dtype", "float32"))
			if err != nil {
				return nil, err
			}
			if a.Int("depth", 0) <= 0 {
				return nil, fmt.Errorf("depth %d, want > 0", a.Int("depth", 0))
			}
			return []Meta{{d, append(in[0].Shape.Clone(), a.Int("depth", 0))}}, nil
		},
		Ref: func(out, in []*T, a Attrs) {
			depth := a.Int("depth", 0)
			v := make([]float64, out[0].Len())
			for i, id := range indexInts(in[0]) {
				if id < 0 {
					id += depth // ONNX OneHot: negative ids count from the end
				}
				if id >= 0 && id < depth {
					v[i*depth+id] = 1
				}
			}
			out[0].CopyFrom(tensor.FromSlice(v, out[0].Shape()...).Cast(out[0].DType()))
		},
	})
	shapeDef = define(&Def{
		Name: "shape", Export: copyAttrs(shapeAttrs), ONNX: "Shape", Arity: 1, NoGrad: []int{0},
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			lo, hi := shapeRange(len(in[0].Shape), a)
			return []Meta{{tensor.Int64, tensor.Shape{hi - lo}}}, nil
		},
		Ref: func(out, in []*T, a Attrs) {
			lo, hi := shapeRange(in[0].Rank(), a)
			for i, d := range in[0].Shape()[lo:hi] {
				out[0].I64()[i] = int64(d)
			}
		},
	})
	// ONNX ConstantOfShape and Range take tensors, but output shapes here come
	// from attributes only: the importer folds those (constant) inputs into attrs.
	constantOfShapeDef = define(&Def{
		Name: "constant_of_shape", Export: exportConstantOfShape, ONNX: "ConstantOfShape", Arity: 0,
		Infer: func(_ []Meta, a Attrs) ([]Meta, error) {
			d, err := tensor.ParseDType(a.Str("dtype", "float32"))
			if err != nil {
				return nil, err
			}
			s := tensor.Shape(a.Ints("shape", []int{}))
			for _, v := range s {
				if v < 0 {
					return nil, fmt.Errorf("negative dimension in shape %v", s)
				}
			}
			return []Meta{{d, s.Clone()}}, nil
		},
		Ref: func(out, _ []*T, a Attrs) { out[0].Fill(a.Float("value", 0)) },
	})
	rangeDef = define(&Def{
		Name: "range", Export: exportRange, ONNX: "Range", Arity: 0,
		Infer: func(_ []Meta, a Attrs) ([]Meta, error) {
			d, err := tensor.ParseDType(a.Str("dtype", "int64"))
			if err != nil {
				return nil, err
			}
			n, err := rangeLen(a)
			return []Meta{{d, tensor.Shape{n}}}, err
		},
		Ref: func(out, _ []*T, a Attrs) {
			start, delta := a.Float("start", 0), a.Float("delta", 1)
			v := make([]float64, out[0].Len())
			for i := range v {
				v[i] = start + float64(i)*delta
			}
			out[0].CopyFrom(tensor.FromSlice(v, len(v)).Cast(out[0].DType()))
		},
	})
}

var (
	gatherDef, gatherElementsDef, scatterAddDef  *Def
	segmentSumDef, segmentMeanDef, segmentMaxDef *Def
	embeddingDef, oneHotDef                      *Def
	shapeDef, constantOfShapeDef, rangeDef       *Def
)

func wantIndex(m Meta, name string) error {
	if m.DType != tensor.Int64 && m.DType != tensor.Int32 {
		return fmt.Errorf("%s are %v, want int64", name, m.DType)
	}
	return nil
}

// indexInts returns the values of an int64/int32 tensor as ints.
func indexInts(t *T) []int {
	out := make([]int, t.Len())
	switch t.DType() {
	case tensor.Int64:
		for i, v := range t.I64() {
			out[i] = int(v)
		}
	case tensor.Int32:
		for i, v := range t.I32() {
			out[i] = int(v)
		}
	default:
		panic(&ShapeError{Op: "index", Err: fmt.Errorf("indices are %v, want int64", t.DType())})
	}
	return out
}

// normIndex maps v in [-n, n) to [0, n), panicking with *ShapeError otherwise.
func normIndex(op string, v, n int) int {
	if v < 0 {
		v += n
	}
	if v < 0 || v >= n {
		panic(&ShapeError{Op: op, Err: fmt.Errorf("index %d out of range for an axis of size %d", v, n)})
	}
	return v
}

// gatherPlan views x as (A, K, B) around axis and resolves the indices into [0, K).
func gatherPlan(x tensor.Shape, idx *T, axis int, op string) (na, k, nb int, rows []int) {
	ax, _ := tensor.NormAxis(axis, len(x))
	k = x[ax]
	rows = indexInts(idx)
	for i, r := range rows {
		rows[i] = normIndex(op, r, k)
	}
	return x[:ax].NumElements(), k, x[ax+1:].NumElements(), rows
}

// elementsAxis checks the data/index/src metas of gather_elements and scatter_add.
func elementsAxis(data, idx, src Meta, a Attrs) (int, error) {
	if err := wantIndex(idx, "indices"); err != nil {
		return 0, err
	}
	axis, err := tensor.NormAxis(a.Int("axis", 0), len(data.Shape))
	if err != nil {
		return 0, err
	}
	if len(idx.Shape) != len(data.Shape) || !src.Shape.Equal(idx.Shape) {
		return 0, fmt.Errorf("indices %v (and src %v) want the rank of data %v and one shape", idx.Shape, src.Shape, data.Shape)
	}
	for d, n := range idx.Shape {
		if d != axis && n > data.Shape[d] {
			return 0, fmt.Errorf("indices %v exceed data %v on axis %d", idx.Shape, data.Shape, d)
		}
	}
	return axis, nil
}

// elementTargets returns, for each position p of idx, the flat index in data
// of p with p[axis] replaced by idx[p].
func elementTargets(data tensor.Shape, idx *T, axis int, op string) []int {
	axis, _ = tensor.NormAxis(axis, len(data))
	st := tensor.ContiguousStrides(data)
	ist := idx.Shape()
	vals := indexInts(idx)
	pos := make([]int, len(ist))
	for i, v := range vals {
		f := normIndex(op, v, data[axis]) * st[axis]
		for d, p := range pos {
			if d != axis {
				f += p * st[d]
			}
		}
		vals[i] = f
		for d := len(pos) - 1; d >= 0; d-- {
			if pos[d]++; pos[d] < ist[d] {
				break
			}
			pos[d] = 0
		}
	}
	return vals
}

// addRows adds row i of src into row rows[i] of dst (rows of w elements;
// rows[i] < 0 is skipped). Numeric dtypes only.
func addRows(dst, src *T, rows []int, w int) {
	switch dst.DType() {
	case tensor.Float32:
		addRowsOf(dst.F32(), src.F32(), rows, w)
	case tensor.Float64:
		addRowsOf(dst.F64(), src.F64(), rows, w)
	case tensor.Int64:
		addRowsOf(dst.I64(), src.I64(), rows, w)
	case tensor.Int32:
		addRowsOf(dst.I32(), src.I32(), rows, w)
	case tensor.Uint8:
		addRowsOf(dst.U8(), src.U8(), rows, w)
	case tensor.Int8:
		addRowsOf(dst.I8(), src.I8(), rows, w)
	default:
		panic("op: unsupported dtype " + dst.DType().String())
	}
}

func addRowsOf[E tensor.Num](dst, src []E, rows []int, w int) {
	for i, r := range rows {
		if r < 0 {
			continue
		}
		d, s := dst[r*w:(r+1)*w], src[i*w:(i+1)*w]
		for j := range d {
			d[j] += s[j]
		}
	}
}

// Segment reductions --------------------------------------------------------

// segmentInfer: data (N, ...), segment_ids (N) → (num_segments, ...).
func segmentInfer(floatOnly bool) func(in []Meta, a Attrs) ([]Meta, error) {
	return func(in []Meta, a Attrs) ([]Meta, error) {
		if err := wantIndex(in[1], "segment_ids"); err != nil {
			return nil, err
		}
		x := in[0].Shape
		if len(x) == 0 || len(in[1].Shape) != 1 || in[1].Shape[0] != x[0] {
			return nil, fmt.Errorf("data %v and segment_ids %v: want (N, ...) and (N)", x, in[1].Shape)
		}
		if in[0].DType == tensor.Bool || floatOnly && !in[0].DType.IsFloat() {
			return nil, fmt.Errorf("data is %v, want a numeric (float) dtype", in[0].DType)
		}
		s := a.Int("num_segments", -1)
		if s < 0 {
			return nil, fmt.Errorf("want attribute num_segments >= 0")
		}
		return []Meta{{in[0].DType, append(tensor.Shape{s}, x[1:]...)}}, nil
	}
}

// segmentRows returns each row's segment; ids outside [0, num_segments) give -1 (dropped).
func segmentRows(ids *T, a Attrs) []int {
	s := a.Int("num_segments", 0)
	rows := indexInts(ids)
	for i, r := range rows {
		if r < 0 || r >= s {
			rows[i] = -1
		}
	}
	return rows
}

// segmentCounts returns the rows per segment, at least 1, shaped to broadcast against like.
func segmentCounts(ids *T, a Attrs, like *T) *T {
	s := a.Int("num_segments", 0)
	cnt := make([]float64, s)
	for _, r := range segmentRows(ids, a) {
		if r >= 0 {
			cnt[r]++
		}
	}
	for i := range cnt {
		cnt[i] = max(cnt[i], 1)
	}
	shape := make([]int, like.Rank())
	for i := range shape {
		shape[i] = 1
	}
	shape[0] = s
	return tensor.FromSlice(cnt, shape...).Cast(like.DType())
}

// segmentGather sends each segment's gradient g (S, ...) back to its rows;
// rows whose id was dropped get zeros (they read an appended zero row).
func segmentGather(g, ids *T, a Attrs) *T {
	s := a.Int("num_segments", 0)
	rows := segmentRows(ids, a)
	ix := make([]int64, len(rows))
	dropped := false
	for i, r := range rows {
		ix[i] = int64(r)
		if r < 0 {
			ix[i], dropped = int64(s), true
		}
	}
	if dropped {
		zero := g.Shape().Clone()
		zero[0] = 1
		g = Concat(0, g, tensor.New(g.DType(), zero...))
	}
	return Gather(g, tensor.FromSlice(ix, len(ix)), 0)
}

func segmentSample(r *rand.Rand) ([]*T, Attrs) {
	// segment 1 is empty, id 7 is dropped
	return []*T{rnd(r, 7, 2), tensor.FromSlice([]int64{0, 2, 0, 3, 2, 0, 7}, 7)}, Attrs{"num_segments": 4}
}

func segmentMaxRef(out, in []*T, a Attrs) {
	rows := segmentRows(in[1], a)
	w := in[0].Shape()[1:].NumElements()
	arg := out[1].I64()
	for i := range arg {
		arg[i] = -1
	}
	switch in[0].DType() {
	case tensor.Float32:
		segmentMaxOf(out[0].F32(), arg, in[0].F32(), rows, w)
	case tensor.Float64:
		segmentMaxOf(out[0].F64(), arg, in[0].F64(), rows, w)
	case tensor.Int64:
		segmentMaxOf(out[0].I64(), arg, in[0].I64(), rows, w)
	case tensor.Int32:
		segmentMaxOf(out[0].I32(), arg, in[0].I32(), rows, w)
	case tensor.Uint8:
		segmentMaxOf(out[0].U8(), arg, in[0].U8(), rows, w)
	case tensor.Int8:
		segmentMaxOf(out[0].I8(), arg, in[0].I8(), rows, w)
	}
}

func segmentMaxOf[E tensor.Num](out []E, arg []int64, data []E, rows []int, w int) {
	for n, s := range rows {
		if s < 0 {
			continue
		}
		for j := range w {
			o, v := s*w+j, data[n*w+j]
			if arg[o] < 0 || v > out[o] {
				out[o], arg[o] = v, int64(n)
			}
		}
	}
}

// embeddingRows resolves ids against weight's V rows; padding ids give -1.
// It also returns the padding row (-1 if none).
func embeddingRows(ids, w *T, a Attrs) ([]int, int) {
	v := w.Shape()[0]
	pad := -1
	if _, ok := a["padding_idx"]; ok && a["padding_idx"] != nil {
		pad = normIndex("embedding", a.Int("padding_idx", 0), v)
	}
	rows := indexInts(ids)
	for i, r := range rows {
		if rows[i] = normIndex("embedding", r, v); rows[i] == pad {
			rows[i] = -1
		}
	}
	return rows, pad
}

// shapeRange resolves ONNX Shape's start/end (clamped, negative from the end).
func shapeRange(r int, a Attrs) (int, int) {
	lo, hi := a.Int("start", 0), a.Int("end", r)
	if lo < 0 {
		lo += r
	}
	if hi < 0 {
		hi += r
	}
	lo, hi = min(max(lo, 0), r), min(max(hi, 0), r)
	return lo, max(hi, lo)
}

func rangeLen(a Attrs) (int, error) {
	start, limit, delta := a.Float("start", 0), a.Float("limit", 0), a.Float("delta", 1)
	if delta == 0 {
		return 0, fmt.Errorf("delta is 0")
	}
	return max(int(math.Ceil((limit-start)/delta)), 0), nil
}

// Gather takes x's slices at idx along axis (ONNX Gather): x (A..., K, B...),
// idx (I...) int64 in [-K, K) → (A..., I..., B...).
func Gather(x, idx *T, axis int) *T { return call1(gatherDef, Attrs{"axis": axis}, x, idx) }

// IndexSelect is Gather with 1-D indices (paddle.index_select); the output keeps x's rank.
func IndexSelect(x, idx *T, axis int) *T {
	if idx.Rank() != 1 {
		panic(&ShapeError{Op: "index_select", Err: fmt.Errorf("index has shape %v, want 1-D", idx.Shape())})
	}
	return Gather(x, idx, axis)
}

// GatherElements picks out[p] = x[p with p[axis] = idx[p]] (ONNX GatherElements, torch.gather).
func GatherElements(x, idx *T, axis int) *T {
	return call1(gatherElementsDef, Attrs{"axis": axis}, x, idx)
}

// ScatterAdd returns x with src[p] added at x[p with p[axis] = idx[p]]
// (torch.scatter_add; ONNX ScatterElements with reduction "add"). idx and src share a shape.
func ScatterAdd(x, idx, src *T, axis int) *T {
	return call1(scatterAddDef, Attrs{"axis": axis}, x, idx, src)
}

// SegmentSum adds the rows of data (N, ...) that share a segment id (N) into
// (numSegments, ...); ids outside [0, numSegments) are dropped, ids need not be sorted.
func SegmentSum(data, ids *T, numSegments int) *T {
	return call1(segmentSumDef, Attrs{"num_segments": numSegments}, data, ids)
}

// SegmentMean averages the rows of each segment (empty segments give 0).
func SegmentMean(data, ids *T, numSegments int) *T {
	return call1(segmentMeanDef, Attrs{"num_segments": numSegments}, data, ids)
}

// SegmentMax takes the row-wise maximum of each segment (empty segments give 0)
// and returns it with the int64 row that held it (-1 for empty segments).
func SegmentMax(data, ids *T, numSegments int) (*T, *T) {
	o := Call(segmentMaxDef, Attrs{"num_segments": numSegments}, data, ids)
	return o[0], o[1]
}

// Embedding looks up rows of weight (V, D) for ids (I...) → (I..., D). A
// paddingIdx in [-V, V) gives zero rows and no gradient to that row (Paddle's
// padding_idx); pass nil for none.
func Embedding(ids, weight *T, paddingIdx *int) *T {
	a := Attrs{}
	if paddingIdx != nil {
		a["padding_idx"] = *paddingIdx
	}
	return call1(embeddingDef, a, ids, weight)
}

// OneHot returns (I..., depth) of dtype d with a 1 at each id (negative ids
// count from depth; others out of range give a zero row). No gradient.
func OneHot(ids *T, depth int, d tensor.DType) *T {
	return call1(oneHotDef, Attrs{"depth": depth, "dtype": d.String()}, ids)
}

// ShapeOf returns x's shape as a 1-D int64 tensor (ONNX Shape).
func ShapeOf(x *T) *T { return call1(shapeDef, nil, x) }

// ConstantOfShape returns a tensor of the given shape and dtype filled with value.
func ConstantOfShape(shape []int, value float64, d tensor.DType) *T {
	return call1(constantOfShapeDef, Attrs{"shape": append([]int{}, shape...), "value": value, "dtype": d.String()})
}

// Range returns start, start+delta, ... while < limit (> limit for negative
// delta), as dtype d: ceil((limit-start)/delta) elements (ONNX Range).
func Range(start, limit, delta float64, d tensor.DType) *T {
	return call1(rangeDef, Attrs{"start": start, "limit": limit, "delta": delta, "dtype": d.String()})
}
