package op

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/tensor"
)

// where(cond, a, b) and the logical ops on bool tensors.

func whereInfer(in []Meta, _ Attrs) ([]Meta, error) {
	if in[0].DType != tensor.Bool {
		return nil, fmt.Errorf("input 0 (cond) is %v, want bool", in[0].DType)
	}
	s, err := broadcastAll(in[1:])
	if err != nil {
		return nil, err
	}
	if s, err = tensor.BroadcastShapes(in[0].Shape, s); err != nil {
		return nil, err
	}
	return []Meta{{in[1].DType, s}}, nil
}

func whereLoop[E tensor.Elem](o, a, b *T, c *T) {
	ov, av, bv, cv := tensor.Data[E](o), tensor.Data[E](a), tensor.Data[E](b), c.Bools()
	out := o.Shape()
	if c.Shape().Equal(out) && a.Shape().Equal(out) && b.Shape().Equal(out) {
		for i, k := range cv {
			if k {
				ov[i] = av[i]
			} else {
				ov[i] = bv[i]
			}
		}
		return
	}
	n := out.NumElements()
	if n == 0 {
		return
	}
	tc, ta, tb := bstrides(c.Shape(), out), bstrides(a.Shape(), out), bstrides(b.Shape(), out)
	r := len(out)
	idx := make([]int, r)
	ic, ia, ib := 0, 0, 0
	for i := range n {
		if cv[ic] {
			ov[i] = av[ia]
		} else {
			ov[i] = bv[ib]
		}
		for ax := r - 1; ax >= 0; ax-- {
			idx[ax]++
			ic += tc[ax]
			ia += ta[ax]
			ib += tb[ax]
			if idx[ax] < out[ax] {
				break
			}
			ic -= idx[ax] * tc[ax]
			ia -= idx[ax] * ta[ax]
			ib -= idx[ax] * tb[ax]
			idx[ax] = 0
		}
	}
}

func whereRef(out, in []*T, _ Attrs) {
	o, c, a, b := out[0], in[0], in[1], in[2]
	switch o.DType() {
	case tensor.Float32:
		whereLoop[float32](o, a, b, c)
	case tensor.Float64:
		whereLoop[float64](o, a, b, c)
	case tensor.Int64:
		whereLoop[int64](o, a, b, c)
	case tensor.Int32:
		whereLoop[int32](o, a, b, c)
	case tensor.Uint8:
		whereLoop[uint8](o, a, b, c)
	case tensor.Int8:
		whereLoop[int8](o, a, b, c)
	case tensor.Bool:
		whereLoop[bool](o, a, b, c)
	default:
		panic("op: unsupported dtype " + o.DType().String())
	}
}

func boolInfer(in []Meta, a Attrs) ([]Meta, error) {
	for i, m := range in {
		if m.DType != tensor.Bool {
			return nil, fmt.Errorf("input %d is %v, want bool", i, m.DType)
		}
	}
	return broadcastInfer(in, a)
}

func logical2(name, onnx string, f func(x, y bool) bool) *Def {
	return define(&Def{
		Name: name, ONNX: onnx, Arity: 2, Infer: boolInfer, NoGrad: []int{0, 1},
		Ref: func(out, in []*T, _ Attrs) {
			o, a, b := out[0].Bools(), in[0].Bools(), in[1].Bools()
			forBroadcast2(out[0].Shape(), in[0].Shape(), in[1].Shape(), func(i, ia, ib int) { o[i] = f(a[ia], b[ib]) })
		},
	})
}

func defineWhereLogical() {
	whereDef = define(&Def{
		Name: "where", Export: exportTwin, ONNX: "Where", Arity: 3, Infer: whereInfer, Ref: whereRef, NoGrad: []int{0},
		// the gradient goes to whichever input was picked
		VJP: func(c *VJPCtx) []*T {
			g, cond, a, b := c.G(0), c.In[0], c.In[1], c.In[2]
			if !g.DType().IsFloat() {
				return []*T{nil, nil, nil}
			}
			z := ScalarLike(g, 0)
			return []*T{nil, unbroadcast(Where(cond, g, z), a.Shape()), unbroadcast(Where(cond, z, g), b.Shape())}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			c := tensor.New(tensor.Bool, 3, 1)
			c.Bools()[0], c.Bools()[2] = true, true
			return []*T{c, tensor.Rand(r, tensor.Float64, -1, 1, 3, 4), tensor.Rand(r, tensor.Float64, -1, 1, 4)}, nil
		},
	})
	logicalNotDef = define(&Def{
		Name: "logical_not", Export: exportTwin, ONNX: "Not", Arity: 1, Infer: boolInfer, NoGrad: []int{0},
		Ref: func(out, in []*T, _ Attrs) {
			o := out[0].Bools()
			for i, v := range in[0].Bools() {
				o[i] = !v
			}
		},
	})
	logicalAndDef = logical2("logical_and", "And", func(x, y bool) bool { return x && y }).exports(exportTwin)
	logicalOrDef = logical2("logical_or", "Or", func(x, y bool) bool { return x || y }).exports(exportTwin)
}
