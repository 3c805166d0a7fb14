package workflow

import (
	"context"
	"log/slog"
	"os"

	"paddle/core/config"
	"paddle/core/nn"
)

// Start is a runner's Train verb once its model exists, the start-up every
// kit shares: starting weights, the training task, the output and resume
// folders the config gives where the command line left them unset, the files
// the run's folder holds besides checkpoints, one log line, and training with
// the config's YAML saved beside the checkpoints. A runner fills it and calls
// Run:
//
//	return workflow.Start[*Net, Batch]{Config: r.cfg, Task: r.trainTask, Output: r.outputDir,
//		Attrs: []any{"arch", r.arch.Name}}.Run(ctx, env, model)
type Start[M nn.Module, B any] struct {
	Config *config.Config // the resolved config; its YAML is saved with the checkpoints

	// Pretrained loads starting weights into the model (nil: none); env is
	// the command line's, so env.Resume says whether a checkpoint will
	// replace them.
	Pretrained func(model M, env Env) error

	// Task builds the training task of the model (with its train batches).
	Task func(model M) (*Task[B], error)

	// Output and Resume are the config's output folder and resume
	// checkpoint, used when the command line leaves them unset ("": none).
	Output, Resume string

	// Prepare writes what the run's folder holds besides the checkpoints
	// (label lists, vocabularies); the folder exists when it is called.
	// Nil: nothing.
	Prepare func(env Env) error

	// Attrs are logged before the parameter count ("arch", "ResNet"), Sizes
	// after it ("classes", 10); the steps per epoch and the output folder end
	// the line.
	Attrs, Sizes []any
}

// Run trains model as s describes: Pretrained, Task, the output and resume
// defaults, the config's YAML, Prepare, the log line, then the task's Train.
func (s Start[M, B]) Run(ctx context.Context, env Env, model M) error {
	if s.Pretrained != nil {
		if err := s.Pretrained(model, env); err != nil {
			return err
		}
	}
	t, err := s.Task(model)
	if err != nil {
		return err
	}
	if env.Output == "" {
		env.Output = s.Output
	}
	if env.Resume == "" {
		env.Resume = s.Resume
	}
	y, err := s.Config.YAML()
	if err != nil {
		return err
	}
	if s.Prepare != nil {
		if err := os.MkdirAll(env.Output, 0o755); err != nil {
			return err
		}
		if err := s.Prepare(env); err != nil {
			return err
		}
	}
	attrs := append(append(append([]any{}, s.Attrs...), "params", nn.NumParams(model)), s.Sizes...)
	slog.Info("train", append(attrs, "steps/epoch", t.StepsPerEpoch, "output", env.Output)...)
	return t.Train(ctx, env, y)
}
