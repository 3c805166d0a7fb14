// Package export implements the shared `paddle <kit> export` verb: a
// training checkpoint becomes an export directory (model.onnx +
// inference.yaml + config.yaml, DESIGN §7) that `paddle <kit> predict
// --model DIR` and ONNX Runtime load. Kits opt in by implementing
// workflow.Exporter on their Runner.
package export

import (
	"fmt"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/kit"
	"paddle/core/workflow"
)

// Options are the inputs of `paddle <kit> export`.
type Options struct {
	Factory *cmdutil.Factory
	Kit     *kit.Kit
	Weights string // --weights: the checkpoint to export (with its config.yaml)
	Output  string // --output: the export directory
}

// NewCmdExport returns `paddle <kit> export`.
func NewCmdExport(f *cmdutil.Factory, k *kit.Kit, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f, Kit: k}
	_, exName := cmdutil.ExampleConfig(k.Name)
	cmd := &cobra.Command{
		Use:   "export [-c <config.yaml>] --weights <checkpoint dir> --output <export dir>",
		Short: "Export a trained model for " + cmdutil.KitSubject(k) + " to ONNX with its pre- and post-processing",
		Long: "Writes the checkpoint (--weights) as an export folder: model.onnx, inference.yaml (the\n" +
			"pre- and post-processing, as PaddleX's inference.yml) and config.yaml. `predict --model`\n" +
			"and `paddle serve " + k.Name + " --model` run it on paddle's runtime; any ONNX runtime can too.",
		Example: "  paddle " + k.Name + " export --weights out/" + exName + "/best --output inference/" + exName + "\n" +
			"  paddle " + k.Name + " predict --model inference/" + exName + " " + cmdutil.ExampleInput(k.PredictRecord) + "\n" +
			"  paddle serve " + k.Name + " --model inference/" + exName,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Weights == "" {
				return cmdutil.FlagErrorf("--weights is required")
			}
			if opts.Output == "" {
				return cmdutil.FlagErrorf("--output is required")
			}
			if runF != nil {
				return runF(opts)
			}
			return run(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Weights, "weights", "", "checkpoint directory (model.safetensors + config.yaml)")
	cmd.Flags().StringVar(&opts.Output, "output", "", "export directory to write (model.onnx, inference.yaml, config.yaml)")
	return cmd
}

func run(cmd *cobra.Command, opts *Options) error {
	// the checkpoint's own config.yaml wins unless -c is given
	var cfg *config.Config
	var err error
	if opts.Factory.Settings.Config != "" {
		cfg, err = opts.Factory.LoadConfig()
	} else if workflow.IsPaddleWeights(opts.Weights) {
		return cmdutil.FlagErrorf("--weights %s: a PaddlePaddle .pdparams holds no config: give the model's -c config.yaml", opts.Weights)
	} else {
		cfg, err = config.Load(opts.Weights+"/config.yaml", opts.Factory.Settings.Overrides...)
		err = config.Usage(err)
	}
	if err != nil {
		return err
	}
	r, err := opts.Kit.Build(cfg)
	if err != nil {
		return config.Usage(err)
	}
	ex, ok := r.(workflow.Exporter)
	if !ok {
		return config.Usage(fmt.Errorf("paddle %s cannot export its models yet", opts.Kit.Name))
	}
	env := workflow.Env{IO: opts.Factory.RunnerIO(), Config: cfg, Weights: opts.Weights, Output: opts.Output}
	if err := ex.Export(cmd.Context(), env, opts.Output); err != nil {
		return err
	}
	_, err = fmt.Fprintln(opts.Factory.IOStreams.Out, opts.Output)
	return err
}
