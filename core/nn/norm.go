package nn

import (
	"fmt"

	"paddle/core/ag"
	"paddle/core/op"
	"paddle/core/tensor"
)

// Normalisation layers over core/op's fused primitives batch_norm,
// batch_norm_train, layer_norm and group_norm (two passes each way instead
// of a composite's ten). Unlike ag.BatchNorm (Paddle's momentum, biased
// running variance), BatchNorm here keeps PyTorch's running statistics.

// BatchNormOptions configure BatchNorm1D and BatchNorm2D.
type BatchNormOptions struct {
	NumFeatures int     `yaml:"num_features"`
	Eps         float64 `yaml:"epsilon"` // default 1e-5 when zero
	// Momentum weighs the new batch statistics in the running averages,
	// PyTorch's convention: running = (1-m)·running + m·batch (default 0.1).
	// Paddle's momentum is 1-m (its default 0.9 is this 0.1).
	Momentum float64 `yaml:"momentum"`
	NoAffine bool    `yaml:"no_affine"` // no weight and bias
}

// BatchNorm normalises each channel (axis 1) over the batch and the spatial
// axes (Ioffe & Szegedy 2015, https://arxiv.org/abs/1502.03167). In training
// it uses the batch's mean and biased variance and updates the running mean
// and the running unbiased variance; in evaluation it uses the running ones.
// BatchNorm1D takes (N, C) or (N, C, L); BatchNorm2D (N, C, H, W).
type BatchNorm struct {
	Weight, Bias            *ag.Var // (C), nil without affine
	RunningMean, RunningVar *ag.Var // (C) buffers
	NumBatchesTracked       *ag.Var // scalar int64 buffer, as PyTorch keeps it
	eps, momentum           float64
	ranks                   []int   // accepted input ranks
	sync                    Reducer // non-nil: statistics over all ranks (SyncBatchNorm)
}

var _ Layer = (*BatchNorm)(nil)
var _ Bufferer = (*BatchNorm)(nil)

// NewBatchNorm1D builds batch normalisation for (N, C) or (N, C, L) inputs.
func NewBatchNorm1D(o BatchNormOptions) (*BatchNorm, error) { return newBatchNorm(o, 2, 3) }

// NewBatchNorm2D builds batch normalisation for (N, C, H, W) inputs.
func NewBatchNorm2D(o BatchNormOptions) (*BatchNorm, error) { return newBatchNorm(o, 4) }

func newBatchNorm(o BatchNormOptions, ranks ...int) (*BatchNorm, error) {
	if o.NumFeatures <= 0 {
		return nil, fmt.Errorf("batch norm: num_features %d must be positive", o.NumFeatures)
	}
	if o.Eps == 0 {
		o.Eps = 1e-5
	}
	if o.Momentum == 0 {
		o.Momentum = 0.1
	}
	if o.Momentum < 0 || o.Momentum > 1 {
		return nil, fmt.Errorf("batch norm: momentum %g must be in [0, 1]", o.Momentum)
	}
	c := o.NumFeatures
	b := &BatchNorm{
		RunningMean: newBuffer(0, c), RunningVar: newBuffer(1, c),
		NumBatchesTracked: ag.Const(tensor.Scalar(int64(0))),
		eps:               o.Eps, momentum: o.Momentum, ranks: ranks,
	}
	if !o.NoAffine {
		b.Weight, b.Bias = ag.Param(tensor.Ones(tensor.Float32, c)), newParam(c)
	}
	return b, nil
}

// Params returns weight and bias.
func (b *BatchNorm) Params() []Param { return Collect("weight", b.Weight, "bias", b.Bias) }

// Buffers returns running_mean, running_var and num_batches_tracked.
func (b *BatchNorm) Buffers() []Param {
	return CollectBuffers("running_mean", b.RunningMean, "running_var", b.RunningVar, "num_batches_tracked", b.NumBatchesTracked)
}

// Forward normalises x (N, C, ...) per channel.
func (b *BatchNorm) Forward(x *ag.Var, training bool) *ag.Var {
	s := x.Shape()
	ok := false
	for _, r := range b.ranks {
		ok = ok || len(s) == r
	}
	c := b.RunningMean.T.Len()
	if !ok || s[1] != c {
		panic(&op.ShapeError{Op: "batch_norm", Err: fmt.Errorf("input %v, want rank %v with %d channels", s, b.ranks, c)})
	}
	w, bias := b.Weight, b.Bias
	if w == nil {
		w, bias = ag.Const(tensor.Ones(x.DType(), c)), ag.Const(tensor.New(x.DType(), c))
	}
	if training && b.sync != nil {
		return b.syncForward(x, w, bias)
	}
	if training {
		y, mean, v := ag.BatchNormTrain(x, w, bias, b.eps)
		b.track(mean.T, v.T, s.NumElements()/c)
		return y
	}
	// the buffers themselves when the dtypes match, so a trace names them
	mean, v := b.RunningMean, b.RunningVar
	if mean.DType() != x.DType() {
		mean, v = ag.Const(mean.T.Cast(x.DType())), ag.Const(v.T.Cast(x.DType()))
	}
	return ag.BatchNormEval(x, w, bias, mean, v, b.eps)
}

