package pass

import (
	"fmt"

	"paddle/core/graph"
	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// Fuse merges, where the intermediate has no other reader:
//
//	conv2d(x, w) + b (a constant (1, C, 1, 1) or (C, 1, 1))  → conv2d(x, w, b)
//	  (conv_transpose2d likewise)
//	conv2d → relu | relu6 | clip | hardswish | hardsigmoid | sigmoid  → conv2d_act
//	matmul(a, B) + c (B a constant matrix, c a constant of length N)  → gemm
//	conv2d_act · s, then + c (scalar constants)  → conv2d_act {scale=s shift=c}
//
// conv2d_act and gemm run the same kernels one after the other on one
// output buffer (the activation and the bias add in place), so results are
// bitwise those of the unfused graph, with one intermediate less. They have
// no backward: fuse only graphs meant for inference.
func Fuse(g *graph.Graph) error {
	if err := g.Sort(); err != nil {
		return err
	}
	drop := map[*graph.Node]bool{}
	for _, f := range []func(*graph.Graph, *graph.Node, map[*graph.Value]int, map[*graph.Value]*graph.Node) bool{fuseConvBias, fuseConvAct, fuseActScale, fuseActShift, fuseGemm} {
		uses, prod := g.Uses(), g.Producers()
		for _, n := range g.Nodes {
			if !drop[n] && f(g, n, uses, prod) {
				drop[n] = true
			}
		}
		removeNodes(g, drop)
		drop = map[*graph.Node]bool{}
	}
	return nil
}

// single returns the producer of n's input i when n is its only reader.
func single(n *graph.Node, i int, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node, opName string) *graph.Node {
	if i >= len(n.In) {
		return nil
	}
	p := prod[n.In[i]]
	if p == nil || p.Op.Name != opName || uses[n.In[i]] != 1 || len(p.AttrIn) > 0 || p.ShapeAttrs != nil {
		return nil
	}
	return p
}

// fuseConvBias: n = add(conv, b) → the conv takes b as its bias.
func fuseConvBias(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	if n.Op.Name != "add" {
		return false
	}
	conv := single(n, 0, uses, prod, "conv2d")
	if conv == nil {
		conv = single(n, 0, uses, prod, "conv_transpose2d")
	}
	b := n.In[1]
	if conv == nil || len(conv.In) != 2 || b.Const == nil || conv.In[1].Const == nil || b.Const.DType() != conv.In[1].Const.DType() {
		return false
	}
	oc := convOutChannels(conv)
	if channelConst(b, oc) == nil {
		return false
	}
	bias := &graph.Value{Name: b.Name + "/bias", Const: b.Const.Contiguous().Reshape(oc), Param: b.Param}
	bias.Meta = graph.ConstMeta(bias.Const)
	conv.In = append(conv.In, bias)
	replaceUses(g, n.Out[0], conv.Out[0])
	return true
}

// fusible activations and their attributes.
var fusedActs = map[string]bool{"relu": true, "relu6": true, "clip": true, "hardswish": true, "hardsigmoid": true, "sigmoid": true}

func fuseConvAct(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	if !fusedActs[n.Op.Name] || len(n.AttrIn) > 0 {
		return false
	}
	conv := single(n, 0, uses, prod, "conv2d")
	if conv == nil {
		return false
	}
	a := op.Attrs{}
	for k, v := range conv.Attrs {
		a[k] = v
	}
	a["act"], a["act_attrs"] = n.Op.Name, n.Attrs
	conv.Op, conv.Attrs = conv2dActDef, a
	conv.Out[0].Meta = n.Out[0].Meta
	replaceUses(g, n.Out[0], conv.Out[0])
	return true
}

// fuseActScale: n = mul(conv2d_act, s) with a scalar constant s → the
// conv2d_act scales its output (once: a second scale would round differently).
func fuseActScale(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	return fuseActAffine(g, n, uses, prod, "mul", "scale", 1)
}

// fuseActShift: n = add(conv2d_act, c) with a scalar constant c → the
// conv2d_act adds c after its scale.
func fuseActShift(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	return fuseActAffine(g, n, uses, prod, "add", "shift", 0)
}

func fuseActAffine(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node, opName, attr string, unit float64) bool {
	if n.Op.Name != opName || len(n.In) != 2 || len(n.AttrIn) > 0 {
		return false
	}
	for i := range 2 {
		conv, k := single(n, i, uses, prod, "conv2d_act"), n.In[1-i].Const
		if conv == nil || k == nil || k.Len() != 1 || k.Rank() > 1 || k.DType() != n.Out[0].Meta.DType || !k.DType().IsFloat() {
			continue
		}
		if conv.Attrs.Float(attr, unit) != unit || attr == "scale" && conv.Attrs.Float("shift", 0) != 0 {
			continue // keep the unfused order of operations
		}
		a := op.Attrs{}
		for key, v := range conv.Attrs {
			a[key] = v
		}
		a[attr] = k.Contiguous().Float64s()[0]
		conv.Attrs = a
		replaceUses(g, n.Out[0], conv.Out[0])
		return true
	}
	return false
}

func fuseGemm(g *graph.Graph, n *graph.Node, uses map[*graph.Value]int, prod map[*graph.Value]*graph.Node) bool {
	if n.Op.Name != "add" {
		return false
	}
	mm := single(n, 0, uses, prod, "matmul")
	c := n.In[1]
	if mm == nil || c.Const == nil || c.Const.Rank() != 1 {
		return false
	}
	B := mm.In[1].Const
	if B == nil || B.Rank() != 2 || B.DType() != c.Const.DType() {
		return false
	}
	N := B.Dim(1)
	if mm.Attrs.Bool("trans_b", false) {
		N = B.Dim(0)
	}
	if c.Const.Len() != N {
		return false
	}
	mm.Op = gemmDef
	mm.In = append(mm.In, c)
	replaceUses(g, n.Out[0], mm.Out[0])
	return true
}

var conv2dActDef, gemmDef *op.Def

// epilogueActs are the conv2d_act activations that op.GemmEpilogue applies
// bitwise as their ops do.
var epilogueActs = map[string]op.GemmAct{"hardswish": op.GemmActHardSwish, "relu": op.GemmActRelu}

func init() {
	conv := op.Lookup("conv2d")
	conv2dActDef = op.Define(&op.Def{
		Name: "conv2d_act", Arity: -1,
		// y = act(conv2d(x, w, b))·scale + shift; attrs: conv2d's, act (op
		// name), act_attrs, scale (default 1), shift (default 0)
		Infer: func(in []op.Meta, a op.Attrs) ([]op.Meta, error) {
			act := op.Lookup(a.Str("act", ""))
			if act == nil || !fusedActs[act.Name] {
				return nil, fmt.Errorf("act %q is not a fusible activation", a.Str("act", ""))
			}
			return conv.InferMeta(in, a)
		},
		Ref: func(out, in []*op.T, a op.Attrs) {
			scale, shift := a.Float("scale", 1), a.Float("shift", 0)
			// float32 hardswish and relu: the activation and scale/shift run
			// in the GEMM's epilogue (op.SGEMMEx), bitwise the steps below
			if act, ok := epilogueActs[a.Str("act", "")]; ok && out[0].DType() == tensor.Float32 {
				affine := scale != 1 || shift != 0
				if op.Conv2DEx(out, in, a, act, affine, float32(scale), float32(shift)) {
					return
				}
				// depthwise: the epilogue per plane in the backend's kernel, or
				// one pass for both after the convolution
				ep := &op.GemmEpilogue{Act: act, Affine: affine, Scale: float32(scale), Shift: float32(shift)}
				if dw := op.Active().DepthwiseEx; dw != nil && dw(out, in, a, ep) {
					return
				}
				op.Run(conv, out, in, a)
				op.ApplyEpilogue(out[0].F32(), ep)
				return
			}
			op.Run(conv, out, in, a)
			aa, _ := a["act_attrs"].(op.Attrs)
			op.Run(op.Lookup(a.Str("act", "")), out, out, aa) // elementwise: in place is safe
			if scale == 1 && shift == 0 {
				return
			}
			switch out[0].DType() {
			case tensor.Float32:
				affine(out[0].F32(), float32(scale), float32(shift))
			case tensor.Float64:
				affine(out[0].F64(), scale, shift)
			default:
				panic(fmt.Sprintf("conv2d_act: scale/shift on %v", out[0].DType()))
			}
		},
	})
	mm, add := op.Lookup("matmul"), op.Lookup("add")
	gemmDef = op.Define(&op.Def{
		Name: "gemm", Arity: 3,
		// y = matmul(a, b) + c, c broadcast over the rows; attrs: matmul's
		Infer: func(in []op.Meta, a op.Attrs) ([]op.Meta, error) {
			out, err := mm.InferMeta(in[:2], a)
			if err != nil {
				return nil, err
			}
			s := out[0].Shape
			if in[2].DType != out[0].DType || len(in[2].Shape) != 1 || len(s) == 0 || in[2].Shape[0] != s[len(s)-1] {
				return nil, fmt.Errorf("bias %v %v does not match the product's rows %v", in[2].DType, in[2].Shape, s)
			}
			return out, nil
		},
		Ref: func(out, in []*op.T, a op.Attrs) {
			op.Run(mm, out, in[:2], a)
			op.Run(add, out, []*op.T{out[0], in[2]}, nil) // elementwise: in place is safe
		},
	})
}

// affine sets y = y·scale + shift in place, rounding after the product as
// the unfused mul and add do (the conversion forbids a fused multiply-add).
func affine[E float32 | float64](y []E, scale, shift E) {
	parallel.For(len(y), 1<<14, func(lo, hi int) {
		for i, v := range y[lo:hi] {
			y[lo+i] = E(v*scale) + shift
		}
	})
}
