package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/data"
	"paddle/core/graph"
	pio "paddle/core/io"
	"paddle/core/quant"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// quantizeOptions are the inputs of `paddle model quantize`.
type quantizeOptions struct {
	Out         io.Writer
	Format      string
	Model       string
	Params      string
	Calib       string
	CalibCount  int
	Method      string
	Percentile  float64
	PerChannel  bool
	Depthwise   bool
	ReduceRange bool
	Exclude     []string
	Output      string
	InputShape  string // C,H,W for images
	Mean, Std   string // per channel, comma-separated
	Color       string // RGB or BGR
	Sensitivity bool
	SensCount   int
}

func newCmdQuantize(f *cmdutil.Factory) *cobra.Command {
	opts := quantizeOptions{}
	cmd := &cobra.Command{
		Use:   "quantize MODEL.onnx|MODEL.pdmodel --calib DIR|LIST --output q.onnx",
		Short: "Post-training int8 quantization: calibrate on sample inputs and write a QDQ ONNX model",
		Long: "Runs the float model on calibration inputs, records the range of every activation that\n" +
			"feeds a convolution or matrix product, and writes the model in QDQ form (QuantizeLinear/\n" +
			"DequantizeLinear: uint8 activations, int8 symmetric weights per output channel, int32 conv\n" +
			"biases), which ONNX Runtime loads and paddle runs on its int8 kernels. It prints each\n" +
			"quantized node's scales; --sensitivity adds the output error when that node alone is quantized.\n\n" +
			"--calib is a directory of images (.jpg .png .bmp .webp .tif) or .npy inputs, or a text file\n" +
			"listing them one per line (relative to the list). .npy files are fed as they are (a missing\n" +
			"batch axis is added). Images are decoded (--color), resized to --input-shape's H×W (default:\n" +
			"the model's static input shape), scaled to [0, 1] and normalised by --mean and --std per\n" +
			"channel, in CHW. Kits with their own preprocessing (ocr predict --precision int8) calibrate\n" +
			"through it instead. Depthwise convolutions stay float unless --depthwise (their int8 kernel\n" +
			"is slower than the float one). --reduce-range quantizes the weights to 7 bits ([-63, 63], ONNX\n" +
			"Runtime's reduce_range): a little less accurate, but on processors without AVX-512 VNNI the\n" +
			"int8 kernels then multiply bytes directly (AVX2 vpmaddubsw, exact only for such weights).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Out, opts.Model, opts.Format = f.IOStreams.Out, args[0], f.Settings.Format
			return quantizeRun(opts)
		},
	}
	cmdutil.SupportsFormats(cmd, "text", "json")
	fl := cmd.Flags()
	fl.StringVar(&opts.Calib, "calib", "", "calibration inputs: a directory of images or .npy files, or a list file (required)")
	fl.IntVar(&opts.CalibCount, "calib-count", 32, "use the first N calibration inputs (sorted by name; 0: all)")
	fl.StringVar(&opts.Method, "method", "minmax", "range method: "+strings.Join(quant.Methods, ", "))
	fl.Float64Var(&opts.Percentile, "percentile", 99.99, "for --method percentile: the percentage of |x| kept")
	fl.BoolVar(&opts.PerChannel, "per-channel", true, "one weight scale per output channel (false: one per tensor)")
	fl.BoolVar(&opts.Depthwise, "depthwise", false, "also quantize depthwise convolutions")
	fl.BoolVar(&opts.ReduceRange, "reduce-range", false, "7-bit weights in [-63, 63] (faster int8 kernels without VNNI)")
	fl.StringSliceVar(&opts.Exclude, "exclude", nil, "node names to leave in float, comma-separated (as the report names them)")
	fl.StringVar(&opts.Output, "output", "", "the QDQ ONNX file to write (required)")
	fl.StringVar(&opts.Params, "params", "", "weights of a .pdmodel (default: the .pdiparams beside it)")
	fl.StringVar(&opts.InputShape, "input-shape", "", "C,H,W images are resized to (default: the model's input shape)")
	fl.StringVar(&opts.Mean, "mean", "0.485,0.456,0.406", "mean subtracted after scaling pixels to [0, 1]: one per channel, or one for all")
	fl.StringVar(&opts.Std, "std", "0.229,0.224,0.225", "standard deviation divided by: one per channel, or one for all")
	fl.StringVar(&opts.Color, "color", "RGB", "channel order images are decoded to: RGB, BGR or GRAY")
	fl.BoolVar(&opts.Sensitivity, "sensitivity", false, "also print the output error when each node alone is quantized")
	fl.IntVar(&opts.SensCount, "sensitivity-count", 4, "calibration inputs --sensitivity runs on")
	return cmd
}

