package nn

import (
	"fmt"

	"paddle/core/ag"
)

// Reduction says how a loss combines its per-element values.
type Reduction string

// The reductions; the zero value means mean.
const (
	ReduceMean Reduction = "mean"
	ReduceSum  Reduction = "sum"
	ReduceNone Reduction = "none"
)

// ParseReduction checks a config value ("" is mean).
func ParseReduction(s string) (Reduction, error) {
	switch Reduction(s) {
	case "", ReduceMean:
		return ReduceMean, nil
	case ReduceSum, ReduceNone:
		return Reduction(s), nil
	}
	return "", fmt.Errorf("reduction %q: want mean, sum or none", s)
}

func reduce(x *ag.Var, r Reduction) *ag.Var {
	switch r {
	case ReduceSum:
		return ag.Sum(x, nil, false)
	case ReduceNone:
		return x
	}
	return ag.Mean(x, nil, false)
}

// MSE is the mean squared error (pred - target)², reduced.
func MSE(pred, target *ag.Var, r Reduction) *ag.Var {
	d := ag.Sub(pred, target)
	return reduce(ag.Mul(d, d), r)
}

// L1 is the absolute error |pred - target|, reduced.
func L1(pred, target *ag.Var, r Reduction) *ag.Var {
	return reduce(ag.Abs(ag.Sub(pred, target)), r)
}

// SmoothL1 is Huber-like: 0.5·d²/β where |d| < β, else |d| - 0.5·β
// (torch.nn.SmoothL1Loss; β = 0 is L1).
func SmoothL1(pred, target *ag.Var, beta float64, r Reduction) *ag.Var {
	d := ag.Abs(ag.Sub(pred, target))
	if beta <= 0 {
		return reduce(d, r)
	}
	// min(|d|, β) carries the quadratic part: q²/(2β) + (|d| - q) equals both branches
	q := ag.Minimum(d, ag.Scalar(d, beta))
	l := ag.Add(ag.MulScalar(ag.Mul(q, q), 0.5/beta), ag.Sub(d, q))
	return reduce(l, r)
}

// BCEOptions configure BCEWithLogits.
type BCEOptions struct {
	PosWeight *ag.Var // weight of positive examples, broadcast over the last axis (classes); nil = 1
	Weight    *ag.Var // per-element rescaling, broadcast; nil = 1
	Reduction Reduction
}

// BCEWithLogits is binary cross-entropy on logits x with targets y in [0, 1],
// in the stable form max(x,0) - x·y + log(1+exp(-|x|)); with pos_weight p it
// is (1-y)·x + (1+(p-1)·y)·(log(1+exp(-|x|)) + max(-x,0)) (torch.nn.BCEWithLogitsLoss).
func BCEWithLogits(x, y *ag.Var, o BCEOptions) *ag.Var {
	zero := ag.Scalar(x, 0)
	softplusNegAbs := ag.Log(ag.AddScalar(ag.Exp(ag.Neg(ag.Abs(x))), 1)) // log(1+exp(-|x|))
	var l *ag.Var
	if o.PosWeight == nil {
		l = ag.Add(ag.Sub(ag.Maximum(x, zero), ag.Mul(x, y)), softplusNegAbs)
	} else {
		lw := ag.AddScalar(ag.Mul(ag.AddScalar(o.PosWeight, -1), y), 1)
		l = ag.Add(ag.Mul(ag.Sub(ag.Scalar(y, 1), y), x), ag.Mul(lw, ag.Add(softplusNegAbs, ag.Maximum(ag.Neg(x), zero))))
	}
	if o.Weight != nil {
		l = ag.Mul(l, o.Weight)
	}
	return reduce(l, o.Reduction)
}

// FocalOptions configure SigmoidFocal; nil fields take torchvision's
// defaults (alpha 0.25, gamma 2). A negative Alpha disables the class balance.
type FocalOptions struct {
	Alpha     *float64  `yaml:"alpha"`
	Gamma     *float64  `yaml:"gamma"`
	Reduction Reduction `yaml:"reduction"`
}

// Float returns a pointer to v, for optional option fields.
func Float(v float64) *float64 { return &v }

// SigmoidFocal is the focal loss of Lin et al. (https://arxiv.org/abs/1708.02002)
// on logits x and binary targets y, as torchvision.ops.sigmoid_focal_loss:
// BCE(x, y)·(1-p_t)^γ·α_t with p_t = p·y + (1-p)(1-y), α_t = α·y + (1-α)(1-y).
func SigmoidFocal(x, y *ag.Var, o FocalOptions) *ag.Var {
	alpha, gamma := 0.25, 2.0
	if o.Alpha != nil {
		alpha = *o.Alpha
	}
	if o.Gamma != nil {
		gamma = *o.Gamma
	}
	p := ag.Sigmoid(x)
	ce := BCEWithLogits(x, y, BCEOptions{Reduction: ReduceNone})
	one := ag.Scalar(x, 1)
	pt := ag.Add(ag.Mul(p, y), ag.Mul(ag.Sub(one, p), ag.Sub(one, y)))
	l := ag.Mul(ce, ag.Pow(ag.Sub(one, pt), ag.Scalar(x, gamma)))
	if alpha >= 0 {
		at := ag.Add(ag.MulScalar(y, alpha), ag.MulScalar(ag.Sub(one, y), 1-alpha))
		l = ag.Mul(at, l)
	}
	return reduce(l, o.Reduction)
}

// Dice is 1 - 2·Σ(p·t·m) / (Σ(p·m) + Σ(t·m) + eps) over all elements, for
// probabilities p, targets t and an optional mask m (nil = all ones): the
// DiceLoss of PaddleOCR's DB detector (eps there is 1e-6).
func Dice(p, t, mask *ag.Var, eps float64) *ag.Var {
	if mask != nil {
		p, t = ag.Mul(p, mask), ag.Mul(t, mask)
	}
	inter := ag.Sum(ag.Mul(p, t), nil, false)
	union := ag.AddScalar(ag.Add(ag.Sum(p, nil, false), ag.Sum(t, nil, false)), eps)
	return ag.Sub(ag.Scalar(inter, 1), ag.Div(ag.MulScalar(inter, 2), union))
}
