package op

import (
	"fmt"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// Fused primitives that core/graph/pass writes into imported and traced
// graphs: conv2d_act (a convolution with its activation, and a scale and
// shift, in the epilogue), conv_transpose2d_act (a transposed convolution
// and its activation), scale_residual (x + x·s) and gemm (matmul plus a row
// bias).

// scaleResidualDef is scale_residual, which add_resize and add_quantize
// also apply to a scaled addend (addresize.go).
var scaleResidualDef *Def

func init() {
	define(&Def{
		Name: "conv2d_act", Export: exportConvAct, Overwrites: true, Arity: -1,
		// y = act(conv2d(x, w, b))·scale + shift; attrs: conv2d's, act (op
		// name), act_attrs, scale (default 1), shift (default 0)
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			act := Lookup(a.Str("act", ""))
			if act == nil || act.Epilogue == nil {
				return nil, fmt.Errorf("act %q is not a fusible activation", a.Str("act", ""))
			}
			return conv2dDef.InferMeta(in, a)
		},
		Ref: func(out, in []*T, a Attrs) {
			scale, shift := a.Float("scale", 1), a.Float("shift", 0)
			// float32 hardswish and relu: the activation and scale/shift run
			// in the GEMM's epilogue (SGEMMEx), bitwise the steps below
			if act := Lookup(a.Str("act", "")).Epilogue.Gemm; act != GemmActNone && out[0].DType() == tensor.Float32 {
				affine := scale != 1 || shift != 0
				if Conv2DEx(out, in, a, act, affine, float32(scale), float32(shift)) {
					return
				}
				// depthwise: the epilogue per plane in the backend's kernel, or
				// one pass for both after the convolution
				ep := &GemmEpilogue{Act: act, Affine: affine, Scale: float32(scale), Shift: float32(shift)}
				if dw := Active().DepthwiseEx; dw != nil && dw(out, in, a, ep) {
					return
				}
				Run(conv2dDef, out, in, a)
				ApplyEpilogue(out[0].F32(), ep)
				return
			}
			Run(conv2dDef, out, in, a)
			aa, _ := a["act_attrs"].(Attrs)
			Run(Lookup(a.Str("act", "")), out, out, aa) // elementwise: in place is safe
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
	define(&Def{
		Name: "conv_transpose2d_act", Export: exportConvAct, Overwrites: true, Arity: -1,
		// y = act(conv_transpose2d(x, w, b)); attrs: conv_transpose2d's, act
		// (op name), act_attrs. relu runs in the store of non-overlapping
		// windows (a DB head's 2×2 stride-2 convs), bitwise relu after.
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			act := Lookup(a.Str("act", ""))
			if act == nil || act.Epilogue == nil {
				return nil, fmt.Errorf("act %q is not a fusible activation", a.Str("act", ""))
			}
			return convTranspose2dDef.InferMeta(in, a)
		},
		Ref: func(out, in []*T, a Attrs) {
			if a.Str("act", "") == "relu" && convTransposeRelu(out, in, a) {
				return
			}
			Run(convTranspose2dDef, out, in, a)
			aa, _ := a["act_attrs"].(Attrs)
			Run(Lookup(a.Str("act", "")), out, out, aa) // elementwise: in place is safe
		},
	})
	scaleResidualDef = define(&Def{
		Name: "scale_residual", Export: exportScaleResidual, Overwrites: true, Arity: 2,
		// y = x + x·s (an SE block's scaling and its residual add): x
		// (N, C, H, W) and s (N, C, 1, 1) run per channel plane, in chunks
		// that stay in cache between the multiply and the add, each
		// rounded as mul and add round; other shapes and dtypes run mul,
		// then add.
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if !in[0].DType.IsFloat() {
				return nil, fmt.Errorf("x is %v: want a float dtype", in[0].DType)
			}
			return broadcastInfer(in, a)
		},
		Ref: scaleResidualRef,
	})
	define(&Def{
		Name: "gemm", Export: exportGemm, Arity: 3,
		// y = matmul(a, b) + c, c broadcast over the rows; attrs: matmul's
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			out, err := matmulDef.InferMeta(in[:2], a)
			if err != nil {
				return nil, err
			}
			s := out[0].Shape
			if in[2].DType != out[0].DType || len(in[2].Shape) != 1 || len(s) == 0 || in[2].Shape[0] != s[len(s)-1] {
				return nil, fmt.Errorf("bias %v %v does not match the product's rows %v", in[2].DType, in[2].Shape, s)
			}
			return out, nil
		},
		Ref: func(out, in []*T, a Attrs) {
			Run(matmulDef, out, in[:2], a)
			Run(addDef, out, []*T{out[0], in[2]}, nil) // elementwise: in place is safe
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

// scaleResidualChunk is how many elements of a plane scale_residual
// multiplies and then adds at a time: 32 KiB of float32, in L1 for the add.
const scaleResidualChunk = 1 << 13

func scaleResidualRef(out, in []*T, a Attrs) {
	x, s, y := in[0], in[1], out[0]
	xs, ss := x.Shape(), s.Shape()
	planes := len(xs) == 4 && len(ss) == 4 && ss[0] == xs[0] && ss[1] == xs[1] && ss[2] == 1 && ss[3] == 1 &&
		y.Shape().Equal(xs) && s.DType() == x.DType()
	switch {
	case planes && x.DType() == tensor.Float32:
		scaleResidual(y.F32(), x.F32(), s.F32(), xs[2]*xs[3])
	case planes && x.DType() == tensor.Float64:
		scaleResidual(y.F64(), x.F64(), s.F64(), xs[2]*xs[3])
	default:
		Run(addDef, out, []*T{x, Mul(x, s)}, nil)
	}
}

// scaleResidual sets y = x + x·s[p] on each plane p of hw elements, the
// product rounded before the sum (mul's then add's rounding; + commutes
// bitwise), on the backend's vector rows where it has them.
func scaleResidual[E float32 | float64](y, x, s []E, hw int) {
	parallel.For(len(s), max(1, (1<<15)/max(hw, 1)), func(lo, hi int) {
		for p := lo; p < hi; p++ {
			for j0 := 0; j0 < hw; j0 += scaleResidualChunk {
				j1 := min(j0+scaleResidualChunk, hw)
				scaledRow(y[p*hw+j0:p*hw+j1], x[p*hw+j0:p*hw+j1], s[p:p+1])
			}
		}
	})
}

// scaledRow sets o = x + x·s[0] as scale_residual rounds it (the product,
// then the sum), on the backend's vector rows where it has them.
func scaledRow[E float32 | float64](o, x, s []E) {
	binRow(binMul, o, x, s, 1, 0)
	binRow(binAdd, o, o, x, 1, 1)
}

// exportScaleResidual writes scale_residual as ONNX Mul and Add.
func exportScaleResidual(w ONNXWriter, in, out []string) error {
	t := w.Fresh(out[0] + "/scaled")
	w.Node("Mul", []string{in[0], in[1]}, []string{t})
	w.Node("Add", []string{in[0], t}, out)
	return nil
}
