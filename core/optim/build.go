package optim

import (
	"fmt"

	"paddle/core/nn"
)

// Config is the `Optimizer:` section shared by PaddleOCR and PaddleClas configs:
//
//	Optimizer:
//	  name: Momentum            # SGD | Momentum | Adam | AdamW | RMSProp
//	  momentum: 0.9
//	  lr: {name: Cosine, learning_rate: 0.1, warmup_epoch: 1}
//	  regularizer: {name: L2, coeff: 0.0001}   # PaddleOCR spells it factor
type Config struct {
	Name        string          `yaml:"name"`
	Momentum    float64         `yaml:"momentum"`
	Nesterov    bool            `yaml:"use_nesterov"`
	Beta1       float64         `yaml:"beta1"`
	Beta2       float64         `yaml:"beta2"`
	Epsilon     float64         `yaml:"epsilon"`
	Rho         float64         `yaml:"rho"`
	WeightDecay float64         `yaml:"weight_decay"` // AdamW's decoupled decay
	LR          LRConfig        `yaml:"lr"`
	Regularizer *RegularizerCfg `yaml:"regularizer"`
	ClipNorm    float64         `yaml:"clip_norm"`
}

// RegularizerCfg is Paddle's coupled weight decay: L2 adds coeff·p to the gradient.
type RegularizerCfg struct {
	Name   string  `yaml:"name"`
	Coeff  float64 `yaml:"coeff"`
	Factor float64 `yaml:"factor"`
}

// Build makes the optimizer c names over params. The learning rate starts at
// the schedule's base value; the training loop sets it every step.
func Build(params []nn.Param, c Config) (Optimizer, error) {
	l2 := 0.0
	if r := c.Regularizer; r != nil {
		if r.Name != "L2" && r.Name != "" {
			return nil, fmt.Errorf("regularizer: unknown name %q (known: L2)", r.Name)
		}
		l2 = r.Coeff + r.Factor
	}
	lr := c.LR.LearningRate
	switch c.Name {
	case "SGD", "Momentum":
		return NewSGD(params, SGDOptions{LR: lr, Momentum: c.Momentum, Nesterov: c.Nesterov, WeightDecay: l2})
	case "Adam":
		return NewAdam(params, AdamOptions{LR: lr, Beta1: c.Beta1, Beta2: c.Beta2, Eps: c.Epsilon, WeightDecay: l2})
	case "AdamW":
		wd := c.WeightDecay
		if wd == 0 {
			wd = 0.01 // Paddle's AdamW default
		}
		return NewAdamW(params, AdamOptions{LR: lr, Beta1: c.Beta1, Beta2: c.Beta2, Eps: c.Epsilon, WeightDecay: wd})
	case "RMSProp":
		return NewRMSProp(params, RMSPropOptions{LR: lr, Alpha: c.Rho, Eps: c.Epsilon, Momentum: c.Momentum, WeightDecay: l2})
	}
	return nil, fmt.Errorf("unknown optimizer %q (known: SGD, Momentum, Adam, AdamW, RMSProp)", c.Name)
}
