// Package eval implements the shared `paddle <kit> eval` verb.
package eval

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/kit"
	"paddle/core/workflow"
)

// Options are the inputs of `paddle <kit> eval`.
type Options struct {
	Factory *cmdutil.Factory
	Kit     *kit.Kit
	Weights string // --weights: the checkpoint directory to evaluate
}

// NewCmdEval returns `paddle <kit> eval`.
func NewCmdEval(f *cmdutil.Factory, k *kit.Kit, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f, Kit: k}
	cfg, name := cmdutil.ExampleConfig(k.Name)
	cmd := &cobra.Command{
		Use:   "eval -c <config.yaml> --weights <checkpoint dir>",
		Short: "Evaluate a trained model for " + cmdutil.KitSubject(k) + " on the config's eval set",
		Long: "Runs the checkpoint (--weights) over the eval set of the config (-c) and prints its metrics,\n" +
			"computed as the kit's Paddle project computes them.",
		Example: "  paddle " + k.Name + " eval -c " + cfg + " --weights out/" + name + "/best\n" +
			"  paddle " + k.Name + " eval -c " + cfg + " --weights out/" + name + "/best --format json",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Weights == "" {
				return cmdutil.FlagErrorf("--weights is required")
			}
			if runF != nil {
				return runF(opts)
			}
			return run(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Weights, "weights", "", "checkpoint directory (model.safetensors + config.yaml)")
	cmdutil.SupportsFormats(cmd, "text", "json")
	cmd.Long += "\n\n" + cmdutil.FormatsHelp(cmd)
	return cmd
}

func run(cmd *cobra.Command, opts *Options) error {
	cfg, err := opts.Factory.LoadConfig()
	if err != nil {
		return err
	}
	r, err := opts.Kit.Build(cfg)
	if err != nil {
		return config.Usage(err)
	}
	io := opts.Factory.RunnerIO()
	rep, err := r.Eval(workflow.WithProgress(cmd.Context(), io), workflow.Env{IO: io, Config: cfg, Weights: opts.Weights})
	if err != nil {
		return err
	}
	out := opts.Factory.IOStreams.Out
	if opts.Factory.Settings.Format == "json" {
		return json.NewEncoder(out).Encode(rep)
	}
	_, err = fmt.Fprintf(out, "%s (%d samples)\n", rep.String(), rep.Count)
	return err
}
