// Package optim updates a model's parameters from their gradients: the
// optimizers (SGD, Adam, AdamW, RMSProp), gradient clipping, learning-rate
// schedules and an exponential moving average of the weights.
//
// Where things are:
//
//	optimizer.go  Optimizer interface, shared state handling, weight decay
//	update.go     the fused per-element update ops (registered in core/op)
//	sgd.go adam.go rmsprop.go   the optimizers (PyTorch's update rules)
//	clip.go       ClipGradNorm
//	schedule.go   Schedule and the step-based schedules
//	config.go     BuildSchedule: Paddle's epoch-based `lr:` sections → iteration schedules
//	build.go      Build: Paddle's Optimizer section → Optimizer + Schedule (L2, clip_norm)
//	ema.go        EMA of the weights
package optim

import (
	"fmt"
	"sort"
	"strings"

	"paddle/core/nn"
	"paddle/core/tensor"
)

// Optimizer updates parameters from their gradients.
//
// Step updates every parameter that has a gradient (parameters with a nil
// Grad are skipped and keep their state). State returns the optimizer's
// tensors under deterministic names ("<param>.exp_avg", "<param>.step"), and
// LoadState restores them, so a checkpoint round-trips exactly.
type Optimizer interface {
	Step()
	ZeroGrad()
	State() map[string]*tensor.Tensor
	LoadState(map[string]*tensor.Tensor) error
	SetLR(lr float64)
	LR() float64
}

// base holds what every optimizer shares: the named parameters, the learning
// rate and the per-parameter state tensors keyed "<param>.<slot>".
type base struct {
	params []nn.Param
	lr     float64
	state  map[string]*tensor.Tensor
	slots  []string // the slot names this optimizer may keep, for LoadState checks
}

func newBase(params []nn.Param, lr float64, slots ...string) (base, error) {
	seen := map[string]bool{}
	for _, p := range params {
		if seen[p.Name] {
			return base{}, fmt.Errorf("optimizer: duplicate parameter name %q", p.Name)
		}
		seen[p.Name] = true
	}
	if lr < 0 {
		return base{}, fmt.Errorf("optimizer: negative learning rate %g", lr)
	}
	return base{params: params, lr: lr, state: map[string]*tensor.Tensor{}, slots: slots}, nil
}

// ZeroGrad drops every parameter's gradient.
func (b *base) ZeroGrad() {
	for _, p := range b.params {
		p.V.ZeroGrad()
	}
}

// LR returns the current learning rate.
func (b *base) LR() float64 { return b.lr }

// SetLR sets the learning rate used by the next Step (schedules call it).
func (b *base) SetLR(lr float64) { b.lr = lr }

// State returns copies of the optimizer's state tensors by name.
func (b *base) State() map[string]*tensor.Tensor {
	out := make(map[string]*tensor.Tensor, len(b.state))
	for k, v := range b.state {
		out[k] = v.Clone()
	}
	return out
}

// LoadState replaces the optimizer's state with copies of s. Every key must
// name a parameter and one of this optimizer's slots, with a matching shape.
func (b *base) LoadState(s map[string]*tensor.Tensor) error {
	shapes := map[string]tensor.Shape{}
	for _, p := range b.params {
		for _, slot := range b.slots {
			if slot == "step" {
				shapes[p.Name+".step"] = tensor.Shape{}
			} else {
				shapes[p.Name+"."+slot] = p.V.T.Shape()
			}
		}
	}
	var bad []string
	next := map[string]*tensor.Tensor{}
	for k, v := range s {
		want, ok := shapes[k]
		if !ok {
			bad = append(bad, k)
			continue
		}
		if !v.Shape().Equal(want) {
			return fmt.Errorf("optimizer state %s: shape %v, want %v", k, v.Shape(), want)
		}
		next[k] = v.Clone()
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("optimizer state: unknown keys %s", strings.Join(bad, ", "))
	}
	b.state = next
	return nil
}

// slot returns the state tensor "<name>.<slot>", or nil when absent.
func (b *base) slot(name, slot string) *tensor.Tensor { return b.state[name+"."+slot] }

// steps increments and returns the step count of a parameter (kept as a
// float64 scalar so it checkpoints like the other state).
func (b *base) steps(name string) int {
	k := name + ".step"
	t, ok := b.state[k]
	n := 0
	if ok {
		n = int(t.Item())
	}
	n++
	b.state[k] = tensor.Scalar(float64(n))
	return n
}

// zerosOr returns state tensor "<name>.<slot>" converted to like's dtype, or
// zeros of like's dtype and shape when it is absent.
func (b *base) zerosOr(name, slot string, like *tensor.Tensor) *tensor.Tensor {
	if t := b.slot(name, slot); t != nil {
		if t.DType() != like.DType() {
			return t.Cast(like.DType())
		}
		return t
	}
	return tensor.ZerosLike(like)
}

// wdFor is the weight decay of parameter p: wd, or 0 when noDecay exempts it.
func wdFor(p nn.Param, wd float64, noDecay func(nn.Param) bool) float64 {
	if noDecay != nil && noDecay(p) {
		return 0
	}
	return wd
}
