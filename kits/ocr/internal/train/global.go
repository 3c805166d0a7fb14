package train

import (
	"context"
	"log/slog"

	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/workflow"
)

// Global is PaddleOCR's Global section, the same for the detection and the
// recognition configs (seed and max_steps are ours).
type Global struct {
	EpochNum        int    `yaml:"epoch_num" check:"min=1"`
	PrintBatchStep  int    `yaml:"print_batch_step"` // log every N steps
	SaveModelDir    string `yaml:"save_model_dir"`
	SaveEpochStep   int    `yaml:"save_epoch_step"`  // save epoch_<n> every N epochs
	EvalBatchStep   any    `yaml:"eval_batch_step"`  // [start, every N steps] or N; rounded to whole epochs
	PretrainedModel string `yaml:"pretrained_model"` // a checkpoint folder whose weights start the run
	Checkpoints     string `yaml:"checkpoints"`      // a checkpoint folder to resume from (as --resume)
	Seed            uint64 `yaml:"seed"`
	MaxSteps        int    `yaml:"max_steps"` // stop after N optimizer steps (0: run every epoch)

	// The recognizer's dictionary and label length; detection ignores them.
	CharacterDictPath string `yaml:"character_dict_path"`
	MaxTextLength     int    `yaml:"max_text_length" check:"min=1"`
	UseSpaceChar      bool   `yaml:"use_space_char"`

	// Accepted for compatibility with PaddleOCR files; they change nothing here.
	UseGPU               bool   `yaml:"use_gpu"`
	Distributed          bool   `yaml:"distributed"`
	LogSmoothWindow      int    `yaml:"log_smooth_window"`
	CalMetricDuringTrain bool   `yaml:"cal_metric_during_train"`
	SaveInferenceDir     string `yaml:"save_inference_dir"`
	UseVisualDL          bool   `yaml:"use_visualdl"`
	InferImg             string `yaml:"infer_img"`
	InferMode            bool   `yaml:"infer_mode"`
	SaveResPath          string `yaml:"save_res_path"`
	CharacterType        string `yaml:"character_type"`
}

// Steps are the Global keys that shape the run.
func (g *Global) Steps() Steps {
	return Steps{EpochNum: g.EpochNum, MaxSteps: g.MaxSteps, PrintBatchStep: g.PrintBatchStep,
		SaveEpochStep: g.SaveEpochStep, EvalBatchStep: g.EvalBatchStep}
}

// Start is a trainer's Train verb once the model exists: it loads
// Global.pretrained_model into model, builds the training task with
// newTask, takes the output and resume folders from Global where the
// command line left them unset, logs attrs with the parameter count, and
// trains, saving cfg's YAML beside the checkpoints.
func Start[M nn.Module, B any](ctx context.Context, env workflow.Env, cfg *config.Config, g *Global, model M,
	newTask func(M) (*workflow.Task[B], error), attrs ...any) error {
	if err := Pretrained(model, g.PretrainedModel); err != nil {
		return err
	}
	t, err := newTask(model)
	if err != nil {
		return err
	}
	Defaults(&env, g.SaveModelDir, g.Checkpoints)
	y, err := cfg.YAML()
	if err != nil {
		return err
	}
	attrs = append(attrs, "params", nn.NumParams(model), "steps/epoch", t.StepsPerEpoch, "output", env.Output)
	slog.Info("train", attrs...)
	return t.Train(ctx, env, y)
}
