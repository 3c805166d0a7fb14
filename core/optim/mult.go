package optim

import (
	"fmt"
	"strings"

	"paddle/core/nn"
	"paddle/core/tensor"
)

// LRMultiplier is a model whose parameters train at scaled learning rates,
// as PaddlePaddle's ParamAttr(learning_rate=m) (PaddleDetection's and
// PaddleClas's lr_mult_list, freeze_at): LRMult returns the multiplier of
// the parameter named name, 1 for the base rate, 0 for a frozen parameter.
type LRMultiplier interface {
	LRMult(name string) float64
}

// BuildMult is Build with per-parameter learning-rate multipliers: one
// optimizer per distinct multiplier m > 0, stepping at the schedule's rate
// times m; parameters of multiplier 0 are frozen (no optimizer updates
// them, ZeroGrad still drops their gradients). With clip_norm the global
// norm is that of every trained parameter's gradient together. When every
// multiplier is 1 it is Build.
func BuildMult(c Config, params []nn.Param, mult func(name string) float64, epochs, stepsPerEpoch int) (Optimizer, Schedule, error) {
	var order []float64
	groups := map[float64][]nn.Param{}
	var frozen, trained []nn.Param
	for _, p := range params {
		m := mult(p.Name)
		switch {
		case m < 0:
			return nil, nil, fmt.Errorf("Optimizer: parameter %s: negative learning-rate multiplier %g", p.Name, m)
		case m == 0:
			frozen = append(frozen, p)
			continue
		}
		if _, ok := groups[m]; !ok {
			order = append(order, m)
		}
		groups[m] = append(groups[m], p)
		trained = append(trained, p)
	}
	if len(frozen) == 0 && len(order) == 1 && order[0] == 1 {
		return Build(c, params, epochs, stepsPerEpoch)
	}
	if len(trained) == 0 {
		return nil, nil, fmt.Errorf("Optimizer: every parameter is frozen (learning-rate multiplier 0)")
	}
	clip := c.ClipNorm
	c.ClipNorm = 0
	g := &groupOptimizer{frozen: frozen, owner: map[string]int{}}
	var sched Schedule
	for i, m := range order {
		o, s, err := Build(c, groups[m], epochs, stepsPerEpoch)
		if err != nil {
			return nil, nil, err
		}
		sched = s
		g.opts, g.mults = append(g.opts, o), append(g.mults, m)
		for _, p := range groups[m] {
			g.owner[p.Name] = i
		}
	}
	g.SetLR(sched.LR(0))
	var o Optimizer = g
	if clip > 0 {
		o = &Clipped{Optimizer: g, Params: trained, MaxNorm: clip}
	}
	return o, sched, nil
}

// groupOptimizer steps one optimizer per learning-rate multiplier.
type groupOptimizer struct {
	opts   []Optimizer
	mults  []float64
	owner  map[string]int // parameter name → index in opts
	frozen []nn.Param
	lr     float64
}

// Step steps every group.
func (g *groupOptimizer) Step() {
	for _, o := range g.opts {
		o.Step()
	}
}

// ZeroGrad drops every gradient, the frozen parameters' too.
func (g *groupOptimizer) ZeroGrad() {
	for _, o := range g.opts {
		o.ZeroGrad()
	}
	for _, p := range g.frozen {
		p.V.ZeroGrad()
	}
}

// SetLR sets the base rate: group i steps at lr·mult[i].
func (g *groupOptimizer) SetLR(lr float64) {
	g.lr = lr
	for i, o := range g.opts {
		o.SetLR(lr * g.mults[i])
	}
}

// LR returns the base rate.
func (g *groupOptimizer) LR() float64 { return g.lr }

// State merges the groups' states (their keys are "<param>.<slot>", unique).
func (g *groupOptimizer) State() map[string]*tensor.Tensor {
	out := map[string]*tensor.Tensor{}
	for _, o := range g.opts {
		for k, v := range o.State() {
			out[k] = v
		}
	}
	return out
}

// LoadState gives each group the keys of its parameters.
func (g *groupOptimizer) LoadState(s map[string]*tensor.Tensor) error {
	parts := make([]map[string]*tensor.Tensor, len(g.opts))
	for i := range parts {
		parts[i] = map[string]*tensor.Tensor{}
	}
	for k, v := range s {
		i, ok := -1, false
		if dot := strings.LastIndexByte(k, '.'); dot > 0 {
			i, ok = g.owner[k[:dot]]
		}
		if !ok {
			return fmt.Errorf("optimizer state: unknown key %s (not a trained parameter's)", k)
		}
		parts[i][k] = v
	}
	for i, o := range g.opts {
		if err := o.LoadState(parts[i]); err != nil {
			return err
		}
	}
	return nil
}
