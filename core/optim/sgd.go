package optim

import (
	"fmt"

	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/tensor"
)

// SGDOptions configure SGD (Paddle's SGD and Momentum optimizers).
type SGDOptions struct {
	LR          float64 `yaml:"learning_rate" check:"min=0"`
	Momentum    float64 `yaml:"momentum"`
	Dampening   float64 `yaml:"dampening"`
	Nesterov    bool    `yaml:"use_nesterov"`
	WeightDecay float64 `yaml:"weight_decay"`
	// Decoupled applies WeightDecay to the parameter (p -= lr·wd·p) instead
	// of adding wd·p to the gradient (L2 regularisation, Paddle's default).
	Decoupled bool `yaml:"decoupled"`
	// NoDecay exempts parameters from weight decay (nil: none are exempt).
	NoDecay func(nn.Param) bool `yaml:"-"`
}

// SGD is stochastic gradient descent with optional momentum and Nesterov
// momentum, with torch.optim.SGD's update rule:
//
//	g ← g + wd·p;  buf ← μ·buf + (1-dampening)·g  (buf ← g at the first step)
//	p ← p - lr·(g + μ·buf)  (Nesterov)  or  p ← p - lr·buf
//
// Its state is "<param>.momentum_buffer" when Momentum is non-zero.
type SGD struct {
	base
	o SGDOptions
}

var _ Optimizer = (*SGD)(nil)

// NewSGD returns an SGD optimizer over params.
func NewSGD(params []nn.Param, o SGDOptions) (*SGD, error) {
	if o.Momentum < 0 || o.WeightDecay < 0 {
		return nil, fmt.Errorf("sgd: momentum %g and weight_decay %g must be non-negative", o.Momentum, o.WeightDecay)
	}
	if o.Nesterov && (o.Momentum == 0 || o.Dampening != 0) {
		return nil, fmt.Errorf("sgd: nesterov momentum needs momentum > 0 and zero dampening")
	}
	b, err := newBase(params, o.LR, "momentum_buffer")
	if err != nil {
		return nil, fmt.Errorf("sgd: %w", err)
	}
	return &SGD{base: b, o: o}, nil
}

// Step updates every parameter that has a gradient.
func (s *SGD) Step() {
	for _, p := range s.params {
		g := gradOf(p)
		if g == nil {
			continue
		}
		buf := s.slot(p.Name, "momentum_buffer")
		first := buf == nil
		if first {
			buf = g // unread: the first step (or no momentum) takes buf = g
		}
		out := op.Call(sgdDef, op.Attrs{
			"lr": s.lr, "momentum": s.o.Momentum, "dampening": s.o.Dampening, "nesterov": s.o.Nesterov,
			"weight_decay": wdFor(p, s.o.WeightDecay, s.o.NoDecay), "decoupled": s.o.Decoupled, "first": first,
		}, p.V.T, g, buf.Cast(p.V.T.DType()))
		p.V.T.CopyFrom(out[0])
		if s.o.Momentum != 0 {
			s.state[p.Name+".momentum_buffer"] = out[1]
		}
	}
}

// gradOf returns p's gradient in p's dtype, or nil when it has none.
func gradOf(p nn.Param) *tensor.Tensor {
	g := p.V.Grad
	if g == nil {
		return nil
	}
	if g.DType() != p.V.T.DType() {
		g = g.Cast(p.V.T.DType())
	}
	return g
}