// track folds a batch's mean and biased variance (over n values per
// channel) into the running statistics, with the unbiased variance.
func (b *BatchNorm) track(mean, v *tensor.Tensor, n int) {
	m := b.momentum
	rm, rv := b.RunningMean.T, b.RunningVar.T
	unbiased := op.Mul(v, op.ScalarLike(v, float64(n)/float64(max(n-1, 1))))
	upd := func(run, stat *tensor.Tensor) {
		stat = stat.Reshape(run.Shape()...).Cast(run.DType())
		run.CopyFrom(op.Add(op.Mul(run, op.ScalarLike(run, 1-m)), op.Mul(stat, op.ScalarLike(run, m))))
	}
	upd(rm, mean)
	upd(rv, unbiased)
	b.NumBatchesTracked.T.CopyFrom(tensor.Scalar(int64(b.NumBatchesTracked.T.Item()) + 1))
}

// LayerNormOptions configure LayerNorm.
type LayerNormOptions struct {
	Shape    []int   `yaml:"normalized_shape"` // the trailing dims normalised together
	Eps      float64 `yaml:"epsilon"`          // default 1e-5 when zero
	NoAffine bool    `yaml:"no_affine"`
}

// LayerNorm normalises over the trailing Shape dims (Ba et al. 2016,
// https://arxiv.org/abs/1607.06450): (x - mean)/sqrt(var + eps)·weight + bias
// with the biased variance.
type LayerNorm struct {
	Weight, Bias *ag.Var // Shape, nil without affine
	shape        []int
	eps          float64
}

var _ Layer = (*LayerNorm)(nil)

// NewLayerNorm builds a LayerNorm with weight 1 and bias 0.
func NewLayerNorm(o LayerNormOptions) (*LayerNorm, error) {
	if len(o.Shape) == 0 {
		return nil, fmt.Errorf("layer norm: normalized_shape is empty")
	}
	if o.Eps == 0 {
		o.Eps = 1e-5
	}
	l := &LayerNorm{shape: append([]int(nil), o.Shape...), eps: o.Eps}
	if !o.NoAffine {
		l.Weight, l.Bias = ag.Param(tensor.Ones(tensor.Float32, o.Shape...)), newParam(o.Shape...)
	}
	return l, nil
}

// Params returns weight and bias.
func (l *LayerNorm) Params() []Param { return Collect("weight", l.Weight, "bias", l.Bias) }

// Forward normalises x (..., Shape...) over its trailing dims.
func (l *LayerNorm) Forward(x *ag.Var, _ bool) *ag.Var {
	s := x.Shape()
	k := len(l.shape)
	if len(s) < k || !tensor.Shape(s[len(s)-k:]).Equal(l.shape) {
		panic(&op.ShapeError{Op: "layer_norm", Err: fmt.Errorf("input %v does not end with normalized_shape %v", s, l.shape)})
	}
	return ag.LayerNorm(x, l.Weight, l.Bias, len(s)-k, l.eps)
}

// GroupNormOptions configure GroupNorm.
type GroupNormOptions struct {
	NumGroups   int     `yaml:"num_groups"`
	NumChannels int     `yaml:"num_channels"`
	Eps         float64 `yaml:"epsilon"` // default 1e-5 when zero
}

// GroupNorm normalises x (N, C, ...) over groups of C/G channels and the
// spatial axes (Wu & He 2018, https://arxiv.org/abs/1803.08494), then applies
// a per-channel weight and bias.
type GroupNorm struct {
	Weight, Bias *ag.Var // (C)
	groups       int
	eps          float64
}

var _ Layer = (*GroupNorm)(nil)

// NewGroupNorm builds a GroupNorm with weight 1 and bias 0.
func NewGroupNorm(o GroupNormOptions) (*GroupNorm, error) {
	if o.NumGroups <= 0 || o.NumChannels <= 0 || o.NumChannels%o.NumGroups != 0 {
		return nil, fmt.Errorf("group norm: num_groups %d must divide num_channels %d", o.NumGroups, o.NumChannels)
	}
	if o.Eps == 0 {
		o.Eps = 1e-5
	}
	return &GroupNorm{Weight: ag.Param(tensor.Ones(tensor.Float32, o.NumChannels)), Bias: newParam(o.NumChannels),
		groups: o.NumGroups, eps: o.Eps}, nil
}

// Params returns weight and bias.
func (g *GroupNorm) Params() []Param { return Collect("weight", g.Weight, "bias", g.Bias) }

// Forward normalises x (N, C, ...).
func (g *GroupNorm) Forward(x *ag.Var, _ bool) *ag.Var {
	s := x.Shape()
	c := g.Weight.T.Len()
	if len(s) < 2 || s[1] != c {
		panic(&op.ShapeError{Op: "group_norm", Err: fmt.Errorf("input %v, want (N, %d, ...)", s, c)})
	}
	return ag.GroupNorm(x, g.Weight, g.Bias, g.groups, g.eps)
}
