package op

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// More reductions over "axes" (nil = all) with "keepdims": max, min, prod,
// reduce_l2; and the single-axis ops argmax, argmin, topk, cumsum.
//
// Kernels see their input as (outer, k, inner) with k the reduced extent;
// reduceLayout makes a transposed copy only when the reduced axes are not adjacent.

// reduceLayout arranges x as (outer, k, inner) with the reduced axes in the
// middle. It returns a view when the axes are adjacent; otherwise a contiguous
// copy with the kept axes first (in order), the reduced ones last, and perm
// the permutation used.
func reduceLayout(x *T, axes []int) (y *T, outer, k, inner int, perm []int) {
	s := x.Shape()
	if len(axes) == 0 {
		return x, 1, 1, s.NumElements(), nil
	}
	if axes[len(axes)-1]-axes[0] == len(axes)-1 {
		outer, k, inner = 1, 1, 1
		for i, d := range s {
			switch {
			case i < axes[0]:
				outer *= d
			case i > axes[len(axes)-1]:
				inner *= d
			default:
				k *= d
			}
		}
		return x, outer, k, inner, nil
	}
	red := make([]bool, len(s))
	for _, a := range axes {
		red[a] = true
	}
	outer, k = 1, 1
	for i, d := range s {
		if !red[i] {
			perm = append(perm, i)
			outer *= d
		}
	}
	for i, d := range s {
		if red[i] {
			perm = append(perm, i)
			k *= d
		}
	}
	return x.Transpose(perm...).Contiguous(), outer, k, 1, perm
}

// fromLayout undoes reduceLayout's permutation on a tensor of the layout's size.
func fromLayout(t *T, x *T, perm []int) *T {
	if perm == nil {
		return t.Reshape(x.Shape()...)
	}
	ps := make([]int, len(perm))
	inv := make([]int, len(perm))
	for i, p := range perm {
		ps[i] = x.Shape()[p]
		inv[p] = i
	}
	return t.Reshape(ps...).Transpose(inv...).Contiguous()
}

// extremeK writes the max (or min) over k of x (outer, k, inner) into y (outer, inner).
func extremeK[E tensor.Num](y, x []E, outer, k, inner int, isMin bool) {
	parallel.For(outer, rowGrain(k, inner), func(lo, hi int) {
		for o := lo; o < hi; o++ {
			yo, xb := y[o*inner:(o+1)*inner], x[o*k*inner:(o+1)*k*inner]
			copy(yo, xb[:inner])
			for j := 1; j < k; j++ {
				row := xb[j*inner : (j+1)*inner]
				if isMin {
					for i, v := range row {
						yo[i] = min(yo[i], v)
					}
				} else {
					for i, v := range row {
						yo[i] = max(yo[i], v)
					}
				}
			}
		}
	})
}

// prodL2K writes the product (or the L2 norm) over k, accumulating in float64.
func prodL2K[E fl](y, x []E, outer, k, inner int, l2 bool) {
	parallel.For(outer, rowGrain(k, inner), func(lo, hi int) {
		acc := make([]float64, inner)
		for o := lo; o < hi; o++ {
			xb := x[o*k*inner : (o+1)*k*inner]
			for i := range acc {
				acc[i] = 1
				if l2 {
					acc[i] = 0
				}
			}
			for j := range k {
				row := xb[j*inner : (j+1)*inner]
				if l2 {
					for i, v := range row {
						acc[i] += float64(v) * float64(v)
					}
				} else {
					for i, v := range row {
						acc[i] *= float64(v)
					}
				}
			}
			for i, v := range acc {
				if l2 {
					v = math.Sqrt(v)
				}
				y[o*inner+i] = E(v)
			}
		}
	})
}

const (
	redMax = iota
	redMin
	redProd
	redL2
)

func reduceMoreRef(kind int) func(out, in []*T, a Attrs) {
	return func(out, in []*T, a Attrs) {
		axes, _ := normAxes(a, in[0].Rank())
		x, o, k, i, _ := reduceLayout(in[0], axes)
		y := out[0]
		if y.Len() == 0 {
			return
		}
		if kind == redProd || kind == redL2 {
			if y.DType() == tensor.Float32 {
				prodL2K(y.F32(), x.F32(), o, k, i, kind == redL2)
			} else {
				prodL2K(y.F64(), x.F64(), o, k, i, kind == redL2)
			}
			return
		}
		isMin := kind == redMin
		switch y.DType() {
		case tensor.Float32:
			extremeK(y.F32(), x.F32(), o, k, i, isMin)
		case tensor.Float64:
			extremeK(y.F64(), x.F64(), o, k, i, isMin)
		case tensor.Int64:
			extremeK(y.I64(), x.I64(), o, k, i, isMin)
		case tensor.Int32:
			extremeK(y.I32(), x.I32(), o, k, i, isMin)
		case tensor.Uint8:
			extremeK(y.U8(), x.U8(), o, k, i, isMin)
		case tensor.Int8:
			extremeK(y.I8(), x.I8(), o, k, i, isMin)
		}
	}
}

// reduceMoreInfer is reduceInfer that refuses bool, empty reduced axes for
// max/min, and non-float inputs for prod and reduce_l2.
func reduceMoreInfer(floatOnly bool) func(in []Meta, a Attrs) ([]Meta, error) {
	return func(in []Meta, a Attrs) ([]Meta, error) {
		if in[0].DType == tensor.Bool || (floatOnly && !in[0].DType.IsFloat()) {
			return nil, fmt.Errorf("input is %v, want a %s input", in[0].DType, map[bool]string{true: "float", false: "numeric"}[floatOnly])
		}
		axes, err := normAxes(a, len(in[0].Shape))
		if err != nil {
			return nil, err
		}
		if !floatOnly {
			for _, ax := range axes {
				if in[0].Shape[ax] == 0 {
					return nil, fmt.Errorf("reducing empty axis %d of %v", ax, in[0].Shape)
				}
			}
		}
		return reduceInfer(in, a)
	}
}

