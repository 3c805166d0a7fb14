package model

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/onnx"
	"paddle/core/runtime"
)

// convertOptions are the inputs of `paddle model convert`.
type convertOptions struct {
	Out    io.Writer
	Model  string
	Params string
	Output string
}

func newCmdConvert(f *cmdutil.Factory) *cobra.Command {
	opts := convertOptions{}
	cmd := &cobra.Command{
		Use:   "convert FILE.pdmodel --output model.onnx [--params FILE.pdiparams]",
		Short: "Convert a PaddlePaddle 2.x inference model to ONNX",
		Long: "Reads a PaddlePaddle 2.x inference model (inference.pdmodel with the inference.pdiparams\n" +
			"beside it, or --params) into paddle's IR and writes it as ONNX (as paddle2onnx does), for\n" +
			"every tool that takes ONNX. Operators paddle does not map fail naming the operator.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Out, opts.Model = f.IOStreams.Out, args[0]
			return convertRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Output, "output", "", "the ONNX file to write (required)")
	cmd.Flags().StringVar(&opts.Params, "params", "", "weights of the .pdmodel (default: the .pdiparams beside it)")
	return cmd
}

func convertRun(opts convertOptions) error {
	if opts.Output == "" {
		return cmdutil.FlagErrorf("--output is required (the .onnx file to write)")
	}
	g, err := runtime.ReadGraph(opts.Model, opts.Params)
	if err != nil {
		return config.Usage(err)
	}
	if err := onnx.WriteFile(opts.Output, g); err != nil {
		return err
	}
	_, err = fmt.Fprintf(opts.Out, "wrote %s (%d nodes)\n", opts.Output, len(g.Nodes))
	return err
}
