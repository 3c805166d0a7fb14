package cmdutil

import (
	"github.com/spf13/cobra"
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
