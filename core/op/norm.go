package op

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/tensor"
)

// Normalisation primitives. They are primitives, not composites of
// mean/sub/mul, because a composite costs ~10 full passes over the activation
// (and as many temporaries) forward and more backward; these make 2 passes
// each way (llm.c's reason for its layernorm kernel). Kernels: norm_kernels.go.
//
//	batch_norm        (x, scale, bias, mean, var) → y         inference, ONNX BatchNormalization
//	batch_norm_train  (x, scale, bias) → y, mean, var         batch statistics (biased var)
//	layer_norm        (x, scale, bias) → y                    over axes [axis, rank), ONNX LayerNormalization
//	group_norm        (x, scale, bias) → y                    over (C/groups, spatial) per group
//	instance_norm     (x, scale, bias) → y                    group_norm with groups = C, ONNX InstanceNormalization
//
// y = (x - mean)/sqrt(var + epsilon)·scale + bias. The *_grad ops return
// (dx, dscale, dbias) from (x, scale, ..., dy), recomputing the statistics.

// BatchNorm is batch normalisation in inference form: x: (N, C, ...) with
// per-channel scale, bias, running mean and var: (C).
func BatchNorm(x, scale, bias, mean, variance *T, eps float64) *T {
	return call1(batchNormDef, Attrs{"epsilon": eps}, x, scale, bias, mean, variance)
}

// BatchNormTrain normalises x: (N, C, ...) with its own per-channel batch
// statistics and returns y, the batch mean and the biased batch variance (C).
func BatchNormTrain(x, scale, bias *T, eps float64) (y, mean, variance *T) {
	o := Call(batchNormTrainDef, Attrs{"epsilon": eps}, x, scale, bias)
	return o[0], o[1], o[2]
}

// BatchNormTrainAcross returns batch_norm_train over the samples of
// several ranks (a synchronised batch norm): reduce sums a float64 buffer
// in place across the ranks, on every rank (each call has the same length
// everywhere: C+1 and C in the forward pass, 2C+1 in the backward). The
// mean and variance are those of all ranks' samples together and every
// value is computed as BatchNormTrain computes it on one process holding
// all the samples, except for the order of float64 sums. The scale and
// bias gradients are this rank's share (a data-parallel run adds them up);
// the mean and variance outputs carry no gradient. The Def is not
// registered (its reduce is one run's).
func BatchNormTrainAcross(reduce func([]float64)) *Def {
	grad := &Def{
		Name: "batch_norm_train_across_grad", Arity: 5, Infer: normGradInfer(2),
		Ref: func(out, in []*T, a Attrs) {
			n, c, s := bnDims(in[0])
			eps := a.Float("epsilon", 1e-5)
			if out[0].DType() == tensor.Float32 {
				bnTrainGrad(in[0].F32(), in[1].F32(), in[2].F32(), in[3].F32(), in[4].F32(), out[0].F32(), out[1].F32(), out[2].F32(), n, c, s, eps, reduce)
			} else {
				bnTrainGrad(in[0].F64(), in[1].F64(), in[2].F64(), in[3].F64(), in[4].F64(), out[0].F64(), out[1].F64(), out[2].F64(), n, c, s, eps, reduce)
			}
		},
	}
	return &Def{
		Name: "batch_norm_train_across", Arity: 3, Infer: batchNormTrainDef.Infer,
		Ref: func(out, in []*T, a Attrs) {
			n, c, s := bnDims(in[0])
			eps := a.Float("epsilon", 1e-5)
			if out[0].DType() == tensor.Float32 {
				bnTrainAcross(in[0].F32(), in[1].F32(), in[2].F32(), out[0].F32(), out[1].F32(), out[2].F32(), n, c, s, eps, reduce)
			} else {
				bnTrainAcross(in[0].F64(), in[1].F64(), in[2].F64(), out[0].F64(), out[1].F64(), out[2].F64(), n, c, s, eps, reduce)
			}
		},
		VJP: func(c *VJPCtx) []*T {
			return Call(grad, c.Attrs, c.In[0], c.In[1], c.Out[1], c.Out[2], c.G(0))
		},
	}
}

// LayerNorm normalises x over its axes [axis, rank) (negative axis counts
// from the end); scale and bias have those axes' shape.
func LayerNorm(x, scale, bias *T, axis int, eps float64) *T {
	return call1(layerNormDef, Attrs{"axis": axis, "epsilon": eps}, x, scale, bias)
}

// GroupNorm normalises x: (N, C, ...) over each group of C/groups channels
// and the spatial axes; scale and bias are per channel (C).
func GroupNorm(x, scale, bias *T, groups int, eps float64) *T {
	return call1(groupNormDef, Attrs{"groups": groups, "epsilon": eps}, x, scale, bias)
}

// InstanceNorm normalises each (sample, channel) plane of x: (N, C, ...);
// scale and bias are per channel (C).
func InstanceNorm(x, scale, bias *T, eps float64) *T {
	return call1(instanceNormDef, Attrs{"epsilon": eps}, x, scale, bias)
}

