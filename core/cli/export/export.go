// Package export implements the shared `paddle <kit> export` verb: a
// training checkpoint becomes an export directory (model.onnx +
// inference.yaml + config.yaml, DESIGN §7) that `paddle <kit> predict
// --model DIR` and ONNX Runtime load. Kits opt in by implementing
// workflow.Exporter on their Runner.
package export

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/graph"
	"paddle/core/kit"
	"paddle/core/nn"
	"paddle/core/onnx"
	"paddle/core/quant"
	"paddle/core/workflow"
)

// Options are the inputs of `paddle <kit> export`.
type Options struct {
	Factory *cmdutil.Factory
	Kit     *kit.Kit
	Weights string // --weights: the checkpoint to export (with its config.yaml)
	Output  string // --output: the export directory (a .pdparams file with --format pdparams)
	// --quantize: model.onnx post-training quantized to int8 (QDQ) on the
	// --calib inputs, preprocessed by the kit (workflow.Calibrator).
	Quantize   bool
	Calib      string
	CalibCount int
	Method     string
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
			"and `paddle serve " + k.Name + " --model` run it on paddle's runtime; any ONNX runtime can too.\n" +
			"With --format pdparams it writes the weights alone, under PaddlePaddle's parameter names, as\n" +
			"one .pdparams file (paddle.save's layout) for PaddlePaddle's own tools.",
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
			if opts.Quantize && opts.Calib == "" {
				return cmdutil.FlagErrorf("--quantize needs --calib (a directory or list of calibration inputs)")
			}
			if !opts.Quantize && (cmd.Flags().Changed("calib") || cmd.Flags().Changed("method") || cmd.Flags().Changed("calib-count")) {
				return cmdutil.FlagErrorf("--calib, --calib-count and --method go with --quantize")
			}
			if opts.Quantize && f.Settings.Format == "pdparams" {
				return cmdutil.FlagErrorf("--quantize writes an int8 ONNX model: not with --format pdparams")
			}
			if f.Settings.Format == "pdparams" && !workflow.IsPaddleWeights(opts.Output) {
				return cmdutil.FlagErrorf("--format pdparams writes one file: --output must end in .pdparams, got %s", opts.Output)
			}
			if runF != nil {
				return runF(opts)
			}
			return run(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Weights, "weights", "", "checkpoint directory (model.safetensors + config.yaml)")
	cmd.Flags().StringVar(&opts.Output, "output", "", "export directory to write (model.onnx, inference.yaml, config.yaml), or the .pdparams file with --format pdparams")
	cmd.Flags().BoolVar(&opts.Quantize, "quantize", false, "also quantize model.onnx to int8 (QDQ, as `paddle model quantize` writes it), calibrated on --calib")
	cmd.Flags().StringVar(&opts.Calib, "calib", "", "calibration inputs for --quantize: a directory or list file of the kit's inputs (images; text lines for nlp), never the evaluation set")
	cmd.Flags().IntVar(&opts.CalibCount, "calib-count", 32, "use the first N calibration inputs (0: all)")
	cmd.Flags().StringVar(&opts.Method, "method", "percentile", "range method for --quantize: "+strings.Join(quant.Methods, ", "))
	// --format (the global flag): onnx writes an export directory, pdparams
	// the weights under PaddlePaddle's names.
	cmdutil.SupportsFormats(cmd, "onnx", "pdparams")
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
	if opts.Factory.Settings.Format == "pdparams" {
		return writePaddle(opts, r)
	}
	ex, ok := r.(workflow.Exporter)
	if !ok {
		return config.Usage(fmt.Errorf("paddle %s cannot export its models yet", opts.Kit.Name))
	}
	if _, ok := r.(workflow.Calibrator); opts.Quantize && !ok {
		return config.Usage(fmt.Errorf("paddle %s cannot quantize its exports yet (export without --quantize, then `paddle model quantize` %s)", opts.Kit.Name, filepath.Join(opts.Output, workflow.ExportModelFile)))
	}
	env := workflow.Env{IO: opts.Factory.RunnerIO(), Config: cfg, Weights: opts.Weights, Output: opts.Output}
	if err := ex.Export(cmd.Context(), env, opts.Output); err != nil {
		return err
	}
	if opts.Quantize {
		if err := quantizeExport(opts, r); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintln(opts.Factory.IOStreams.Out, opts.Output)
	return err
}

// quantizeExport rewrites the export's model.onnx in int8 QDQ form,
// calibrated on the kit's preprocessing of opts.Calib (workflow.Calibrator).
func quantizeExport(opts *Options, r workflow.Runner) error {
	cal := r.(workflow.Calibrator) // checked before the export was written
	model := filepath.Join(opts.Output, workflow.ExportModelFile)
	feed, n, err := cal.CalibrationFeed(opts.Output, opts.Calib, opts.CalibCount)
	if err != nil {
		return config.Usage(fmt.Errorf("%w (%s was written in float32, not quantized)", err, model))
	}
	bar := opts.Factory.IOStreams.Progress(n*quant.Passes(opts.Method), "calibrating "+model)
	defer bar.Finish()
	tmp := model + ".int8.tmp"
	defer os.Remove(tmp)
	_, reports, err := quant.Job{
		Load:    func() (*graph.Graph, error) { return onnx.ReadFile(model) },
		Options: quant.Options{Method: opts.Method, PerChannel: true},
		Feed:    feed, Count: n, Output: tmp, Step: func() { bar.Add(1) },
	}.Run()
	if err != nil {
		var oe *quant.OptionsError
		if errors.As(err, &oe) {
			return config.Usage(fmt.Errorf("--quantize: %w (%s was written in float32, not quantized)", oe.Err, model))
		}
		return fmt.Errorf("--quantize: %w (%s was written in float32, not quantized)", err, model)
	}
	if err := os.Rename(tmp, model); err != nil {
		return err
	}
	slog.Info("quantized the export to int8", "model", model, "nodes", len(reports), "calibration_inputs", n, "method", opts.Method)
	return nil
}

// writePaddle loads the checkpoint into the runner's model and writes it
// under PaddlePaddle's names.
func writePaddle(opts *Options, r workflow.Runner) error {
	var (
		m   nn.Module
		err error
	)
	switch b := r.(type) {
	case workflow.ModelBuilder:
		m, err = b.NewModel()
	case workflow.DataFreeModel:
		m, _, err = b.DataFreeModel()
	default:
		return config.Usage(fmt.Errorf("paddle %s cannot write PaddlePaddle weights yet", opts.Kit.Name))
	}
	if err != nil {
		return config.Usage(err)
	}
	if _, err := workflow.LoadCheckpoint(opts.Weights, m, nil); err != nil {
		return err
	}
	if err := workflow.WritePaddleWeights(opts.Output, m); err != nil {
		return err
	}
	_, err = fmt.Fprintln(opts.Factory.IOStreams.Out, opts.Output)
	return err
}
