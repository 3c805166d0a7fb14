package ag

import (
	"fmt"

	"paddle/core/op"
)

// Differentiable wrappers of the movement and indexing primitives
// (core/op/shape_ops.go, core/op/index.go). Index inputs are int64 Vars,
// usually Const; they never receive a gradient.

// Concat joins xs along axis (negative counts from the end).
func Concat(axis int, xs ...*Var) *Var { return apply1("concat", op.Attrs{"axis": axis}, xs...) }

// Split cuts x along axis into pieces of the given sizes.
func Split(x *Var, axis int, sizes ...int) []*Var {
	return Apply(op.Lookup("split"), op.Attrs{"axis": axis, "sizes": append([]int(nil), sizes...)}, x)
}

// Stack joins xs (one shape) along a new axis in [-r-1, r]. Composite: unsqueeze + concat.
func Stack(axis int, xs ...*Var) *Var {
	if len(xs) == 0 {
		panic(&op.ShapeError{Op: "stack", Err: fmt.Errorf("want at least one input")})
	}
	if axis < 0 {
		axis += len(xs[0].Shape()) + 1
	}
	us := make([]*Var, len(xs))
	for i, x := range xs {
		us[i] = Unsqueeze(x, axis)
	}
	return Concat(axis, us...)
}

// Slice takes x[starts:ends:steps] on axes with ONNX Slice semantics (see op.Slice).
func Slice(x *Var, starts, ends, axes, steps []int) *Var {
	return apply1("slice", op.Attrs{"starts": starts, "ends": ends, "axes": axes, "steps": steps}, x)
}

// Pad pads x with ONNX Pad semantics (see op.Pad): pads = begins then ends,
// mode constant (value), reflect, edge or wrap.
func Pad(x *Var, pads []int, mode string, value float64) *Var {
	return apply1("pad", op.Attrs{"pads": pads, "mode": mode, "value": value}, x)
}

// Squeeze drops the given size-1 axes (none given: all of them).
func Squeeze(x *Var, axes ...int) *Var {
	var a []int
	if len(axes) > 0 {
		a = append(a, axes...)
	}
	return apply1("squeeze", op.Attrs{"axes": a}, x)
}

// Unsqueeze inserts size-1 axes at the given output positions.
func Unsqueeze(x *Var, axes ...int) *Var {
	return apply1("unsqueeze", op.Attrs{"axes": append([]int(nil), axes...)}, x)
}

// Flatten reshapes x to (prod(dims[:axis]), prod(dims[axis:])).
func Flatten(x *Var, axis int) *Var { return apply1("flatten", op.Attrs{"axis": axis}, x) }

// Tile repeats x repeats[i] times along each axis i.
func Tile(x *Var, repeats ...int) *Var {
	return apply1("tile", op.Attrs{"repeats": append([]int(nil), repeats...)}, x)
}

// Gather takes x's slices at idx along axis (ONNX Gather): (A..., K, B...) → (A..., I..., B...).
func Gather(x, idx *Var, axis int) *Var { return apply1("gather", op.Attrs{"axis": axis}, x, idx) }

// IndexSelect is Gather with 1-D indices.
func IndexSelect(x, idx *Var, axis int) *Var {
	if len(idx.Shape()) != 1 {
		panic(&op.ShapeError{Op: "index_select", Err: fmt.Errorf("index has shape %v, want 1-D", idx.Shape())})
	}
	return Gather(x, idx, axis)
}

// GatherElements picks out[p] = x[p with p[axis] = idx[p]] (torch.gather).
func GatherElements(x, idx *Var, axis int) *Var {
	return apply1("gather_elements", op.Attrs{"axis": axis}, x, idx)
}

// ScatterAdd returns x with src[p] added at x[p with p[axis] = idx[p]].
func ScatterAdd(x, idx, src *Var, axis int) *Var {
	return apply1("scatter_add", op.Attrs{"axis": axis}, x, idx, src)
}

// SegmentSum adds the rows of data (N, ...) sharing a segment id (N) → (numSegments, ...).
func SegmentSum(data, ids *Var, numSegments int) *Var {
	return apply1("segment_sum", op.Attrs{"num_segments": numSegments}, data, ids)
}

// SegmentMean averages the rows of each segment (empty segments give 0).
func SegmentMean(data, ids *Var, numSegments int) *Var {
	return apply1("segment_mean", op.Attrs{"num_segments": numSegments}, data, ids)
}

// SegmentMax takes each segment's row-wise maximum (empty segments give 0);
// the gradient goes to the row that held it.
func SegmentMax(data, ids *Var, numSegments int) *Var {
	return apply1("segment_max", op.Attrs{"num_segments": numSegments}, data, ids)
}

// Embedding looks up rows of weight (V, D) for int64 ids (I...) → (I..., D).
// paddingIdx (nil: none) gives zero rows and no gradient to that row.
func Embedding(ids, weight *Var, paddingIdx *int) *Var {
	a := op.Attrs{}
	if paddingIdx != nil {
		a["padding_idx"] = *paddingIdx
	}
	return apply1("embedding", a, ids, weight)
}
