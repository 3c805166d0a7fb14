package optim

import (
	"fmt"
	"math"
	"paddle/core/config"
)

// LRConfig is the `lr:` section of a Paddle optimizer config, in epochs:
//
//	lr: {name: Cosine, learning_rate: 0.001, warmup_epoch: 2}
//
// Names: Const, Cosine, Step, Piecewise, MultiStepDecay, Linear (polynomial),
// Polynomial, OneCycle. The keys follow PaddleOCR and PaddleClas.
type LRConfig struct {
	Name          string    `yaml:"name"`
	LearningRate  float64   `yaml:"learning_rate" check:"min=0"`
	WarmupEpoch   float64   `yaml:"warmup_epoch" check:"min=0"`
	WarmupStartLR float64   `yaml:"warmup_start_lr"`
	EtaMin        float64   `yaml:"eta_min"`
	StepSize      int       `yaml:"step_size"`    // Step: epochs between decays
	Gamma         float64   `yaml:"gamma"`        // Step: decay factor (default 0.1)
	DecayEpochs   []int     `yaml:"decay_epochs"` // Piecewise: epoch boundaries
	Values        []float64 `yaml:"values"`       // Piecewise: one more than decay_epochs
	EndLR         float64   `yaml:"end_lr"`       // Linear/Polynomial; OneCycle's final rate (default 1e-4, Paddle's)
	Power         float64   `yaml:"power"`        // Linear/Polynomial (default 1)
	Milestones    []int     `yaml:"milestones"`   // MultiStepDecay: epochs where lr *= gamma
	MaxLR         float64   `yaml:"max_lr"`       // OneCycle (PaddleOCR's key); default learning_rate
	PhasePct      float64   `yaml:"phase_pct"`
	DivideFactor  float64   `yaml:"divide_factor"`
	// ByEpoch changes the rate once per epoch instead of every iteration
	// (PaddleClas's by_epoch); warm-up then also moves per epoch.
	ByEpoch bool `yaml:"by_epoch"`
	// LastEpoch is accepted and ignored: resuming continues from the
	// checkpoint's step count instead.
	LastEpoch int `yaml:"last_epoch"`
}

// A scheduleBuilder makes one kind of learning-rate schedule from the lr
// section c over total steps, stepsPerEpoch a epoch (before warmup).
type scheduleBuilder func(c LRConfig, total, stepsPerEpoch int) (Schedule, error)

// Schedules are the lr names BuildSchedule knows ("" and Constant are
// Const), each registered once; every kit's schedule goes through them.
var Schedules = new(config.Choices[scheduleBuilder]).
	Add("Const", func(c LRConfig, _, _ int) (Schedule, error) { return Constant(c.LearningRate), nil }).
	Add("Cosine", func(c LRConfig, total, _ int) (Schedule, error) {
		return Cosine{LearningRate: c.LearningRate, TMax: total, EtaMin: c.EtaMin}, nil
	}).
	Add("Step", func(c LRConfig, _, stepsPerEpoch int) (Schedule, error) {
		g := c.Gamma
		if g == 0 {
			g = 0.1
		}
		if c.StepSize <= 0 {
			return nil, fmt.Errorf("lr Step: step_size %d must be positive", c.StepSize)
		}
		return StepDecay{LearningRate: c.LearningRate, StepSize: c.StepSize * stepsPerEpoch, Gamma: g}, nil
	}).
	Add("Piecewise", func(c LRConfig, _, stepsPerEpoch int) (Schedule, error) {
		b := make([]int, len(c.DecayEpochs))
		for i, e := range c.DecayEpochs {
			b[i] = e * stepsPerEpoch
		}
		p, err := NewPiecewise(b, c.Values)
		if err != nil {
			return nil, fmt.Errorf("lr Piecewise: %w", err)
		}
		return p, nil
	}).
	Add("MultiStepDecay", func(c LRConfig, _, stepsPerEpoch int) (Schedule, error) {
		g := c.Gamma
		if g == 0 {
			g = 0.1
		}
		b := make([]int, len(c.Milestones))
		v := []float64{c.LearningRate}
		for i, e := range c.Milestones {
			b[i] = e * stepsPerEpoch
			v = append(v, v[i]*g)
		}
		p, err := NewPiecewise(b, v)
		if err != nil {
			return nil, fmt.Errorf("lr MultiStepDecay: %w", err)
		}
		return p, nil
	}).
	Add("Linear", polynomial).
	Add("Polynomial", polynomial).
	Add("OneCycle", func(c LRConfig, total, _ int) (Schedule, error) {
		m := c.MaxLR
		if m == 0 {
			m = c.LearningRate
		}
		end := c.EndLR
		if end == 0 {
			end = 1e-4
		}
		return OneCycle{MaxLR: m, TotalSteps: total, PctStart: c.PhasePct, DivFactor: c.DivideFactor, EndLR: end}, nil
	})

// polynomial is Linear (power 1 by default) and Polynomial.
func polynomial(c LRConfig, total, _ int) (Schedule, error) {
	pw := c.Power
	if pw == 0 {
		pw = 1
	}
	return Polynomial{LearningRate: c.LearningRate, DecaySteps: total, EndLR: c.EndLR, Power: pw}, nil
}

// BuildSchedule turns c into an iteration-based schedule for a run of
// epochs epochs of stepsPerEpoch iterations, the way PaddleOCR's lr builders
// do: epoch counts become step counts, and warm-up (if any) wraps the
// schedule as a LinearWarmup from warmup_start_lr to learning_rate.
func BuildSchedule(c LRConfig, epochs, stepsPerEpoch int) (Schedule, error) {
	if stepsPerEpoch <= 0 || epochs <= 0 {
		return nil, fmt.Errorf("lr %s: epochs %d and steps per epoch %d must be positive", c.Name, epochs, stepsPerEpoch)
	}
	if c.ByEpoch && stepsPerEpoch > 1 {
		c.ByEpoch = false
		s, err := BuildSchedule(c, epochs, 1)
		if err != nil {
			return nil, err
		}
		return PerEpoch{S: s, StepsPerEpoch: stepsPerEpoch}, nil
	}
	total := epochs * stepsPerEpoch
	name := c.Name
	if name == "" || name == "Constant" {
		name = "Const"
	}
	build, ok := Schedules.Get(name)
	if !ok {
		return nil, fmt.Errorf("lr: unknown name %q (known: %s)", c.Name, Schedules.Known())
	}
	s, err := build(c, total, stepsPerEpoch)
	if err != nil {
		return nil, err
	}
	if w := int(math.Round(c.WarmupEpoch * float64(stepsPerEpoch))); w > 0 {
		end := c.LearningRate
		if _, ok := s.(Piecewise); ok && len(c.Values) > 0 {
			end = c.Values[0]
		}
		s = LinearWarmup{After: s, WarmupSteps: w, StartLR: c.WarmupStartLR, EndLR: end}
	}
	return s, nil
}
