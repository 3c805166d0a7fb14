package optim

import (
	"fmt"
	"math"
)

// A Schedule gives the learning rate at a step (0-based). Whether a step is
// an iteration or an epoch is the caller's choice; PerEpoch adapts an
// epoch-based schedule to iterations, and BuildSchedule converts Paddle's
// epoch-denominated configs into iteration-based schedules.
type Schedule interface {
	LR(step int) float64
}

// Constant is a fixed learning rate.
type Constant float64

// LR returns the constant.
func (c Constant) LR(int) float64 { return float64(c) }

// StepDecay multiplies LearningRate by Gamma every StepSize steps:
// lr·γ^⌊step/StepSize⌋ (paddle.optimizer.lr.StepDecay, torch StepLR).
type StepDecay struct {
	LearningRate float64 `yaml:"learning_rate" check:"min=0"`
	StepSize     int     `yaml:"step_size"`
	Gamma        float64 `yaml:"gamma"`
}

// LR returns the decayed rate.
func (s StepDecay) LR(step int) float64 {
	return s.LearningRate * math.Pow(s.Gamma, float64(step/max(s.StepSize, 1)))
}

// Piecewise is Values[i] for Boundaries[i-1] <= step < Boundaries[i]
// (paddle.optimizer.lr.PiecewiseDecay); len(Values) = len(Boundaries)+1.
type Piecewise struct {
	Boundaries []int     `yaml:"boundaries"`
	Values     []float64 `yaml:"values"`
}

// NewPiecewise checks the boundaries (increasing) and the number of values.
func NewPiecewise(boundaries []int, values []float64) (Piecewise, error) {
	if len(values) != len(boundaries)+1 {
		return Piecewise{}, fmt.Errorf("piecewise: %d values for %d boundaries, want %d", len(values), len(boundaries), len(boundaries)+1)
	}
	for i := 1; i < len(boundaries); i++ {
		if boundaries[i] <= boundaries[i-1] {
			return Piecewise{}, fmt.Errorf("piecewise: boundaries %v are not increasing", boundaries)
		}
	}
	return Piecewise{boundaries, values}, nil
}

// LR returns the value of the interval holding step.
func (p Piecewise) LR(step int) float64 {
	for i, b := range p.Boundaries {
		if step < b {
			return p.Values[i]
		}
	}
	return p.Values[len(p.Values)-1]
}

// Cosine anneals from LearningRate to EtaMin over TMax steps:
// η_min + (lr-η_min)·(1+cos(π·step/TMax))/2 (the closed form of
// paddle.optimizer.lr.CosineAnnealingDecay and torch CosineAnnealingLR).
// After TMax it stays at EtaMin.
type Cosine struct {
	LearningRate float64 `yaml:"learning_rate" check:"min=0"`
	TMax         int     `yaml:"T_max"`
	EtaMin       float64 `yaml:"eta_min"`
}

// LR returns the annealed rate.
func (c Cosine) LR(step int) float64 {
	if step >= c.TMax {
		return c.EtaMin
	}
	return c.EtaMin + (c.LearningRate-c.EtaMin)*(1+math.Cos(math.Pi*float64(step)/float64(c.TMax)))/2
}

// Polynomial decays from LearningRate to EndLR over DecaySteps:
// (lr-end)·(1-min(step, N)/N)^Power + end (paddle.optimizer.lr.PolynomialDecay
// without cycle).
type Polynomial struct {
	LearningRate float64 `yaml:"learning_rate" check:"min=0"`
	DecaySteps   int     `yaml:"decay_steps"`
	EndLR        float64 `yaml:"end_lr"`
	Power        float64 `yaml:"power"`
}

// LR returns the decayed rate.
func (p Polynomial) LR(step int) float64 {
	n := float64(max(p.DecaySteps, 1))
	s := math.Min(float64(step), n)
	return (p.LearningRate-p.EndLR)*math.Pow(1-s/n, p.Power) + p.EndLR
}

// LinearWarmup ramps linearly from StartLR to EndLR over WarmupSteps, then
// follows After shifted by the warm-up: After.LR(step-WarmupSteps), as
// paddle.optimizer.lr.LinearWarmup does. A nil After keeps EndLR.
type LinearWarmup struct {
	After       Schedule
	WarmupSteps int
	StartLR     float64
	EndLR       float64
}

// LR returns the warm-up rate, then After's.
func (w LinearWarmup) LR(step int) float64 {
	if step < w.WarmupSteps {
		return w.StartLR + (w.EndLR-w.StartLR)*float64(step)/float64(w.WarmupSteps)
	}
	if w.After == nil {
		return w.EndLR
	}
	return w.After.LR(step - w.WarmupSteps)
}

// OneCycle is torch.optim.lr_scheduler.OneCycleLR (and Paddle's OneCycleLR)
// with cosine annealing, two phases: from MaxLR/DivFactor up to MaxLR over
// the first PctStart of TotalSteps, then down to the final rate at the last
// step: EndLR when positive (Paddle's end_learning_rate), else
// MaxLR/DivFactor/FinalDivFactor (PyTorch). Zero fields take PyTorch's
// defaults (PctStart 0.3, DivFactor 25, FinalDivFactor 1e4).
type OneCycle struct {
	MaxLR          float64 `yaml:"max_learning_rate"`
	TotalSteps     int     `yaml:"total_steps"`
	PctStart       float64 `yaml:"phase_pct"`
	DivFactor      float64 `yaml:"divide_factor"`
	FinalDivFactor float64 `yaml:"final_divide_factor"`
	EndLR          float64 `yaml:"end_learning_rate"`
}

// LR returns the one-cycle rate.
func (o OneCycle) LR(step int) float64 {
	pct, div, fdiv := o.PctStart, o.DivFactor, o.FinalDivFactor
	if pct == 0 {
		pct = 0.3
	}
	if div == 0 {
		div = 25
	}
	if fdiv == 0 {
		fdiv = 1e4
	}
	initial := o.MaxLR / div
	minLR := initial / fdiv
	if o.EndLR > 0 {
		minLR = o.EndLR
	}
	end1 := pct*float64(o.TotalSteps) - 1
	end2 := float64(o.TotalSteps - 1)
	s := float64(step)
	anneal := func(from, to, p float64) float64 { return to + (from-to)/2*(math.Cos(math.Pi*p)+1) }
	if s <= end1 {
		return anneal(initial, o.MaxLR, s/end1)
	}
	return anneal(o.MaxLR, minLR, math.Min((s-end1)/(end2-end1), 1))
}

// PerEpoch turns an epoch-based schedule into an iteration-based one:
// LR(step) = s.LR(step / StepsPerEpoch).
type PerEpoch struct {
	S             Schedule
	StepsPerEpoch int
}

// LR returns the rate of the epoch holding step.
func (p PerEpoch) LR(step int) float64 { return p.S.LR(step / max(p.StepsPerEpoch, 1)) }
