// Package configcmd implements `paddle config show`.
package configcmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
)

// ShowOptions are the inputs of `paddle config show`.
type ShowOptions struct {
	Factory *cmdutil.Factory
	Kit     string // --kit; default: from the config's place under configs/<kit>/
}

// NewCmdConfig returns `paddle config` with its `show` subcommand.
func NewCmdConfig(f *cmdutil.Factory, kits []*cmdutil.Kit) *cobra.Command {
	cmd := &cobra.Command{Use: "config <command>", Short: "Inspect model configs"}
	opts := &ShowOptions{Factory: f}
	show := &cobra.Command{
		Use:   "show -c <config.yaml> [-o Section.key=value]...",
		Short: "Print the fully resolved config (_BASE_ merged, overrides applied) as YAML",
		Example: "  paddle config show -c clas/lenet_mnist.yaml -o Global.epochs=2\n" +
			"  paddle config show -c my.yaml --kit det",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.Settings.Config == "" {
				return cmdutil.FlagErrorf("-c/--config is required")
			}
			return showRun(opts)
		},
	}
	show.Flags().StringVar(&opts.Kit, "kit", "", "kit whose schema validates the config (default: from configs/<kit>/)")
	cmd.AddCommand(show)
	return cmd
}

func showRun(opts *ShowOptions) error {
	s := opts.Factory.Settings
	// with --kit, -o keys are checked against that kit's schema too
	cfg, err := config.LoadKit(opts.Kit, s.Config, s.Overrides...)
	if err != nil {
		return config.Usage(err)
	}
	kitName := opts.Kit
	if kitName == "" {
		kitName = config.KitOf(cfg.File)
	}
	if kitName != "" {
		schema, ok := config.SchemaFor(kitName)
		if !ok && opts.Kit != "" {
			return cmdutil.FlagErrorf("--kit %q: no such kit with a config schema", opts.Kit)
		}
		if ok {
			if err := cfg.Validate(schema); err != nil {
				return config.Usage(err)
			}
		}
	}
	b, err := cfg.YAML()
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(opts.Factory.IOStreams.Out, string(b))
	return err
}
