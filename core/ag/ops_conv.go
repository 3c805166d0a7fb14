package ag

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/op"
	"paddle/core/tensor"
)

// Differentiable wrappers of the convolution, pooling, normalisation and
// resize primitives (core/op conv.go, pool.go, norm.go, resize.go), plus the
// Conv1D and Dropout composites.

// Conv2D returns conv2d(x, w) + b: x (N, C, H, W), w (OC, C/groups, KH, KW),
// b (OC) or nil → (N, OC, OH, OW).
func Conv2D(x, w, b *Var, p op.ConvParams) *Var {
	return apply1("conv2d", p.Attrs(), varsOf(x, w, b)...)
}

// ConvTranspose2D returns the transposed convolution of x (N, C, H, W) with
// w (C, OC/groups, KH, KW), plus b (OC) or nil.
func ConvTranspose2D(x, w, b *Var, p op.ConvParams) *Var {
	return apply1("conv_transpose2d", p.Attrs(), varsOf(x, w, b)...)
}

// Conv1D convolves x (N, C, L) with w (OC, C/groups, K), plus b (OC) or nil,
// as a conv2d over (N, C, 1, L). p holds 1-D values: Strides [s], Pads
// [left, right] (or [p] for both sides), Dilations [d]; AutoPad ("SAME_UPPER",
// "SAME_LOWER", "VALID") replaces Pads as for conv2d. OutputPadding is not used.
func Conv1D(x, w, b *Var, p op.ConvParams) *Var {
	if x.T.Rank() != 3 || w.T.Rank() != 3 {
		panic(&op.ShapeError{Op: "conv1d", Err: fmt.Errorf("want x (N, C, L) and w (OC, C/groups, K), got %v and %v", x.Shape(), w.Shape())})
	}
	q := op.ConvParams{Groups: p.Groups, Strides: []int{1, convDim1(p.Strides, 0)}, Dilations: []int{1, convDim1(p.Dilations, 0)}, AutoPad: p.AutoPad}
	if len(p.Pads) > 0 {
		q.Pads = []int{0, p.Pads[0], 0, p.Pads[len(p.Pads)-1]}
	}
	oc, cg, k := w.T.Dims3()
	// Unsqueeze/Squeeze, not a Reshape to fixed sizes: a traced export keeps
	// the batch and length dynamic.
	y := Conv2D(Unsqueeze(x, 2), Reshape(w, oc, cg, 1, k), b, q)
	return Squeeze(y, 2)
}

// convDim1 returns v[i], or 1 when v is empty.
func convDim1(v []int, i int) int {
	if len(v) <= i {
		return 1
	}
	return v[i]
}

func varsOf(x, w, b *Var) []*Var {
	if b == nil {
		return []*Var{x, w}
	}
	return []*Var{x, w, b}
}

// MaxPool2D takes the maximum of each window of x (N, C, H, W).
func MaxPool2D(x *Var, p op.PoolParams) *Var { return apply1("max_pool2d", p.Attrs(), x) }

// AvgPool2D averages each window of x (N, C, H, W).
func AvgPool2D(x *Var, p op.PoolParams) *Var { return apply1("avg_pool2d", p.Attrs(), x) }

// AdaptiveAvgPool2D averages x (N, C, H, W) into an oh×ow grid of bins (PyTorch's bins).
func AdaptiveAvgPool2D(x *Var, oh, ow int) *Var {
	return apply1("adaptive_avg_pool2d", op.Attrs{"output_size": []int{oh, ow}}, x)
}

// GlobalAvgPool averages x (N, C, spatial...) over its spatial axes → (N, C, 1, ...).
func GlobalAvgPool(x *Var) *Var { return apply1("global_avg_pool", nil, x) }

// GlobalMaxPool takes the maximum of x (N, C, spatial...) over its spatial axes → (N, C, 1, ...).
func GlobalMaxPool(x *Var) *Var { return apply1("global_max_pool", nil, x) }

// Resize resizes x (N, C, H, W) with ONNX Resize semantics (nearest or linear).
func Resize(x *Var, p op.ResizeParams) *Var { return apply1("resize", p.Attrs(), x) }

// BatchNormEval normalises x (N, C, ...) with given per-channel statistics:
// (x - mean)/sqrt(var + eps)·scale + bias.
func BatchNormEval(x, scale, bias, mean, variance *Var, eps float64) *Var {
	return apply1("batch_norm", op.Attrs{"epsilon": eps}, x, scale, bias, mean, variance)
}

