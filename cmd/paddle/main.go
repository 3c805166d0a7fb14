// Command paddle is PaddlePaddle's task kits (OCR, detection, segmentation,
// classification, NLP, speech, molecules) in one static Go binary.
package main

import (
	"os"

	"github.com/spf13/cobra"

	_ "paddle/core/backend/all" // the compiled-in backends register themselves
	"paddle/core/cli/cmdutil"
	"paddle/core/cli/datasetcmd"
	"paddle/core/cli/root"
	"paddle/datasets/catalog"
	"paddle/kits"
)

// version and commit are set at build time: -ldflags "-X main.version=v0.1.0 -X main.commit=abc".
var version, commit = "dev", ""

func main() {
	f := cmdutil.NewFactory()
	f.Version, f.Commit = version, commit
	os.Exit(root.Execute(newCmd(f), f, os.Args[1:]))
}

// newCmd is the whole command tree: every kit and the data set catalogue.
func newCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := root.NewCmdRoot(f, kits.All()...)
	cmd.AddCommand(datasetcmd.NewCmdDataset(f, catalog.All()))
	return cmd
}