// checkNormInputs checks a float x of rank >= minRank and parameters of x's
// dtype with n elements each.
func checkNormInputs(in []Meta, minRank int, n func(x tensor.Shape) int) error {
	x := in[0]
	if !x.DType.IsFloat() || len(x.Shape) < minRank {
		return fmt.Errorf("want a float x of rank >= %d, got %v %v", minRank, x.DType, x.Shape)
	}
	want := n(x.Shape)
	for i, p := range in[1:] {
		if p.DType != x.DType || p.Shape.NumElements() != want {
			return fmt.Errorf("input %d is %v %v, want %v with %d elements", i+1, p.DType, p.Shape, x.DType, want)
		}
	}
	return nil
}

func chanCount(x tensor.Shape) int { return x[1] }

// layerAxis resolves layer_norm's axis against rank r.
func layerAxis(a Attrs, r int) (int, error) { return tensor.NormAxis(a.Int("axis", -1), r) }

// normGradInfer: (x, params..., dy) → dx like x, then one gradient per parameter.
func normGradInfer(nParams int) func(in []Meta, _ Attrs) ([]Meta, error) {
	return func(in []Meta, _ Attrs) ([]Meta, error) {
		out := []Meta{in[0]}
		for range nParams {
			out = append(out, in[1])
		}
		return out, nil
	}
}

func init() {
	batchNormDef = define(&Def{
		Name: "batch_norm", Export: copyAttrs(floatAttr("epsilon", 1e-5)), Overwrites: true, ONNX: "BatchNormalization", Arity: 5,
		Infer: func(in []Meta, _ Attrs) ([]Meta, error) {
			if err := checkNormInputs(in, 2, chanCount); err != nil {
				return nil, err
			}
			return []Meta{in[0]}, nil
		},
		Ref: batchNormEvalRef,
		// y = x·a + (bias - mean·a) with a = scale·rstd, rstd = (var+eps)^-½
		VJP: func(c *VJPCtx) []*T {
			x, s, m, v, dy := c.In[0], c.In[1], c.In[3], c.In[4], c.G(0)
			bs := paramShape(x)
			axes := nonChannelAxes(x.Rank())
			rstd := Rsqrt(Add(v, ScalarLike(v, c.Attrs.Float("epsilon", 1e-5))))
			a := Mul(s, rstd)
			sdy := Sum(dy, axes, false)
			sdyx := Sum(Mul(dy, Sub(x, Reshape(m, bs...))), axes, false) // Σ dy·(x-mean)
			dvar := Mul(Mul(sdyx, s), Mul(ScalarLike(v, -0.5), Mul(rstd, Mul(rstd, rstd))))
			return []*T{Mul(dy, Reshape(a, bs...)), Mul(sdyx, rstd), sdy, Neg(Mul(sdy, a)), dvar}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 3, 2, 3), tensor.Rand(r, tensor.Float64, 0.5, 1.5, 3),
				tensor.Rand(r, tensor.Float64, -1, 1, 3), tensor.Rand(r, tensor.Float64, -0.5, 0.5, 3),
				tensor.Rand(r, tensor.Float64, 0.5, 2, 3)}, Attrs{"epsilon": 1e-3}
		},
	})
	batchNormTrainDef = define(&Def{
		Name: "batch_norm_train", Arity: 3,
		Infer: func(in []Meta, _ Attrs) ([]Meta, error) {
			if err := checkNormInputs(in, 2, chanCount); err != nil {
				return nil, err
			}
			c := Meta{in[0].DType, tensor.Shape{in[0].Shape[1]}}
			return []Meta{in[0], c, c}, nil
		},
		Ref: batchNormTrainRef,
		// mean and var are outputs too: their gradients (when used) add
		// dmean/M and 2·dvar·(x-mean)/M to dx.
		VJP: func(c *VJPCtx) []*T {
			x := c.In[0]
			g := Call(batchNormTrainGradDef, c.Attrs, x, c.In[1], c.Out[1], c.Out[2], c.G(0))
			dx, bs := g[0], paramShape(x)
			m := float64(x.Len() / max(x.Dim(1), 1))
			if gm := c.GradOut[1]; gm != nil {
				dx = Add(dx, Reshape(Div(gm, ScalarLike(gm, m)), bs...))
			}
			if gv := c.GradOut[2]; gv != nil {
				xc := Sub(x, Reshape(c.Out[1], bs...))
				dx = Add(dx, Mul(xc, Reshape(Mul(gv, ScalarLike(gv, 2/m)), bs...)))
			}
			return []*T{dx, g[1], g[2]}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 3, 2, 2, 3), tensor.Rand(r, tensor.Float64, 0.5, 1.5, 2),
				tensor.Rand(r, tensor.Float64, -1, 1, 2)}, Attrs{"epsilon": 1e-5}
		},
	})
	batchNormTrainGradDef = define(&Def{
		Name: "batch_norm_train_grad", Arity: 5, Infer: normGradInfer(2), Ref: batchNormTrainGradRef,
	})
	layerNormDef = define(&Def{
		Name: "layer_norm", Export: copyAttrs(layerNormAttrs), ONNX: "LayerNormalization", Arity: 3,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			ax, err := layerAxis(a, len(in[0].Shape))
			if err != nil {
				return nil, err
			}
			if err := checkNormInputs(in, 1, func(x tensor.Shape) int { return x[ax:].NumElements() }); err != nil {
				return nil, err
			}
			return []Meta{in[0]}, nil
		},
		Ref: func(out, in []*T, a Attrs) { rowNormRef(out, in, layerRows(in[0], a), a) },
		VJP: func(c *VJPCtx) []*T {
			return Call(layerNormGradDef, c.Attrs, c.In[0], c.In[1], c.G(0))
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 3, 2, 4), tensor.Rand(r, tensor.Float64, 0.5, 1.5, 2, 4),
				tensor.Rand(r, tensor.Float64, -1, 1, 2, 4)}, Attrs{"axis": 1, "epsilon": 1e-5}
		},
	})
	layerNormGradDef = define(&Def{
		Name: "layer_norm_grad", Arity: 3, Infer: normGradInfer(2),
		Ref: func(out, in []*T, a Attrs) { rowNormGradRef(out, in, layerRows(in[0], a), a) },
	})
	groupNormDef = define(&Def{
		Name: "group_norm", Arity: 3,
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if err := checkNormInputs(in, 2, chanCount); err != nil {
				return nil, err
			}
			if g := a.Int("groups", 1); g < 1 || in[0].Shape[1]%g != 0 {
				return nil, fmt.Errorf("groups %d does not divide x's %d channels", g, in[0].Shape[1])
			}
			return []Meta{in[0]}, nil
		},
		Ref: func(out, in []*T, a Attrs) { rowNormRef(out, in, groupRows(in[0], a.Int("groups", 1)), a) },
		VJP: func(c *VJPCtx) []*T {
			return Call(groupNormGradDef, c.Attrs, c.In[0], c.In[1], c.G(0))
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 6, 2, 3), tensor.Rand(r, tensor.Float64, 0.5, 1.5, 6),
				tensor.Rand(r, tensor.Float64, -1, 1, 6)}, Attrs{"groups": 3, "epsilon": 1e-5}
		},
	})
	groupNormGradDef = define(&Def{
		Name: "group_norm_grad", Arity: 3, Infer: normGradInfer(2),
		Ref: func(out, in []*T, a Attrs) { rowNormGradRef(out, in, groupRows(in[0], a.Int("groups", 1)), a) },
	})
	instanceNormDef = define(&Def{
		Name: "instance_norm", Export: copyAttrs(floatAttr("epsilon", 1e-5)), ONNX: "InstanceNormalization", Arity: 3,
		Infer: func(in []Meta, _ Attrs) ([]Meta, error) {
			if err := checkNormInputs(in, 3, chanCount); err != nil {
				return nil, err
			}
			return []Meta{in[0]}, nil
		},
		Ref: func(out, in []*T, a Attrs) { rowNormRef(out, in, groupRows(in[0], in[0].Dim(1)), a) },
		VJP: func(c *VJPCtx) []*T {
			return Call(groupNormGradDef, c.Attrs.With("groups", c.In[0].Dim(1)), c.In[0], c.In[1], c.G(0))
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			return []*T{tensor.Rand(r, tensor.Float64, -1, 1, 2, 3, 2, 3), tensor.Rand(r, tensor.Float64, 0.5, 1.5, 3),
				tensor.Rand(r, tensor.Float64, -1, 1, 3)}, Attrs{"epsilon": 1e-5}
		},
	})
}

