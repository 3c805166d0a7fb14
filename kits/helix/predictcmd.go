package helix

import (
	"context"
	"paddle/core/cli/cmdutil"
	"paddle/core/cli/predict"
	"paddle/core/config"
	"paddle/core/kit"
	"paddle/core/workflow"

	"github.com/spf13/cobra"
)

// predictOptions are the inputs of `paddle helix predict`.
type predictOptions struct {
	Factory *cmdutil.Factory
	Kit     *kit.Kit
	Weights string
	Model   string
	Smiles  []string
	Inputs  []string
	Shard   workflow.Shard // --shard I/N: of the SMILES, in order
}

// newCmdPredict is `paddle helix predict`: the shared verb's checkpoint /
// export handling plus --smiles, and SMILES files or stdin as inputs.
func newCmdPredict(f *cmdutil.Factory, k *kit.Kit, runF func(*predictOptions) error) *cobra.Command {
	opts := &predictOptions{Factory: f, Kit: k}
	var shard func() (workflow.Shard, error)
	cmd := &cobra.Command{
		Use:   "predict --weights <checkpoint dir> | --model <export dir> [--smiles S]... [file.smi|file.csv|-]...",
		Short: "Predict molecular properties from SMILES with a trained or exported model",
		Long: "Predicts every SMILES (--smiles, then the files' or stdin's) with a checkpoint (--weights)\n" +
			"or an export (--model) and writes one record per molecule in input order; a SMILES that does\n" +
			"not parse is reported and the rest go on (exit 1 at the end).\n\n" + predict.RecordHelp(PredictRecord),
		Example: "  paddle helix predict --weights output/helix/gin_chembl_reg/latest --smiles CCO\n" +
			"  cut -f1 molecules.smi | paddle helix predict --model inference/gin - --format jsonl",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if (opts.Weights == "") == (opts.Model == "") {
				return cmdutil.FlagErrorf("give one of --weights (a checkpoint) and --model (an export)")
			}
			if len(opts.Smiles) == 0 && len(args) == 0 {
				return cmdutil.FlagErrorf("give --smiles, SMILES files, or - for stdin")
			}
			var err error
			if opts.Shard, err = shard(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return predictCmdRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Weights, "weights", "", "checkpoint directory (model.safetensors + config.yaml)")
	cmd.Flags().StringVar(&opts.Model, "model", "", "export directory (model.onnx + inference.yaml, from paddle helix export)")
	cmd.Flags().StringArrayVar(&opts.Smiles, "smiles", nil, "a SMILES string (repeatable)")
	shard = cmdutil.ShardFlag(cmd)
	cmdutil.SupportsFormats(cmd, "jsonl", "json", "text")
	cmd.Long += "\n\n" + cmdutil.FormatsHelp(cmd)
	return cmd
}

func predictCmdRun(ctx context.Context, opts *predictOptions) error {
	env := workflow.Env{IO: opts.Factory.RunnerIO(), Weights: opts.Weights, Model: opts.Model, Format: opts.Factory.Settings.Format, Shard: opts.Shard}
	smiles, err := collectSmiles(opts.Smiles, opts.Inputs, opts.Factory.IOStreams.In)
	if err != nil {
		return config.Usage(err)
	}
	smiles = workflow.Sharded(opts.Shard, smiles)
	if opts.Model != "" && opts.Factory.Settings.Config == "" {
		return predictExport(env, smiles) // the export's inference.yaml says everything
	}
	var cfg *config.Config
	if opts.Factory.Settings.Config != "" {
		cfg, err = opts.Factory.LoadConfig()
	} else {
		cfg, err = config.Load(opts.Weights+"/config.yaml", opts.Factory.Settings.Overrides...)
		err = config.Usage(err)
	}
	if err != nil {
		return err
	}
	r, err := build(cfg)
	if err != nil {
		return config.Usage(err)
	}
	env.Config = cfg
	if opts.Model != "" {
		return predictExport(env, smiles)
	}
	return r.(*runner).predictSmiles(ctx, env, smiles)
}