// BatchNormTrain normalises x (N, C, ...) with its per-channel batch mean and
// biased variance, and returns them too (C). Gradients flow through all three.
func BatchNormTrain(x, scale, bias *Var, eps float64) (y, mean, variance *Var) {
	o := Apply(op.Lookup("batch_norm_train"), op.Attrs{"epsilon": eps}, x, scale, bias)
	return o[0], o[1], o[2]
}

// BatchNorm is batch normalisation with running statistics runMean and
// runVar (C), Paddle's way: in training it normalises with the batch mean and
// biased variance, then updates running = momentum·running +
// (1-momentum)·batch in place (momentum 0.9 keeps 90% of the old value; the
// variance stays biased, as in Paddle's kernel); in evaluation it uses the
// running statistics. scale and bias may be nil (ones and zeros).
func BatchNorm(x, scale, bias *Var, runMean, runVar *tensor.Tensor, training bool, momentum, eps float64) *Var {
	c := x.Shape()[1]
	scale, bias = affineOrIdentity(x, scale, bias, c)
	if !training {
		return BatchNormEval(x, scale, bias, Const(runMean), Const(runVar), eps)
	}
	y, m, v := BatchNormTrain(x, scale, bias, eps)
	mom := op.ScalarLike(runMean, momentum)
	rest := op.ScalarLike(runMean, 1-momentum)
	runMean.CopyFrom(op.Add(op.Mul(runMean, mom), op.Mul(m.T.Cast(runMean.DType()), rest)))
	runVar.CopyFrom(op.Add(op.Mul(runVar, mom), op.Mul(v.T.Cast(runVar.DType()), rest)))
	return y
}

// LayerNorm normalises x over its axes [axis, rank); scale and bias have
// those axes' shape, or are nil (ones and zeros).
func LayerNorm(x, scale, bias *Var, axis int, eps float64) *Var {
	ax, err := tensor.NormAxis(axis, x.T.Rank())
	if err != nil {
		panic(&op.ShapeError{Op: "layer_norm", Err: err})
	}
	scale, bias = affineOrIdentity(x, scale, bias, x.Shape()[ax:]...)
	return apply1("layer_norm", op.Attrs{"axis": axis, "epsilon": eps}, x, scale, bias)
}

// GroupNorm normalises x (N, C, ...) over groups of C/groups channels and the
// spatial axes; scale and bias are (C) or nil.
func GroupNorm(x, scale, bias *Var, groups int, eps float64) *Var {
	scale, bias = affineOrIdentity(x, scale, bias, x.Shape()[1])
	return apply1("group_norm", op.Attrs{"groups": groups, "epsilon": eps}, x, scale, bias)
}

// InstanceNorm normalises each (sample, channel) plane of x (N, C, ...);
// scale and bias are (C) or nil.
func InstanceNorm(x, scale, bias *Var, eps float64) *Var {
	scale, bias = affineOrIdentity(x, scale, bias, x.Shape()[1])
	return apply1("instance_norm", op.Attrs{"epsilon": eps}, x, scale, bias)
}

// affineOrIdentity replaces a nil scale by ones and a nil bias by zeros.
func affineOrIdentity(x, scale, bias *Var, shape ...int) (*Var, *Var) {
	if scale == nil {
		scale = Const(tensor.Ones(x.DType(), shape...))
	}
	if bias == nil {
		bias = Const(tensor.New(x.DType(), shape...))
	}
	return scale, bias
}

// Dropout zeroes each element of x with probability p in training and scales
// the rest by 1/(1-p) (Paddle's upscale_in_train), with a mask drawn from r;
// in evaluation, or when p is 0, it returns x. Composite: a Mul by a constant mask.
func Dropout(x *Var, p float64, training bool, r *rand.Rand) *Var {
	if !training || p == 0 {
		return x
	}
	if p < 0 || p >= 1 {
		panic(fmt.Sprintf("ag: dropout probability %g outside [0, 1)", p))
	}
	m := make([]float64, x.T.Len())
	keep := 1 / (1 - p)
	for i := range m {
		if r.Float64() >= p {
			m[i] = keep
		}
	}
	return Mul(x, Const(tensor.FromSlice(m, x.Shape()...).Cast(x.DType())))
}

// GridSample samples x (N, C, H, W) bilinearly at grid (N, OH, OW, 2) of
// (x, y) in [−1, 1], zeros outside: → (N, C, OH, OW) (ONNX GridSample,
// PaddlePaddle's F.grid_sample); the gradient reaches x and the grid.
func GridSample(x, grid *Var, p op.GridSampleParams) *Var {
	return apply1("grid_sample", p.Attrs(), x, grid)
}
