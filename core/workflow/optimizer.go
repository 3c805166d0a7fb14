package workflow

import (
	"fmt"

	"paddle/core/nn"
	"paddle/core/optim"
)

// BuildOptimizer gives t the optimizer that c builds over t.Model's
// parameters for epochs of stepsPerEpoch steps, and the learning rate its
// schedule gives each step. file names the config in the error. A model
// that is an optim.LRMultiplier gets its parameters' learning-rate
// multipliers (frozen ones are not trained).
func BuildOptimizer[B any](t *Task[B], file string, c optim.Config, epochs, stepsPerEpoch int) error {
	build := optim.Build
	if m, ok := t.Model.(optim.LRMultiplier); ok {
		build = func(c optim.Config, params []nn.Param, epochs, steps int) (optim.Optimizer, optim.Schedule, error) {
			return optim.BuildMult(c, params, m.LRMult, epochs, steps)
		}
	}
	o, sched, err := build(c, t.Model.Params(), epochs, stepsPerEpoch)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	t.Optimizer = o
	t.LR = func(step int, _ float64) float64 { return sched.LR(step) }
	if stepsPerEpoch == t.StepsPerEpoch { // an epoch of the loader's steps: a distributed run has fewer
		t.reschedule = func(steps int) error {
			_, sched, err := build(c, t.Model.Params(), epochs, steps)
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			t.LR = func(step int, _ float64) float64 { return sched.LR(step) }
			return nil
		}
	}
	return nil
}