// gradBack reshapes a reduced gradient (or value) to keepdims form and broadcasts it to x.
func gradBack(g *T, x *T, a Attrs) *T {
	return BroadcastTo(Reshape(g, keptShape(x.Shape(), a)...), x.Shape()...)
}

// extremeVJP splits the gradient evenly among the positions equal to the
// max (min), as torch.amax does; without ties it all goes to the argmax.
func extremeVJP(c *VJPCtx) []*T {
	x := c.In[0]
	if !x.DType().IsFloat() {
		return []*T{nil}
	}
	mask := Cast(Equal(x, gradBack(c.Out[0], x, c.Attrs)), x.DType())
	cnt := Sum(mask, c.Attrs.Ints("axes", nil), true)
	g := Div(Reshape(c.G(0), keptShape(x.Shape(), c.Attrs)...), cnt)
	return []*T{Mul(mask, BroadcastTo(g, x.Shape()...))}
}

// prodGradK writes, for each line along k, the product of the other elements
// (prefix times suffix products, so zeros are handled exactly).
func prodGradK[E fl](dx, x []E, outer, k, inner int) {
	for o := range outer {
		base := o * k * inner
		for i := range inner {
			p := 1.0
			for j := range k {
				dx[base+j*inner+i] = E(p)
				p *= float64(x[base+j*inner+i])
			}
			p = 1
			for j := k - 1; j >= 0; j-- {
				dx[base+j*inner+i] *= E(p)
				p *= float64(x[base+j*inner+i])
			}
		}
	}
}

func prodVJP(c *VJPCtx) []*T {
	x0 := c.In[0]
	axes, _ := normAxes(c.Attrs, x0.Rank())
	x, o, k, i, perm := reduceLayout(x0, axes)
	others := tensor.New(x.DType(), x.Shape()...)
	if x.DType() == tensor.Float32 {
		prodGradK(others.F32(), x.F32(), o, k, i)
	} else {
		prodGradK(others.F64(), x.F64(), o, k, i)
	}
	return []*T{Mul(fromLayout(others, x0, perm), gradBack(c.G(0), x0, c.Attrs))}
}

// d‖x‖ = x/‖x‖ (0 where the norm is 0)
func l2VJP(c *VJPCtx) []*T {
	x, y := c.In[0], c.Out[0]
	safe := Where(Equal(y, ScalarLike(y, 0)), ScalarLike(y, 1), y)
	return []*T{Mul(x, gradBack(Div(c.G(0), safe), x, c.Attrs))}
}

// Max returns the largest element of x over axes (nil = all). Its gradient is
// split evenly among tied maxima (as torch.amax).
func Max(x *T, axes []int, keepdims bool) *T {
	return call1(maxDef, Attrs{"axes": axes, "keepdims": keepdims}, x)
}

// Min returns the smallest element of x over axes (nil = all); tied minima
// share the gradient evenly.
func Min(x *T, axes []int, keepdims bool) *T {
	return call1(minDef, Attrs{"axes": axes, "keepdims": keepdims}, x)
}

// Prod multiplies x over axes (nil = all).
func Prod(x *T, axes []int, keepdims bool) *T {
	return call1(prodDef, Attrs{"axes": axes, "keepdims": keepdims}, x)
}

// ReduceL2 returns the Euclidean norm √Σx² over axes (nil = all).
func ReduceL2(x *T, axes []int, keepdims bool) *T {
	return call1(reduceL2Def, Attrs{"axes": axes, "keepdims": keepdims}, x)
}

var maxDef, minDef, prodDef, reduceL2Def *Def

func init() {
	sample := func(keep bool, axes ...int) func(r *rand.Rand) ([]*T, Attrs) {
		return func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, 0.5, 1.5, 2, 3, 4)}, Attrs{"axes": axes, "keepdims": keep}
		}
	}
	maxDef = define(&Def{Name: "max", Export: exportReduce, ONNX: "ReduceMax", Arity: 1, Infer: reduceMoreInfer(false),
		Ref: reduceMoreRef(redMax), VJP: extremeVJP, Sample: sample(false, 0, 2)})
	minDef = define(&Def{Name: "min", Export: exportReduce, ONNX: "ReduceMin", Arity: 1, Infer: reduceMoreInfer(false),
		Ref: reduceMoreRef(redMin), VJP: extremeVJP, Sample: sample(true, 1)})
	prodDef = define(&Def{Name: "prod", Export: exportReduce, ONNX: "ReduceProd", Arity: 1, Infer: reduceMoreInfer(true),
		Ref: reduceMoreRef(redProd), VJP: prodVJP, Sample: sample(false, 0, 2)})
	reduceL2Def = define(&Def{Name: "reduce_l2", Export: exportReduce, ONNX: "ReduceL2", Arity: 1, Infer: reduceMoreInfer(true),
		Ref: reduceMoreRef(redL2), VJP: l2VJP, Sample: sample(true, 1, 2)})
	defineAxisOps()
}

// sortLine orders idx (positions along one line) by value, largest or
// smallest first, lower index first among equal values (as ONNX TopK).
func sortLine[E tensor.Num](idx []int64, at func(int64) E, largest bool) {
	slices.SortFunc(idx, func(p, q int64) int {
		c := cmp.Compare(at(p), at(q))
		if largest {
			c = -c
		}
		if c != 0 {
			return c
		}
		return cmp.Compare(p, q)
	})
}
