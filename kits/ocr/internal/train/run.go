package train

import (
	"fmt"

	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/core/workflow"
)

// Steps are the Global keys that shape a training run.
type Steps struct {
	EpochNum       int // epoch_num (at least 1 is run)
	MaxSteps       int // max_steps
	PrintBatchStep int // print_batch_step
	SaveEpochStep  int // save_epoch_step
	EvalBatchStep  any // eval_batch_step, see EvalEpochs
}

// Optimize gives t the optimizer the Optimizer section opt builds over
// t.Model's parameters, its learning-rate schedule and the run's schedule
// from s. t.StepsPerEpoch must be set; file names the config in errors.
func Optimize[B any](t *workflow.Task[B], file string, opt optim.Config, s Steps) error {
	epochs := max(s.EpochNum, 1)
	if err := workflow.BuildOptimizer(t, file, opt, epochs, t.StepsPerEpoch); err != nil {
		return err
	}
	t.Schedule = workflow.Schedule{
		Epochs: epochs, MaxSteps: s.MaxSteps, LogEvery: s.PrintBatchStep,
		EvalEvery: EvalEpochs(s.EvalBatchStep, t.StepsPerEpoch), SaveEvery: s.SaveEpochStep,
	}
	return nil
}

// Pretrained loads the checkpoint folder dir (Global.pretrained_model)
// into model; nothing when dir is "".
func Pretrained(model nn.Module, dir string) error {
	if dir == "" {
		return nil
	}
	if _, err := workflow.LoadCheckpoint(dir, model, nil); err != nil {
		return fmt.Errorf("Global.pretrained_model: %w", err)
	}
	return nil
}
