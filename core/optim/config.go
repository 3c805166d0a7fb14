package optim

import (
	"fmt"
	"math"
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
	var s Schedule
	switch c.Name {
	case "Const", "Constant", "":
		s = Constant(c.LearningRate)
	case "Cosine":
		s = Cosine{LearningRate: c.LearningRate, TMax: total, EtaMin: c.EtaMin}
	case "Step":
		g := c.Gamma
		if g == 0 {
			g = 0.1
		}
		if c.StepSize <= 0 {
			return nil, fmt.Errorf("lr Step: step_size %d must be positive", c.StepSize)
		}
		s = StepDecay{LearningRate: c.LearningRate, StepSize: c.StepSize * stepsPerEpoch, Gamma: g}
	case "Piecewise":
		b := make([]int, len(c.DecayEpochs))
		for i, e := range c.DecayEpochs {
			b[i] = e * stepsPerEpoch
		}
		p, err := NewPiecewise(b, c.Values)
		if err != nil {
			return nil, fmt.Errorf("lr Piecewise: %w", err)
		}
		s = p
	case "MultiStepDecay":
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
		s = p
	case "Linear", "Polynomial":
		pw := c.Power
		if pw == 0 {
			pw = 1
		}
		s = Polynomial{LearningRate: c.LearningRate, DecaySteps: total, EndLR: c.EndLR, Power: pw}
	case "OneCycle":
		m := c.MaxLR
		if m == 0 {
			m = c.LearningRate
		}
		end := c.EndLR
		if end == 0 {
			end = 1e-4
		}
		s = OneCycle{MaxLR: m, TotalSteps: total, PctStart: c.PhasePct, DivFactor: c.DivideFactor, EndLR: end}
	default:
		return nil, fmt.Errorf("lr: unknown name %q (known: Const, Cosine, Step, Piecewise, MultiStepDecay, Linear, Polynomial, OneCycle)", c.Name)
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
