package optim

import (
	"fmt"

	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/tensor"
)

// RMSPropOptions configure RMSProp.
type RMSPropOptions struct {
	LR          float64 `yaml:"learning_rate" check:"min=0"`
	Alpha       float64 `yaml:"rho"`     // smoothing constant; default 0.99 when zero
	Eps         float64 `yaml:"epsilon"` // default 1e-8 when zero
	Momentum    float64 `yaml:"momentum"`
	Centered    bool    `yaml:"centered"`
	WeightDecay float64 `yaml:"weight_decay"`
	Decoupled   bool    `yaml:"decoupled"`
	// NoDecay exempts parameters from weight decay (nil: none are exempt).
	NoDecay func(nn.Param) bool `yaml:"-"`
}

// RMSProp is Hinton's RMSProp with torch.optim.RMSprop's update:
//
//	s ← α·s + (1-α)·g²;  centered: ḡ ← α·ḡ + (1-α)·g, s' = s - ḡ²
//	avg = sqrt(s') + eps  (eps outside the root, as PyTorch; Paddle puts it inside)
//	buf ← μ·buf + g/avg, p ← p - lr·buf   (or p ← p - lr·g/avg without momentum)
//
// Its state is "<param>.square_avg", "<param>.grad_avg" (centered) and
// "<param>.momentum_buffer" (momentum).
type RMSProp struct {
	base
	o RMSPropOptions
}

var _ Optimizer = (*RMSProp)(nil)

// NewRMSProp returns an RMSProp optimizer over params.
func NewRMSProp(params []nn.Param, o RMSPropOptions) (*RMSProp, error) {
	if o.Alpha == 0 {
		o.Alpha = 0.99
	}
	if o.Eps == 0 {
		o.Eps = 1e-8
	}
	if o.Alpha < 0 || o.Alpha >= 1 || o.Momentum < 0 || o.WeightDecay < 0 {
		return nil, fmt.Errorf("rmsprop: rho %g must be in [0, 1); momentum %g and weight_decay %g non-negative", o.Alpha, o.Momentum, o.WeightDecay)
	}
	b, err := newBase(params, o.LR, "square_avg", "grad_avg", "momentum_buffer")
	if err != nil {
		return nil, fmt.Errorf("rmsprop: %w", err)
	}
	return &RMSProp{base: b, o: o}, nil
}

// Step updates every parameter that has a gradient.
func (r *RMSProp) Step() {
	for _, p := range r.params {
		g := gradOf(p)
		if g == nil {
			continue
		}
		out := op.Call(rmspropDef, op.Attrs{
			"lr": r.lr, "alpha": r.o.Alpha, "eps": r.o.Eps, "momentum": r.o.Momentum, "centered": r.o.Centered,
			"weight_decay": wdFor(p, r.o.WeightDecay, r.o.NoDecay), "decoupled": r.o.Decoupled,
		}, p.V.T, g, r.zerosOr(p.Name, "square_avg", p.V.T), r.unless(r.o.Centered, p.Name, "grad_avg", g),
			r.unless(r.o.Momentum > 0, p.Name, "momentum_buffer", g))
		p.V.T.CopyFrom(out[0])
		r.state[p.Name+".square_avg"] = out[1]
		if r.o.Centered {
			r.state[p.Name+".grad_avg"] = out[2]
		}
		if r.o.Momentum > 0 {
			r.state[p.Name+".momentum_buffer"] = out[3]
		}
	}
}

// unless returns the slot when it is used, else the unread stand-in g.
func (r *RMSProp) unless(used bool, name, slot string, g *tensor.Tensor) *tensor.Tensor {
	if !used {
		return g
	}
	return r.zerosOr(name, slot, g)
}
