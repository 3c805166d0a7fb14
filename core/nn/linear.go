package nn

import (
	"fmt"
	"math/rand/v2"

	"paddle/core/ag"
)

// LinearOptions configure a Linear layer.
type LinearOptions struct {
	In   int  `yaml:"in_features"`
	Out  int  `yaml:"out_features"`
	Bias bool `yaml:"bias"` // NewLinear always honours it; YAML users set it explicitly
}

// Linear is y = x·Wᵀ + b with weight (Out, In) and bias (Out), PyTorch's layout.
type Linear struct {
	Weight *ag.Var // (Out, In)
	Bias   *ag.Var // (Out) or nil
}

var _ Layer = (*Linear)(nil)

// NewLinear builds a Linear layer with PyTorch's default initialisation.
func NewLinear(o LinearOptions, r *rand.Rand) (*Linear, error) {
	if o.In <= 0 || o.Out <= 0 {
		return nil, fmt.Errorf("linear: in_features %d and out_features %d must be positive", o.In, o.Out)
	}
	l := &Linear{Weight: newParam(o.Out, o.In)}
	if o.Bias {
		l.Bias = newParam(o.Out)
		DefaultInit(r, l.Weight.T, l.Bias.T, 0)
	} else {
		DefaultInit(r, l.Weight.T, nil, 0)
	}
	return l, nil
}

// Params returns weight and bias.
func (l *Linear) Params() []Param { return Collect("weight", l.Weight, "bias", l.Bias) }

// Forward maps x (..., In) to (..., Out).
func (l *Linear) Forward(x *ag.Var, _ bool) *ag.Var {
	y := ag.MatMul(x, l.Weight, false, true)
	if l.Bias != nil {
		y = ag.Add(y, l.Bias)
	}
	return y
}
