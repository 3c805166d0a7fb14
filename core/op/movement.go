package op

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/tensor"
)

// Movement primitives: reshape, transpose, broadcast_to.

func init() {
	reshapeDef = define(&Def{
		Name: "reshape", Export: exportReshape, ONNX: "Reshape", Arity: 1,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			s, err := tensor.InferReshape(a.Ints("shape", nil), in[0].Shape.NumElements())
			if err != nil {
				return nil, err
			}
			return []Meta{{in[0].DType, s}}, nil
		},
		Ref: func(out, in []*T, _ Attrs) { out[0].CopyFrom(in[0].Reshape(out[0].Shape()...)) },
		VJP: func(c *VJPCtx) []*T { return []*T{Reshape(c.G(0), c.In[0].Shape()...)} },
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 6)}, Attrs{"shape": []int{3, -1}}
		},
	})
	transposeDef = define(&Def{
		Name: "transpose", Export: copyAttrs(transposeAttrs), ONNX: "Transpose", Arity: 1,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			perm := permOrReverse(a, len(in[0].Shape))
			if len(perm) != len(in[0].Shape) {
				return nil, fmt.Errorf("perm %v for rank %d", perm, len(in[0].Shape))
			}
			s := make(tensor.Shape, len(perm))
			for i, p := range perm {
				if p < 0 || p >= len(perm) {
					return nil, fmt.Errorf("bad perm %v", perm)
				}
				s[i] = in[0].Shape[p]
			}
			return []Meta{{in[0].DType, s}}, nil
		},
		Ref: func(out, in []*T, a Attrs) {
			out[0].CopyFrom(in[0].Transpose(permOrReverse(a, in[0].Rank())...))
		},
		// the inverse permutation undoes the forward one
		VJP: func(c *VJPCtx) []*T {
			perm := permOrReverse(c.Attrs, c.In[0].Rank())
			inv := make([]int, len(perm))
			for i, p := range perm {
				inv[p] = i
			}
			return []*T{Transpose(c.G(0), inv...)}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 3, 4)}, Attrs{"perm": []int{2, 0, 1}}
		},
	})
	broadcastToDef = define(&Def{
		Name: "broadcast_to", Export: inputsFrom("Expand", "shape"), ONNX: "Expand", Arity: 1,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			want := tensor.Shape(a.Ints("shape", nil))
			s, err := tensor.BroadcastShapes(in[0].Shape, want)
			if err != nil {
				return nil, err
			}
			return []Meta{{in[0].DType, s}}, nil
		},
		Ref: func(out, in []*T, _ Attrs) { out[0].CopyFrom(in[0].BroadcastTo(out[0].Shape()...)) },
		VJP: func(c *VJPCtx) []*T { return []*T{SumTo(c.G(0), c.In[0].Shape())} },
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 3, 1)}, Attrs{"shape": []int{2, 3, 4}}
		},
	})
}

var reshapeDef, transposeDef, broadcastToDef *Def

func permOrReverse(a Attrs, r int) []int {
	perm := a.Ints("perm", nil)
	if perm == nil {
		perm = make([]int, r)
		for i := range r {
			perm[i] = r - 1 - i
		}
	}
	return perm
}

// Reshape returns x with a new shape (one entry may be -1).
func Reshape(x *T, shape ...int) *T {
	if x.Shape().Equal(shape) {
		return x
	}
	return call1(reshapeDef, Attrs{"shape": append([]int(nil), shape...)}, x)
}

// Transpose permutes x's axes (no perm: reverse them).
func Transpose(x *T, perm ...int) *T {
	var p []int
	if len(perm) > 0 {
		p = append(p, perm...)
	}
	return call1(transposeDef, Attrs{"perm": p}, x)
}

// BroadcastTo expands x to shape with NumPy broadcasting.
func BroadcastTo(x *T, shape ...int) *T {
	if x.Shape().Equal(shape) {
		return x
	}
	return call1(broadcastToDef, Attrs{"shape": append([]int(nil), shape...)}, x)
}