func quantizeRun(opts quantizeOptions) error {
	if opts.Output == "" {
		return cmdutil.FlagErrorf("--output is required (the .onnx file to write)")
	}
	if opts.Calib == "" {
		return cmdutil.FlagErrorf("--calib is required (a directory or list of calibration images or .npy files)")
	}
	load := func() (*graph.Graph, error) { return runtime.ReadGraph(opts.Model, opts.Params) }
	g, err := load()
	if err != nil {
		return config.Usage(err)
	}
	if len(g.Inputs) != 1 {
		return config.Usage(fmt.Errorf("%s has %d inputs: model quantize handles single-input models", opts.Model, len(g.Inputs)))
	}
	files, err := quant.Files(opts.Calib)
	if err != nil {
		return config.Usage(err)
	}
	if opts.CalibCount > 0 && len(files) > opts.CalibCount {
		files = files[:opts.CalibCount]
	}
	feed, err := newCalibFeed(g.Inputs[0], files, opts)
	if err != nil {
		return err
	}
	sens := 0
	if opts.Sensitivity {
		sens = max(opts.SensCount, 1)
	}
	_, reports, err := quant.Job{Load: load, Options: quant.Options{Method: opts.Method, Percentile: opts.Percentile,
		PerChannel: opts.PerChannel, Exclude: opts.Exclude, Depthwise: opts.Depthwise, ReduceRange: opts.ReduceRange},
		Feed: feed, Count: len(files), Output: opts.Output, Sensitivity: sens}.Run()
	if err != nil {
		var oe *quant.OptionsError
		if errors.As(err, &oe) {
			return config.Usage(oe.Err)
		}
		return err
	}
	return printQuantReport(opts, reports, len(files))
}

func printQuantReport(opts quantizeOptions, reports []quant.NodeReport, calib int) error {
	if opts.Format == "json" {
		return json.NewEncoder(opts.Out).Encode(map[string]any{"model": filepath.Base(opts.Model), "output": opts.Output,
			"method": opts.Method, "reduce_range": opts.ReduceRange, "calibration_inputs": calib, "nodes": reports})
	}
	w := opts.Out
	fmt.Fprintf(w, "%-28s %-7s %-24s %-11s %-4s %-23s", "node", "op", "input range", "x scale", "zero", "weight scales")
	if opts.Sensitivity {
		fmt.Fprintf(w, " %s", "sensitivity")
	}
	fmt.Fprintln(w)
	for _, r := range reports {
		fmt.Fprintf(w, "%-28s %-7s %-24s %-11.4g %-4d %-23s", r.Name, r.Op, fmt.Sprintf("[%.4g, %.4g]", r.Min, r.Max),
			r.XScale, r.XZero, fmt.Sprintf("%.3g..%.3g (%d)", r.WScaleMin, r.WScaleMax, r.Channels))
		if r.Sensitivity != nil {
			fmt.Fprintf(w, " %.3g", *r.Sensitivity)
		}
		fmt.Fprintln(w)
	}
	bits := ""
	if opts.ReduceRange {
		bits = ", 7-bit weights"
	}
	_, err := fmt.Fprintf(w, "quantized %d nodes (%s, %d calibration inputs%s); wrote %s\n", len(reports), opts.Method, calib, bits, opts.Output)
	return err
}

// newCalibFeed returns the feed reading files as the model input in.
func newCalibFeed(in *graph.Value, files []string, opts quantizeOptions) (quant.Feed, error) {
	var c, h, w int
	shape := in.Meta.Shape
	if opts.InputShape != "" {
		v, err := parseInts(opts.InputShape)
		if err != nil || len(v) != 3 {
			return nil, cmdutil.FlagErrorf("--input-shape %q: want C,H,W", opts.InputShape)
		}
		c, h, w = v[0], v[1], v[2]
	} else if len(shape) == 4 && shape[1] > 0 && shape[2] > 0 && shape[3] > 0 {
		c, h, w = shape[1], shape[2], shape[3]
	}
	mean, err := parseFloats(opts.Mean)
	if err != nil {
		return nil, cmdutil.FlagErrorf("--mean %q: %v", opts.Mean, err)
	}
	std, err := parseFloats(opts.Std)
	if err != nil {
		return nil, cmdutil.FlagErrorf("--std %q: %v", opts.Std, err)
	}
	mode, err := data.ParseColorMode(strings.ToUpper(opts.Color))
	if err != nil {
		return nil, cmdutil.FlagErrorf("--color: %v", err)
	}
	return func(i int) (map[string]*tensor.Tensor, error) {
		f := files[i]
		if strings.EqualFold(filepath.Ext(f), ".npy") {
			t, err := pio.ReadNpy(f)
			if err != nil {
				return nil, err
			}
			if len(shape) > 0 && t.Rank() == len(shape)-1 {
				t = t.Reshape(append([]int{1}, t.Shape()...)...)
			}
			return map[string]*tensor.Tensor{in.Name: t}, nil
		}
		if c == 0 {
			return nil, cmdutil.FlagErrorf("the model's input %q has shape %v: give --input-shape C,H,W for images", in.Name, shape)
		}
		m, err := data.DecodeFile(f, mode)
		if err != nil {
			return nil, err
		}
		if m.C != c {
			return nil, fmt.Errorf("%s: %d channels, the model wants %d (--color)", f, m.C, c)
		}
		if m, err = data.Resize(m, w, h); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		t, err := data.ToTensor(m, 0, perChannel(mean, c), perChannel(std, c))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		return map[string]*tensor.Tensor{in.Name: t.Reshape(1, c, h, w)}, nil
	}, nil
}

// perChannel repeats a single value for c channels; other lengths pass
// through (ToTensor checks them).
func perChannel(v []float32, c int) []float32 {
	if len(v) == 1 && c > 1 {
		return slices.Repeat(v, c)
	}
	return v
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func parseFloats(s string) ([]float32, error) {
	var out []float32
	for _, p := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 32)
		if err != nil {
			return nil, err
		}
		out = append(out, float32(v))
	}
	return out, nil
}
