package optim

import (
	"fmt"
	"math"

	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/tensor"
)

// EMA keeps an exponential moving average of a model's weights (and any
// buffers passed with them), for evaluation with smoothed weights.
//
// After each optimizer step, Update sets shadow ← d·shadow + (1-d)·p with the
// warmed-up decay d = Decay·(1 - exp(-updates/2000)) (PaddleDetection's
// ModelEMA "exponential" type, as in YOLOv5): early on d is small, so the
// average follows the fast-moving weights instead of the random init.
// The average starts at the weights (YOLOv5's ModelEMA; PaddleDetection
// starts at zeros, which the tiny early decay makes almost the same).
// Non-float tensors are copied as they are.
type EMA struct {
	Decay   float64
	updates int
	params  []nn.Param
	shadow  map[string]*tensor.Tensor
}

// NewEMA starts an average of params at their current values.
func NewEMA(params []nn.Param, decay float64) (*EMA, error) {
	if decay < 0 || decay >= 1 {
		return nil, fmt.Errorf("ema: decay %g must be in [0, 1)", decay)
	}
	e := &EMA{Decay: decay, params: params, shadow: map[string]*tensor.Tensor{}}
	for _, p := range params {
		e.shadow[p.Name] = p.V.T.Clone()
	}
	return e, nil
}

// CurrentDecay returns the decay the next Update will use.
func (e *EMA) CurrentDecay() float64 {
	return e.Decay * (1 - math.Exp(-float64(e.updates+1)/2000))
}

// Update folds the parameters' current values into the average.
func (e *EMA) Update() {
	d := e.CurrentDecay()
	e.updates++
	for _, p := range e.params {
		s := e.shadow[p.Name]
		if !p.V.T.DType().IsFloat() {
			e.shadow[p.Name] = p.V.T.Clone()
			continue
		}
		e.shadow[p.Name] = op.Add(op.Mul(s, op.ScalarLike(s, d)), op.Mul(p.V.T, op.ScalarLike(s, 1-d)))
	}
}

// Shadow returns the averaged tensor of each parameter (shared, not copies).
func (e *EMA) Shadow() map[string]*tensor.Tensor { return e.shadow }

// CopyTo writes the averages into the parameters and returns their previous
// values, which a later Restore puts back (evaluate with EMA weights, then
// continue training).
func (e *EMA) CopyTo() map[string]*tensor.Tensor {
	saved := map[string]*tensor.Tensor{}
	for _, p := range e.params {
		saved[p.Name] = p.V.T.Clone()
		p.V.T.CopyFrom(e.shadow[p.Name])
	}
	return saved
}

// Restore writes saved values (from CopyTo) back into the parameters.
func (e *EMA) Restore(saved map[string]*tensor.Tensor) {
	for _, p := range e.params {
		if t, ok := saved[p.Name]; ok {
			p.V.T.CopyFrom(t)
		}
	}
}

// State returns copies of the averages ("ema.<param>") and the update count
// ("ema.updates") for a checkpoint.
func (e *EMA) State() map[string]*tensor.Tensor {
	out := map[string]*tensor.Tensor{"ema.updates": tensor.Scalar(float64(e.updates))}
	for k, v := range e.shadow {
		out["ema."+k] = v.Clone()
	}
	return out
}

// LoadState restores State's output.
func (e *EMA) LoadState(s map[string]*tensor.Tensor) error {
	u, ok := s["ema.updates"]
	if !ok {
		return fmt.Errorf("ema state: missing ema.updates")
	}
	next := map[string]*tensor.Tensor{}
	for _, p := range e.params {
		t, ok := s["ema."+p.Name]
		if !ok {
			return fmt.Errorf("ema state: missing ema.%s", p.Name)
		}
		if !t.Shape().Equal(p.V.T.Shape()) {
			return fmt.Errorf("ema state ema.%s: shape %v, want %v", p.Name, t.Shape(), p.V.T.Shape())
		}
		next[p.Name] = t.Cast(p.V.T.DType())
	}
	e.updates, e.shadow = int(u.Item()), next
	return nil
}
