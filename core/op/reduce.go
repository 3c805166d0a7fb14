package op

import (
	"math/rand/v2"

	"paddle/core/tensor"
)

// Reductions over attribute "axes" ([]int, nil = all) with "keepdims" (bool).

// reduceShape returns the output shape and, for each input axis, whether it is reduced.
func reduceShape(s tensor.Shape, axes []int, keep bool) (tensor.Shape, []bool) {
	red := make([]bool, len(s))
	for _, a := range axes {
		red[a] = true
	}
	var out tensor.Shape
	for i, d := range s {
		switch {
		case !red[i]:
			out = append(out, d)
		case keep:
			out = append(out, 1)
		}
	}
	if out == nil {
		out = tensor.Shape{}
	}
	return out, red
}

func reduceInfer(in []Meta, a Attrs) ([]Meta, error) {
	axes, err := normAxes(a, len(in[0].Shape))
	if err != nil {
		return nil, err
	}
	s, _ := reduceShape(in[0].Shape, axes, a.Bool("keepdims", false))
	return []Meta{{in[0].DType, s}}, nil
}

// reduceIndex maps each input flat index to its output flat index.
func reduceIndex(s tensor.Shape, red []bool, f func(in, out int)) {
	// output strides over the kept axes (reduced axes get stride 0)
	ost := make([]int, len(s))
	acc := 1
	for i := len(s) - 1; i >= 0; i-- {
		if !red[i] {
			ost[i] = acc
			acc *= s[i]
		}
	}
	n := s.NumElements()
	idx := make([]int, len(s))
	o := 0
	for i := range n {
		f(i, o)
		for ax := len(s) - 1; ax >= 0; ax-- {
			idx[ax]++
			o += ost[ax]
			if idx[ax] < s[ax] {
				break
			}
			o -= idx[ax] * ost[ax]
			idx[ax] = 0
		}
	}
}

func sumRef(out, in []*T, a Attrs) {
	axes, _ := normAxes(a, in[0].Rank())
	_, red := reduceShape(in[0].Shape(), axes, false)
	switch in[0].DType() {
	case tensor.Float32:
		y := out[0].F32()
		acc := make([]float64, len(y)) // accumulate in float64 for a stable reference
		sumRows(acc, in[0].F32(), in[0].Shape(), red)
		for i, v := range acc {
			y[i] = float32(v)
		}
	case tensor.Float64:
		sumRows(out[0].F64(), in[0].F64(), in[0].Shape(), red)
	case tensor.Int64: // exact, wrapping on overflow like NumPy
		x, y := in[0].I64(), out[0].I64()
		reduceIndex(in[0].Shape(), red, func(i, o int) { y[o] += x[i] })
	default:
		x := in[0].Float64s()
		acc := make([]float64, out[0].Len())
		reduceIndex(in[0].Shape(), red, func(i, o int) { acc[o] += x[i] })
		out[0].CopyFrom(tensor.FromSlice(acc, out[0].Shape()...).Cast(out[0].DType()))
	}
}

// keptShape is the reduced shape with keepdims, used to broadcast gradients back.
func keptShape(s tensor.Shape, a Attrs) tensor.Shape {
	axes, _ := normAxes(a, len(s))
	k, _ := reduceShape(s, axes, true)
	return k
}

func init() {
	sumDef = define(&Def{
		Name: "sum", Export: exportReduce, ONNX: "ReduceSum", Arity: 1, Infer: reduceInfer, Ref: sumRef,
		// every input element gets the gradient of the sum it fed
		VJP: func(c *VJPCtx) []*T {
			s := c.In[0].Shape()
			return []*T{BroadcastTo(Reshape(c.G(0), keptShape(s, c.Attrs)...), s...)}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 3, 4)}, Attrs{"axes": []int{0, 2}, "keepdims": false}
		},
	})
	meanDef = define(&Def{
		Name: "mean", Export: exportReduce, ONNX: "ReduceMean", Arity: 1, Infer: reduceInfer,
		Ref: func(out, in []*T, a Attrs) {
			sumRef(out, in, a)
			n := float64(in[0].Len()) / float64(max(out[0].Len(), 1))
			if in[0].Len() == 0 {
				return
			}
			out[0].CopyFrom(Div(out[0], ScalarLike(out[0], n)))
		},
		VJP: func(c *VJPCtx) []*T {
			s := c.In[0].Shape()
			n := float64(c.In[0].Len()) / float64(max(c.Out[0].Len(), 1))
			g := Div(c.G(0), ScalarLike(c.G(0), n))
			return []*T{BroadcastTo(Reshape(g, keptShape(s, c.Attrs)...), s...)}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 3, 4)}, Attrs{"axes": []int{1}, "keepdims": true}
		},
	})
}

var sumDef, meanDef *Def

// Sum adds x over axes (nil = all); keepdims keeps reduced axes as size 1.
func Sum(x *T, axes []int, keepdims bool) *T {
	return call1(sumDef, Attrs{"axes": axes, "keepdims": keepdims}, x)
}

// Mean averages x over axes (nil = all); keepdims keeps reduced axes as size 1.
func Mean(x *T, axes []int, keepdims bool) *T {
	return call1(meanDef, Attrs{"axes": axes, "keepdims": keepdims}, x)
}

// SumTo sums x down to shape s, which x's shape must broadcast from.
func SumTo(x *T, s tensor.Shape) *T {
	xs := x.Shape()
	lead := len(xs) - len(s)
	var axes []int
	for i := range xs {
		if i < lead || (s[i-lead] == 1 && xs[i] != 1) {
			axes = append(axes, i)
		}
	}
	if len(axes) == 0 {
		return Reshape(x, s...)
	}
	return Reshape(Sum(x, axes, true), s...)
}
