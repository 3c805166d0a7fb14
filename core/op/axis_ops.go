package op

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// Single-axis ops: argmax, argmin (int64 output), topk (values and int64
// indices), cumsum. Each views its input as (outer, n, inner) around "axis".

// argK writes the index of the max (min) along n for every (outer, inner)
// position: the first one among ties, or the last when last is set (ONNX
// select_last_index).
func argK[E tensor.Num](y []int64, x []E, outer, n, inner int, isMin, last bool) {
	parallel.For(outer, rowGrain(n, inner), func(lo, hi int) {
		best := make([]E, inner)
		for o := lo; o < hi; o++ {
			xb, yo := x[o*n*inner:(o+1)*n*inner], y[o*inner:(o+1)*inner]
			copy(best, xb[:inner])
			clear(yo)
			for j := 1; j < n; j++ {
				for i, v := range xb[j*inner : (j+1)*inner] {
					better := v > best[i]
					if isMin {
						better = v < best[i]
					}
					if better || (last && v == best[i]) {
						best[i], yo[i] = v, int64(j)
					}
				}
			}
		}
	})
}

// topkK writes the k largest (smallest) values along n, sorted, and their indices.
func topkK[E tensor.Num](vals []E, idxs []int64, x []E, outer, n, inner, k int, largest bool) {
	parallel.For(outer, rowGrain(n, inner), func(lo, hi int) {
		line := make([]int64, n)
		for o := lo; o < hi; o++ {
			xb := x[o*n*inner : (o+1)*n*inner]
			for i := range inner {
				for j := range line {
					line[j] = int64(j)
				}
				sortLine(line, func(p int64) E { return xb[int(p)*inner+i] }, largest)
				for j, p := range line[:k] {
					at := (o*k+j)*inner + i
					vals[at], idxs[at] = xb[int(p)*inner+i], p
				}
			}
		}
	})
}

// scatterK adds g (outer, k, inner) into dx (outer, n, inner) at the indices along the middle axis.
func scatterK[E fl](dx, g []E, idx []int64, outer, n, inner, k int) {
	for o := range outer {
		for j := range k {
			for i := range inner {
				at := (o*k+j)*inner + i
				dx[(o*n+int(idx[at]))*inner+i] += g[at]
			}
		}
	}
}

// cumsumK writes running sums along n, inclusive or exclusive, forward or reversed.
func cumsumK[E tensor.Num](y, x []E, outer, n, inner int, excl, rev bool) {
	parallel.For(outer, rowGrain(n, inner), func(lo, hi int) {
		acc := make([]E, inner)
		for o := lo; o < hi; o++ {
			clear(acc)
			for s := range n {
				j := s
				if rev {
					j = n - 1 - s
				}
				xr, yr := x[(o*n+j)*inner:(o*n+j+1)*inner], y[(o*n+j)*inner:(o*n+j+1)*inner]
				for i, v := range xr {
					if excl {
						yr[i] = acc[i]
						acc[i] += v
					} else {
						acc[i] += v
						yr[i] = acc[i]
					}
				}
			}
		}
	})
}

// axisOf resolves attribute "axis" (default def) against x's rank and views x as (outer, n, inner).
func axisOf(x *T, a Attrs, def int) (ax, outer, n, inner int) {
	ax, _ = tensor.NormAxis(a.Int("axis", def), x.Rank())
	outer, n, inner = axisDims(x.Shape(), ax)
	return
}

func numericAxisInfer(in []Meta, a Attrs, def int) (int, error) {
	if in[0].DType == tensor.Bool {
		return 0, fmt.Errorf("want a numeric input, got bool")
	}
	return tensor.NormAxis(a.Int("axis", def), len(in[0].Shape))
}

func argInfer(in []Meta, a Attrs) ([]Meta, error) {
	ax, err := numericAxisInfer(in, a, 0)
	if err != nil {
		return nil, err
	}
	if in[0].Shape[ax] == 0 {
		return nil, fmt.Errorf("argmax/argmin over empty axis %d of %v", ax, in[0].Shape)
	}
	s, _ := reduceShape(in[0].Shape, []int{ax}, a.Bool("keepdims", false))
	return []Meta{{tensor.Int64, s}}, nil
}

func argRef(isMin bool) func(out, in []*T, a Attrs) {
	return func(out, in []*T, a Attrs) {
		x, y, last := in[0], out[0].I64(), a.Bool("select_last_index", false)
		_, o, n, i := axisOf(x, a, 0)
		switch x.DType() {
		case tensor.Float32:
			argK(y, x.F32(), o, n, i, isMin, last)
		case tensor.Float64:
			argK(y, x.F64(), o, n, i, isMin, last)
		case tensor.Int64:
			argK(y, x.I64(), o, n, i, isMin, last)
		case tensor.Int32:
			argK(y, x.I32(), o, n, i, isMin, last)
		case tensor.Uint8:
			argK(y, x.U8(), o, n, i, isMin, last)
		case tensor.Int8:
			argK(y, x.I8(), o, n, i, isMin, last)
		}
	}
}

