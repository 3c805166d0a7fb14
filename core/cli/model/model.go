// Package model implements `paddle model`: run, inspect, convert and check
// models (run.go, inspect.go, convert.go, conformance.go) and quantize them
// (quantize.go), plus the model-store verbs
// (list, pull, path, verify) that hub.go adds through hubCommands.
package model

import (
	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
)

// hubCommands, when set (by hub.go's init in this package), returns the
// model-store subcommands; it keeps the two halves of the noun independent.
var hubCommands func(f *cmdutil.Factory) []*cobra.Command

// NewCmdModel returns `paddle model` with its subcommands.
func NewCmdModel(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "model <command>",
		Short: "Run, inspect, convert and check models; manage the model store",
	}
	cmd.AddCommand(newCmdRun(f), newCmdInspect(f), newCmdConvert(f), newCmdConformance(f), newCmdQuantize(f))
	if hubCommands != nil {
		cmd.AddCommand(hubCommands(f)...)
	}
	return cmd
}
