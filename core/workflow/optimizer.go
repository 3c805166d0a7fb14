package workflow

import (
	"fmt"

	"paddle/core/optim"
)

// BuildOptimizer gives t the optimizer that c builds over t.Model's
// parameters for epochs of stepsPerEpoch steps, and the learning rate its
// schedule gives each step. file names the config in the error.
func BuildOptimizer[B any](t *Task[B], file string, c optim.Config, epochs, stepsPerEpoch int) error {
	o, sched, err := optim.Build(c, t.Model.Params(), epochs, stepsPerEpoch)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	t.Optimizer = o
	t.LR = func(step int, _ float64) float64 { return sched.LR(step) }
	if stepsPerEpoch == t.StepsPerEpoch { // an epoch of the loader's steps: a distributed run has fewer
		t.reschedule = func(steps int) error {
			_, sched, err := optim.Build(c, t.Model.Params(), epochs, steps)
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			t.LR = func(step int, _ float64) float64 { return sched.LR(step) }
			return nil
		}
	}
	return nil
}