var batchNormDef, batchNormTrainDef, batchNormTrainGradDef, layerNormDef, layerNormGradDef *Def
var groupNormDef, groupNormGradDef, instanceNormDef *Def

// paramShape is (1, C, 1, ...) for x's rank: a per-channel tensor's broadcast shape.
func paramShape(x *T) []int {
	s := make([]int, x.Rank())
	for i := range s {
		s[i] = 1
	}
	s[1] = x.Dim(1)
	return s
}

func nonChannelAxes(rank int) []int {
	ax := []int{0}
	for i := 2; i < rank; i++ {
		ax = append(ax, i)
	}
	return ax
}

// layerRows: rows of D = prod(x.shape[axis:]) elements, parameters indexed by position.
func layerRows(x *T, a Attrs) rowNorm {
	ax, _ := layerAxis(a, x.Rank())
	d := x.Shape()[ax:].NumElements()
	return rowNorm{rows: x.Len() / max(d, 1), l: d, g: 1, cg: d, span: 1}
}

// groupRows: one row per (sample, group) of C/groups channels × spatial
// elements, parameters indexed by channel.
func groupRows(x *T, groups int) rowNorm {
	n, c := x.Dim(0), x.Dim(1)
	s := x.Len() / max(n*c, 1)
	return rowNorm{rows: n * groups, l: c / groups * s, g: groups, cg: c / groups, span: s}
}