func topkRef(out, in []*T, a Attrs) {
	x, idx, k, lg := in[0], out[1].I64(), a.Int("k", 1), a.Bool("largest", true)
	_, o, n, i := axisOf(x, a, -1)
	switch x.DType() {
	case tensor.Float32:
		topkK(out[0].F32(), idx, x.F32(), o, n, i, k, lg)
	case tensor.Float64:
		topkK(out[0].F64(), idx, x.F64(), o, n, i, k, lg)
	case tensor.Int64:
		topkK(out[0].I64(), idx, x.I64(), o, n, i, k, lg)
	case tensor.Int32:
		topkK(out[0].I32(), idx, x.I32(), o, n, i, k, lg)
	case tensor.Uint8:
		topkK(out[0].U8(), idx, x.U8(), o, n, i, k, lg)
	case tensor.Int8:
		topkK(out[0].I8(), idx, x.I8(), o, n, i, k, lg)
	}
}

func cumsumRef(out, in []*T, a Attrs) {
	x, y := in[0], out[0]
	if x.Len() == 0 {
		return
	}
	ex, rev := a.Bool("exclusive", false), a.Bool("reverse", false)
	_, o, n, i := axisOf(x, a, 0)
	switch x.DType() {
	case tensor.Float32:
		cumsumK(y.F32(), x.F32(), o, n, i, ex, rev)
	case tensor.Float64:
		cumsumK(y.F64(), x.F64(), o, n, i, ex, rev)
	case tensor.Int64:
		cumsumK(y.I64(), x.I64(), o, n, i, ex, rev)
	case tensor.Int32:
		cumsumK(y.I32(), x.I32(), o, n, i, ex, rev)
	case tensor.Uint8:
		cumsumK(y.U8(), x.U8(), o, n, i, ex, rev)
	case tensor.Int8:
		cumsumK(y.I8(), x.I8(), o, n, i, ex, rev)
	}
}

// ArgMax returns the int64 index of the largest element along axis (the first among ties).
func ArgMax(x *T, axis int, keepdims bool) *T {
	return call1(argmaxDef, Attrs{"axis": axis, "keepdims": keepdims}, x)
}

// ArgMin returns the int64 index of the smallest element along axis (the first among ties).
func ArgMin(x *T, axis int, keepdims bool) *T {
	return call1(argminDef, Attrs{"axis": axis, "keepdims": keepdims}, x)
}

// TopK returns the k largest (or smallest) elements along axis, sorted, and
// their int64 indices; equal values keep their index order. (The primitive's
// "sorted" attribute is accepted, but the output is always sorted, which
// ONNX allows for sorted=0.)
func TopK(x *T, k, axis int, largest bool) (values, indices *T) {
	o := Call(topkDef, Attrs{"k": k, "axis": axis, "largest": largest, "sorted": true}, x)
	return o[0], o[1]
}

// Cumsum returns running sums along axis; exclusive leaves out the element
// itself, reverse sums from the end.
func Cumsum(x *T, axis int, exclusive, reverse bool) *T {
	return call1(cumsumDef, Attrs{"axis": axis, "exclusive": exclusive, "reverse": reverse}, x)
}

var argmaxDef, argminDef, topkDef, cumsumDef *Def

func defineAxisOps() {
	argmaxDef = define(&Def{Name: "argmax", Export: exportArg, ONNX: "ArgMax", Arity: 1, Infer: argInfer, Ref: argRef(false), NoGrad: []int{0}})
	argminDef = define(&Def{Name: "argmin", Export: exportArg, ONNX: "ArgMin", Arity: 1, Infer: argInfer, Ref: argRef(true), NoGrad: []int{0}})
	topkDef = define(&Def{
		Name: "topk", Export: exportTopK, ONNX: "TopK", Arity: 1,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			ax, err := numericAxisInfer(in, a, -1)
			if err != nil {
				return nil, err
			}
			k := a.Int("k", 1)
			if k < 0 || k > in[0].Shape[ax] {
				return nil, fmt.Errorf("k = %d out of range for axis %d of %v", k, ax, in[0].Shape)
			}
			s := in[0].Shape.Clone()
			s[ax] = k
			return []Meta{{in[0].DType, s}, {tensor.Int64, s.Clone()}}, nil
		},
		Ref: topkRef,
		// each selected element receives its value's gradient
		VJP: func(c *VJPCtx) []*T {
			x := c.In[0]
			if !x.DType().IsFloat() {
				return []*T{nil}
			}
			_, o, n, i := axisOf(x, c.Attrs, -1)
			k, g, idx := c.Attrs.Int("k", 1), c.G(0).Contiguous(), c.Out[1].I64()
			dx := tensor.New(x.DType(), x.Shape()...)
			if x.DType() == tensor.Float32 {
				scatterK(dx.F32(), g.F32(), idx, o, n, i, k)
			} else {
				scatterK(dx.F64(), g.F64(), idx, o, n, i, k)
			}
			return []*T{dx}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 5, 3)}, Attrs{"k": 2, "axis": 1, "largest": true}
		},
	})
	cumsumDef = define(&Def{
		Name: "cumsum", Export: exportCumSum, ONNX: "CumSum", Arity: 1,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if _, err := numericAxisInfer(in, a, 0); err != nil {
				return nil, err
			}
			return []Meta{in[0]}, nil
		},
		Ref: cumsumRef,
		// each input feeds the sums after it (before it, when reversed)
		VJP: func(c *VJPCtx) []*T {
			if !c.In[0].DType().IsFloat() {
				return []*T{nil}
			}
			return []*T{call1(cumsumDef, c.Attrs.With("reverse", !c.Attrs.Bool("reverse", false)), c.G(0))}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 4, 3)}, Attrs{"axis": 1, "exclusive": true}
		},
	})
}
