// Package configcmd implements `paddle config show`.
package configcmd

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
)

// ShowOptions are the inputs of `paddle config show`.
type ShowOptions struct {
	Factory *cmdutil.Factory
	Kit     string // --kit; default: from the config's place under configs/<kit>/
	// Components is --components KIT: list the components KIT's configs can
	// name, per slot, instead of showing a config.
	Components string
}

// NewCmdConfig returns `paddle config` with its `show` subcommand.
func NewCmdConfig(f *cmdutil.Factory, kits []*cmdutil.Kit) *cobra.Command {
	cmd := &cobra.Command{Use: "config <command>", Short: "Inspect model configs"}
	opts := &ShowOptions{Factory: f}
	show := &cobra.Command{
		Use:   "show -c <config.yaml> [-o Section.key=value]...",
		Short: "Print the fully resolved config (_BASE_ merged, overrides applied) as YAML",
		Example: "  paddle config show -c clas/lenet_mnist.yaml -o Global.epochs=2\n" +
			"  paddle config show -c my.yaml --kit det\n" +
			"  paddle config show --components seg",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Components != "" {
				return componentsRun(opts)
			}
			if f.Settings.Config == "" {
				return cmdutil.FlagErrorf("-c/--config is required")
			}
			return showRun(opts)
		},
	}
	show.Flags().StringVar(&opts.Kit, "kit", "", "kit whose schema validates the config (default: from configs/<kit>/)")
	show.Flags().StringVar(&opts.Components, "components", "", "instead of a config, list the components a kit's configs can name (per slot)")
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

// componentsRun prints, per component slot of the kit's schema, the kind of
// component and the names a config may choose there:
//
//	Arch                                  Arch       LeNet, PPLCNet, ResNet
//	DataLoader.*.dataset.transform_ops.*  transform  CropImage, DecodeImage, ...
func componentsRun(opts *ShowOptions) error {
	schema, ok := config.SchemaFor(opts.Components)
	if !ok {
		return cmdutil.FlagErrorf("--components %q: no such kit with a config schema", opts.Components)
	}
	slots := schema.ComponentSlots()
	w := tabwriter.NewWriter(opts.Factory.IOStreams.Out, 0, 0, 2, ' ', 0)
	for _, pat := range slices.Sorted(maps.Keys(slots)) {
		sl := slots[pat]
		kind := sl.Kind
		if kind == "" {
			kind = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", pat, kind, strings.Join(sl.Names, ", "))
	}
	return w.Flush()
}
