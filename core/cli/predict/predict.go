// Package predict implements the shared `paddle <kit> predict` verb.
package predict

import (
	"path"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/kit"
	"paddle/core/workflow"
)

// Options are the inputs of `paddle <kit> predict`.
type Options struct {
	Factory *cmdutil.Factory
	Kit     *kit.Kit
	Weights string         // --weights: a training checkpoint (with its config.yaml)
	Model   string         // --model: an export directory (paddle <kit> export)
	Output  string         // --output
	Inputs  []string       // files, folders, globs or "-"
	Shard   workflow.Shard // --shard I/N
}

// NewCmdPredict returns `paddle <kit> predict`.
func NewCmdPredict(f *cmdutil.Factory, k *kit.Kit, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f, Kit: k}
	var maxPixels func() error
	var shard func() (workflow.Shard, error)
	_, name := cmdutil.ExampleConfig(k.Name)
	in := cmdutil.ExampleInput(k.PredictRecord)
	cmd := &cobra.Command{
		Use:   "predict --weights <checkpoint dir> | --model <export dir> <input>... | -",
		Short: "Run a trained model for " + cmdutil.KitSubject(k) + " on files, folders, globs or paths from stdin",
		Long: "Runs a training checkpoint (--weights) or an export (--model) on the inputs and writes one\n" +
			"record per input to stdout, in input order (--format jsonl: one a line; json: one array;\n" +
			"text: one line each). A failed input's record is {\"<input key>\": ..., \"error\": \"...\"};\n" +
			"the rest go on and the command exits 1 at the end.\n\n" + RecordHelp(k.PredictRecord),
		Example: "  paddle " + k.Name + " predict --weights out/" + name + "/best " + in + "\n" +
			"  paddle " + k.Name + " predict --model inference/" + name + " " + in + " --format json\n" +
			"  find data -name '*" + path.Ext(in) + "' | paddle " + k.Name + " predict --weights out/" + name + "/best -",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if (opts.Weights == "") == (opts.Model == "") {
				return cmdutil.FlagErrorf("give one of --weights (a checkpoint) and --model (an export)")
			}
			if err := maxPixels(); err != nil {
				return err
			}
			var err error
			if opts.Shard, err = shard(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return run(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Weights, "weights", "", "checkpoint directory (model.safetensors + config.yaml), or a PaddlePaddle .pdparams with -c")
	cmd.Flags().StringVar(&opts.Model, "model", "", "export directory (model.onnx + inference.yaml, from paddle "+k.Name+" export)")
	cmd.Flags().StringVar(&opts.Output, "output", "", "output directory for files the kit writes")
	maxPixels = cmdutil.MaxPixelsFlag(cmd, data.DefaultMaxPixels)
	shard = cmdutil.ShardFlag(cmd)
	cmdutil.SupportsFormats(cmd, "jsonl", "json", "text")
	cmd.Long += "\n\n" + cmdutil.FormatsHelp(cmd)
	return cmd
}

func run(cmd *cobra.Command, opts *Options) error {
	// the checkpoint's (or export's) own config.yaml wins unless -c is given
	cfg, err := cmdutil.ModelConfig(opts.Factory, opts.Weights, opts.Model)
	if err != nil {
		return err
	}
	r, err := opts.Kit.Build(cfg)
	if err != nil {
		return config.Usage(err)
	}
	return r.Predict(cmd.Context(), opts.Env(cfg), opts.Inputs)
}

// Env is the workflow.Env of a predict run with config cfg.
func (o *Options) Env(cfg *config.Config) workflow.Env {
	return workflow.Env{
		IO: o.Factory.RunnerIO(), Config: cfg, Weights: o.Weights, Model: o.Model, Output: o.Output,
		Format: o.Factory.Settings.Format, Shard: o.Shard,
	}
}

// RecordHelp is the record paragraph of a predict command's --help: the
// kit's record (kit.Kit.PredictRecord) and where every field is described.
func RecordHelp(record string) string {
	if record == "" {
		return "Records: see docs/formats.md."
	}
	return "Record:\n" + record + "\nEvery field: docs/formats.md."
}
