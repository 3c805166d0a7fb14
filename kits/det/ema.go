package det

import (
	"fmt"
	"math"
	"strings"

	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/optim"
	"paddle/core/tensor"
)

// weightEMA is PaddleDetection's ModelEMA (`use_ema`, `ema_decay`,
// `ema_decay_type`): an exponential moving average of the weights and the
// batch-norm statistics, updated after every optimizer step, that
// evaluation and the saved checkpoints use.
//
// The decay after t updates is warmed up so the average follows the fast
// early weights instead of the random init:
//   - "threshold" (PaddleDetection's default): min(decay, (1+t)/(10+t));
//   - "exponential" (YOLOv5): decay·(1 - exp(-(1+t)/2000)).
//
// The average starts at the initial weights.
type weightEMA struct {
	decay   float64
	kind    string
	updates int
	params  []nn.Param
	avg     []*tensor.Tensor // the average, or the raw weights while swapped
	swapped bool             // the params hold the average, avg the raw weights
}

// emaKinds are the ema_decay_type values.
var emaKinds = config.NameSet("threshold", "exponential")

func newWeightEMA(params []nn.Param, decay float64, kind string) (*weightEMA, error) {
	if decay <= 0 || decay >= 1 {
		return nil, fmt.Errorf("ema_decay: %g must be in (0, 1)", decay)
	}
	if kind == "" {
		kind = "threshold"
	}
	if _, ok := emaKinds.Get(kind); !ok {
		return nil, fmt.Errorf("ema_decay_type: %q is not supported (known: %s)", kind, emaKinds.Known())
	}
	e := &weightEMA{decay: decay, kind: kind, params: params}
	for _, p := range params {
		e.avg = append(e.avg, p.V.T.Clone())
	}
	return e, nil
}

// currentDecay is the decay the next update uses.
func (e *weightEMA) currentDecay() float64 {
	t := float64(e.updates)
	if e.kind == "exponential" {
		return e.decay * (1 - math.Exp(-(1+t)/2000))
	}
	return min(e.decay, (1+t)/(10+t))
}

// update folds the current weights into the average (avg ← d·avg + (1-d)·w).
func (e *weightEMA) update() {
	if e.swapped {
		e.swap()
	}
	d := float32(e.currentDecay())
	e.updates++
	for i, p := range e.params {
		a, w := e.avg[i], p.V.T
		if !w.DType().IsFloat() {
			continue
		}
		if a.DType() != tensor.Float32 || w.DType() != tensor.Float32 || !w.IsContiguous() {
			a = a.Cast(w.DType())
			e.avg[i] = op.Add(op.Mul(a, op.ScalarLike(a, float64(d))), op.Mul(w, op.ScalarLike(a, float64(1-d))))
			continue
		}
		av, wv := a.F32(), w.Contiguous().F32()
		for j := range av {
			av[j] = d*av[j] + (1-d)*wv[j]
		}
	}
}

// swap exchanges the weights and the average: called twice it restores them.
func (e *weightEMA) swap() {
	for i, p := range e.params {
		raw := p.V.T.Clone()
		p.V.T.CopyFrom(e.avg[i])
		e.avg[i] = raw
	}
	e.swapped = !e.swapped
}

// useAverage puts the average into the model (for evaluation and saving).
func (e *weightEMA) useAverage() {
	if !e.swapped {
		e.swap()
	}
}

// useRaw puts the trained weights back into the model.
func (e *weightEMA) useRaw() {
	if e.swapped {
		e.swap()
	}
}

// emaOptimizer runs an optimizer and updates a weightEMA after each step.
// Its state carries the average ("ema.<param>", "ema.updates") and, when a
// checkpoint is saved while the model holds the average, the raw weights
// ("ema.raw.<param>"), so that --resume continues exactly.
type emaOptimizer struct {
	optim.Optimizer
	ema *weightEMA
}

func (o *emaOptimizer) Step() {
	o.ema.useRaw()
	o.Optimizer.Step()
	o.ema.update()
}

func (o *emaOptimizer) State() map[string]*tensor.Tensor {
	s := o.Optimizer.State()
	e := o.ema
	s["ema.updates"] = tensor.Scalar(float64(e.updates))
	for i, p := range e.params {
		if e.swapped {
			s["ema."+p.Name] = p.V.T.Clone()
			s["ema.raw."+p.Name] = e.avg[i].Clone()
		} else {
			s["ema."+p.Name] = e.avg[i].Clone()
		}
	}
	return s
}

func (o *emaOptimizer) LoadState(s map[string]*tensor.Tensor) error {
	inner := map[string]*tensor.Tensor{}
	for k, v := range s {
		if !strings.HasPrefix(k, "ema.") {
			inner[k] = v
		}
	}
	if err := o.Optimizer.LoadState(inner); err != nil {
		return err
	}
	e := o.ema
	u, ok := s["ema.updates"]
	if !ok { // a checkpoint trained without EMA: start the average here
		e.swapped = false
		for i, p := range e.params {
			e.avg[i] = p.V.T.Clone()
		}
		return nil
	}
	e.updates, e.swapped = int(u.Item()), false
	for i, p := range e.params {
		a, ok := s["ema."+p.Name]
		if !ok || !a.Shape().Equal(p.V.T.Shape()) {
			return fmt.Errorf("ema state: ema.%s is missing or has the wrong shape", p.Name)
		}
		e.avg[i] = a.Cast(p.V.T.DType())
		if raw, ok := s["ema.raw."+p.Name]; ok { // the model was saved holding the average
			if !raw.Shape().Equal(p.V.T.Shape()) {
				return fmt.Errorf("ema state: ema.raw.%s has the wrong shape", p.Name)
			}
			p.V.T.CopyFrom(raw.Cast(p.V.T.DType()))
		}
	}
	return nil
}
