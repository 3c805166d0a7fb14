package cmdutil

import (
	"path/filepath"

	"github.com/spf13/cobra"

	"paddle/core/config"
	"paddle/core/workflow"
)

// ServeModel is the model a kit's `paddle serve` loads: an export
// directory (--model) or a training checkpoint (--weights), exactly one.
type ServeModel struct {
	Model   string
	Weights string
}

// ServeModelFlags gives cmd --model and --weights for kit (what produced
// them, in their help) and returns where their values land.
func ServeModelFlags(cmd *cobra.Command, kit string) *ServeModel {
	m := &ServeModel{}
	cmd.Flags().StringVar(&m.Model, "model", "", "export directory (model.onnx + inference.yaml, from paddle "+kit+" export)")
	cmd.Flags().StringVar(&m.Weights, "weights", "", "checkpoint directory (model.safetensors + config.yaml)")
	return m
}

// Check returns a usage error unless exactly one of --model and --weights is set.
func (m *ServeModel) Check() error {
	if (m.Model == "") == (m.Weights == "") {
		return FlagErrorf("give one of --model (an export) and --weights (a checkpoint)")
	}
	return nil
}

// Config returns the model's config: -c when given, else the config.yaml
// saved in the checkpoint (or export) folder, with the -o overrides.
func (m *ServeModel) Config(f *Factory) (*config.Config, error) {
	return ModelConfig(f, m.Weights, m.Model)
}

// ModelConfig returns -c when given, else weights' (or model's) saved
// config.yaml with the -o overrides; errors are usage errors (exit 2).
func ModelConfig(f *Factory, weights, model string) (*config.Config, error) {
	dir := weights
	if dir == "" {
		dir = model
	}
	if f.Settings.Config != "" {
		return f.LoadConfig()
	}
	if workflow.IsPaddleWeights(dir) {
		return nil, FlagErrorf("--weights %s: a PaddlePaddle .pdparams holds no config: give the model's -c config.yaml", dir)
	}
	cfg, err := config.Load(filepath.Join(dir, workflow.ExportConfigFile), f.Settings.Overrides...)
	return cfg, config.Usage(err)
}
