package train

import (
	"context"

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

// Start is a trainer's Train verb once the model exists: workflow.Start
// with Global's pretrained_model (loaded even when resuming: the checkpoint
// then replaces it), save_model_dir and checkpoints, attrs logged first.
func Start[M nn.Module, B any](ctx context.Context, env workflow.Env, cfg *config.Config, g *Global, model M,
	newTask func(M) (*workflow.Task[B], error), attrs ...any) error {
	return workflow.Start[M, B]{
		Config:     cfg,
		Pretrained: func(m M, _ workflow.Env) error { return Pretrained(m, g.PretrainedModel) },
		Task:       newTask,
		Output:     g.SaveModelDir,
		Resume:     g.Checkpoints,
		Attrs:      attrs,
	}.Run(ctx, env, model)
}
