// Package train implements the shared `paddle <kit> train` verb.
package train

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/kit"
	"paddle/core/workflow"
)

// Options are the inputs of `paddle <kit> train`.
type Options struct {
	Factory *cmdutil.Factory
	Kit     *kit.Kit
	Resume  string // --resume: continue from a checkpoint directory
	Output  string // --output: overrides the config's output directory
}

// NewCmdTrain returns `paddle <kit> train`; runF replaces the run in tests.
func NewCmdTrain(f *cmdutil.Factory, k *kit.Kit, runF func(*Options) error) *cobra.Command {
	opts := &Options{Factory: f, Kit: k}
	cfg, name := cmdutil.ExampleConfig(k.Name)
	cmd := &cobra.Command{
		Use:   "train -c <config.yaml> [-o Section.key=value]...",
		Short: "Train a model for " + cmdutil.KitSubject(k) + " from a YAML config",
		Long: "Trains the model the config describes (-c: a file, or a config shipped in the binary; -o\n" +
			"overrides single keys) and writes checkpoints under --output (default: the config's save\n" +
			"folder): latest/ after every epoch (Ctrl-C saves it too; --resume continues from it) and\n" +
			"best/ at the best eval metric. Each checkpoint holds model.safetensors and the config.yaml it\n" +
			"was trained with, so eval, predict and export need no -c. Logs go to stderr; a progress bar\n" +
			"only when stderr is a terminal.\n\n" +
			"Configs shipped for " + k.Name + " (`paddle config show -c NAME` prints one):\n  " +
			strings.Join(cmdutil.ConfigNames(k.Name), "\n  "),
		Example: "  paddle " + k.Name + " train -c " + cfg + " --output out/" + name + "\n" +
			"  paddle " + k.Name + " train -c " + cfg + " --output out/" + name + " --resume out/" + name + "/latest\n" +
			"  paddle config show -c " + cfg + "   # every key -o can set",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return run(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Resume, "resume", "", "checkpoint directory to continue training from")
	cmd.Flags().StringVar(&opts.Output, "output", "", "output directory (default: the config's)")
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
	comm, err := openComm(cfg)
	if err != nil {
		return err
	}
	syncBN, err := useSyncBN(cfg)
	if err != nil {
		return errors.Join(err, comm.Close())
	}
	err = r.Train(cmd.Context(), workflow.Env{
		IO: opts.Factory.RunnerIO(), Config: cfg, Resume: opts.Resume, Output: opts.Output,
		Format: opts.Factory.Settings.Format, Comm: comm, SyncBN: syncBN,
	})
	return errors.Join(err, comm.Close()) // a failed rank of several never gets here: it aborted them all
}
