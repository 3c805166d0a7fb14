package optim

import (
	"fmt"

	"paddle/core/nn"
	"paddle/core/op"
)

// AdamOptions configure Adam and AdamW.
type AdamOptions struct {
	LR          float64 `yaml:"learning_rate" check:"min=0"`
	Beta1       float64 `yaml:"beta1"`   // default 0.9 when zero
	Beta2       float64 `yaml:"beta2"`   // default 0.999 when zero
	Eps         float64 `yaml:"epsilon"` // default 1e-8 when zero
	WeightDecay float64 `yaml:"weight_decay"`
	// Decoupled selects AdamW's decoupled weight decay (p -= lr·wd·p before
	// the update) over Adam's L2 term added to the gradient.
	Decoupled bool `yaml:"decoupled"`
	// NoDecay exempts parameters from weight decay (nil: none are exempt).
	NoDecay func(nn.Param) bool `yaml:"-"`
}

// Adam is Kingma & Ba's optimizer (https://arxiv.org/abs/1412.6980) with
// torch.optim.Adam's update (AdamW's with Decoupled):
//
//	m ← β1·m + (1-β1)·g;  v ← β2·v + (1-β2)·g²
//	p ← p - lr/(1-β1^t) · m / (sqrt(v)/sqrt(1-β2^t) + eps)
//
// Its state is "<param>.exp_avg", "<param>.exp_avg_sq" and "<param>.step".
type Adam struct {
	base
	o AdamOptions
}

var _ Optimizer = (*Adam)(nil)

// NewAdam returns an Adam optimizer over params.
func NewAdam(params []nn.Param, o AdamOptions) (*Adam, error) {
	if o.Beta1 == 0 {
		o.Beta1 = 0.9
	}
	if o.Beta2 == 0 {
		o.Beta2 = 0.999
	}
	if o.Eps == 0 {
		o.Eps = 1e-8
	}
	if o.Beta1 < 0 || o.Beta1 >= 1 || o.Beta2 < 0 || o.Beta2 >= 1 {
		return nil, fmt.Errorf("adam: beta1 %g and beta2 %g must be in [0, 1)", o.Beta1, o.Beta2)
	}
	if o.WeightDecay < 0 {
		return nil, fmt.Errorf("adam: negative weight_decay %g", o.WeightDecay)
	}
	b, err := newBase(params, o.LR, "exp_avg", "exp_avg_sq", "step")
	if err != nil {
		return nil, fmt.Errorf("adam: %w", err)
	}
	return &Adam{base: b, o: o}, nil
}

// NewAdamW returns Adam with decoupled weight decay (Loshchilov & Hutter,
// https://arxiv.org/abs/1711.05101). PyTorch's default weight decay is 0.01.
func NewAdamW(params []nn.Param, o AdamOptions) (*Adam, error) {
	o.Decoupled = true
	return NewAdam(params, o)
}

// Step updates every parameter that has a gradient.
func (a *Adam) Step() {
	for _, p := range a.params {
		g := gradOf(p)
		if g == nil {
			continue
		}
		t := a.steps(p.Name)
		out := op.Call(adamDef, op.Attrs{
			"lr": a.lr, "beta1": a.o.Beta1, "beta2": a.o.Beta2, "eps": a.o.Eps, "step": t,
			"weight_decay": wdFor(p, a.o.WeightDecay, a.o.NoDecay), "decoupled": a.o.Decoupled,
		}, p.V.T, g, a.zerosOr(p.Name, "exp_avg", p.V.T), a.zerosOr(p.Name, "exp_avg_sq", p.V.T))
		p.V.T.CopyFrom(out[0])
		a.state[p.Name+".exp_avg"] = out[1]
		a.state[p.Name+".exp_avg_sq"] = out[2]
	}
}
