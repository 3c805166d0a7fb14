package optim

import (
	"errors"
	"fmt"
	"strings"

	"paddle/core/config"
	"paddle/core/nn"
)

// Config is the Optimizer section of a PaddleOCR/PaddleClas config:
//
//	Optimizer:
//	  name: Momentum        # Momentum | SGD | Adam | AdamW | RMSProp
//	  momentum: 0.9
//	  lr: {name: Cosine, learning_rate: 0.1, warmup_epoch: 5}
//	  regularizer: {name: L2, coeff: 0.0001}   # or factor: (PaddleOCR)
//	  clip_norm: 10                            # global-norm gradient clipping
type Config struct {
	Name        string       `yaml:"name"`
	Momentum    float64      `yaml:"momentum"`
	UseNesterov bool         `yaml:"use_nesterov"`
	Beta1       float64      `yaml:"beta1"`
	Beta2       float64      `yaml:"beta2"`
	Epsilon     float64      `yaml:"epsilon"`
	Rho         float64      `yaml:"rho"`
	Centered    bool         `yaml:"centered"`
	WeightDecay float64      `yaml:"weight_decay"` // AdamW's decoupled decay (Paddle's default 0.01)
	Regularizer *Regularizer `yaml:"regularizer"`
	ClipNorm    float64      `yaml:"clip_norm"`
	// NoWeightDecayName lists (space-separated) substrings of parameter names
	// that get no weight decay; OneDimParamNoWeightDecay exempts every rank-1
	// parameter (biases, norms) — both as PaddleOCR's AdamW.
	NoWeightDecayName        string   `yaml:"no_weight_decay_name"`
	OneDimParamNoWeightDecay bool     `yaml:"one_dim_param_no_weight_decay"`
	LR                       LRConfig `yaml:"lr"`
}

// Regularizer is Paddle's coupled weight decay: L2 adds coeff·p to the gradient.
type Regularizer struct {
	Name   string  `yaml:"name"`
	Coeff  float64 `yaml:"coeff"`  // PaddleClas
	Factor float64 `yaml:"factor"` // PaddleOCR
}

// Build returns the optimizer and the iteration-based learning-rate schedule
// that c describes, for a run of epochs epochs of stepsPerEpoch iterations.
// With clip_norm the optimizer clips the global gradient norm before each step.
func Build(c Config, params []nn.Param, epochs, stepsPerEpoch int) (Optimizer, Schedule, error) {
	s, err := BuildSchedule(c.LR, epochs, stepsPerEpoch)
	if err != nil {
		return nil, nil, fmt.Errorf("Optimizer.%w", err)
	}
	l2 := 0.0
	if r := c.Regularizer; r != nil {
		switch strings.ToUpper(r.Name) {
		case "L2", "L2DECAY":
			l2 = r.Coeff + r.Factor
		default:
			return nil, nil, fmt.Errorf("Optimizer.regularizer: name %q is not supported (known: L2)", r.Name)
		}
	}
	ex := exclusion(c)
	lr := s.LR(0)
	build, ok := Optimizers.Get(c.Name)
	if !ok {
		return nil, nil, fmt.Errorf("Optimizer: unknown name %q (known: %s)", c.Name, Optimizers.Known())
	}
	o, err := build(params, c, lr, l2, ex)
	if err != nil {
		return nil, nil, fmt.Errorf("Optimizer: %w", err)
	}
	if c.ClipNorm > 0 {
		o = &Clipped{Optimizer: o, Params: params, MaxNorm: c.ClipNorm}
	}
	return o, s, nil
}

// An optimizerBuilder makes one kind of optimizer from the Optimizer
// section c at learning rate lr, with coupled L2 decay l2 and the
// no-decay rule noDecay.
type optimizerBuilder func(params []nn.Param, c Config, lr, l2 float64, noDecay func(nn.Param) bool) (Optimizer, error)

// Optimizers are the Optimizer.name values Build knows, each registered
// once; every kit's optimizer goes through them.
var Optimizers = new(config.Choices[optimizerBuilder]).
	Add("Momentum", func(params []nn.Param, c Config, lr, l2 float64, ex func(nn.Param) bool) (Optimizer, error) {
		return NewSGD(params, SGDOptions{LR: lr, Momentum: c.Momentum, Nesterov: c.UseNesterov, WeightDecay: l2, NoDecay: ex})
	}).
	Add("SGD", func(params []nn.Param, c Config, lr, l2 float64, ex func(nn.Param) bool) (Optimizer, error) {
		return NewSGD(params, SGDOptions{LR: lr, Nesterov: c.UseNesterov, WeightDecay: l2, NoDecay: ex})
	}).
	Add("Adam", func(params []nn.Param, c Config, lr, l2 float64, ex func(nn.Param) bool) (Optimizer, error) {
		return NewAdam(params, AdamOptions{LR: lr, Beta1: c.Beta1, Beta2: c.Beta2, Eps: c.Epsilon, WeightDecay: l2, NoDecay: ex})
	}).
	Add("AdamW", func(params []nn.Param, c Config, lr, l2 float64, ex func(nn.Param) bool) (Optimizer, error) {
		if l2 != 0 {
			return nil, errAdamWRegularizer
		}
		wd := c.WeightDecay
		if wd == 0 {
			wd = 0.01
		}
		return NewAdamW(params, AdamOptions{LR: lr, Beta1: c.Beta1, Beta2: c.Beta2, Eps: c.Epsilon, WeightDecay: wd, NoDecay: ex})
	}).
	Add("RMSProp", func(params []nn.Param, c Config, lr, l2 float64, ex func(nn.Param) bool) (Optimizer, error) {
		return NewRMSProp(params, RMSPropOptions{LR: lr, Alpha: c.Rho, Eps: c.Epsilon, Momentum: c.Momentum, Centered: c.Centered, WeightDecay: l2, NoDecay: ex})
	})

// errAdamWRegularizer is AdamW given a coupled regularizer.
var errAdamWRegularizer = errors.New("AdamW takes weight_decay, not a regularizer")

// exclusion returns the no-weight-decay rule of c, or nil.
func exclusion(c Config) func(nn.Param) bool {
	names := strings.Fields(c.NoWeightDecayName)
	if len(names) == 0 && !c.OneDimParamNoWeightDecay {
		return nil
	}
	return func(p nn.Param) bool {
		if c.OneDimParamNoWeightDecay && p.V.T.Rank() == 1 {
			return true
		}
		for _, n := range names {
			if strings.Contains(p.Name, n) {
				return true
			}
		}
		return false
	}
}

// Clipped is an Optimizer that clips the global gradient norm of Params to
// MaxNorm (ClipGradNorm) before every step; LastNorm is the norm it saw.
type Clipped struct {
	Optimizer
	Params   []nn.Param
	MaxNorm  float64
	LastNorm float64
}

// Step clips, then steps.
func (c *Clipped) Step() {
	c.LastNorm = ClipGradNorm(c.Params, c.MaxNorm)
	c.Optimizer.Step()
}

// StepWith sets o's learning rate from s at iteration step, then steps:
// the usual training-loop call.
func StepWith(o Optimizer, s Schedule, step int) {
	o.SetLR(s.LR(step))
	o.Step()
}
