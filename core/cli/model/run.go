package model

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	pio "paddle/core/io"
	"paddle/core/parallel"
	"paddle/core/runtime"
	"paddle/core/tensor"
)

// runOptions are the inputs of `paddle model run`.
type runOptions struct {
	Out     io.Writer
	Model   string
	Inputs  []string // NAME=FILE.npy (or FILE.npy for a single-input model)
	Output  string   // directory for the outputs' .npy files
	Bench   int      // timed iterations after two warm-ups (0: none)
	Threads int
	Passes  string // comma-separated pass list, "none", or "" for the defaults
	Format  string // text or json
	Params  string // weights of a .pdmodel ("" = beside it)
}

func newCmdRun(f *cmdutil.Factory) *cobra.Command {
	opts := runOptions{}
	cmd := &cobra.Command{
		Use:   "run FILE.onnx|FILE.pdmodel --input NAME=in.npy ... [--output DIR] [--bench N]",
		Short: "Run an ONNX or PaddlePaddle 2.x inference model on .npy inputs and write its outputs as .npy",
		Long: "Runs the model once on the given inputs and writes each output as DIR/<name>.npy\n" +
			"(characters outside [A-Za-z0-9._-] in the name become _). With --bench N it then runs\n" +
			"a second warm-up and N timed iterations, and prints the median and minimum latency.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Out = f.IOStreams.Out
			opts.Model = args[0]
			opts.Threads = f.Settings.Threads
			opts.Format = f.Settings.Format
			return runRun(opts)
		},
	}
	cmdutil.SupportsFormats(cmd, "text", "json")
	cmd.Flags().StringArrayVar(&opts.Inputs, "input", nil, "input NAME=FILE.npy, repeatable (FILE.npy alone for a single-input model)")
	cmd.Flags().StringVar(&opts.Output, "output", "", "directory for the outputs' .npy files")
	cmd.Flags().StringVar(&opts.Params, "params", "", "weights of a .pdmodel (default: the .pdiparams beside it)")
	cmd.Flags().IntVar(&opts.Bench, "bench", 0, "time N runs after two warm-ups and print the median and minimum latency")
	cmd.Flags().StringVar(&opts.Passes, "passes", "", "graph passes, comma-separated; none; or -name,... to switch some off (default: "+strings.Join(runtime.DefaultPasses, ",")+")")
	return cmd
}

// SanitizeName maps an output name to a file name: every character outside
// [A-Za-z0-9._-] becomes _.
func SanitizeName(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, name)
}

// passList reads --passes: "" (the defaults), "none", a list of pass
// names, or a list of -name entries (the defaults without those).
func passList(s string) []string {
	switch s {
	case "":
		return nil
	case "none":
		return []string{}
	}
	names := strings.Split(s, ",")
	off := map[string]bool{}
	for _, n := range names {
		if !strings.HasPrefix(n, "-") {
			return names
		}
		off[n[1:]] = true
	}
	var out []string
	for _, n := range runtime.DefaultPasses {
		if !off[n] {
			out = append(out, n)
		}
	}
	return append([]string{}, out...)
}

func runRun(opts runOptions) error {
	p, err := runtime.Load(opts.Model, runtime.Options{Threads: opts.Threads, Passes: passList(opts.Passes), Params: opts.Params})
	if err != nil {
		return config.Usage(err)
	}
	in := map[string]*tensor.Tensor{}
	for _, spec := range opts.Inputs {
		name, file, ok := strings.Cut(spec, "=")
		if !ok {
			if names := p.InputNames(); len(names) == 1 {
				name, file = names[0], spec
			} else {
				return cmdutil.FlagErrorf("--input %q: want NAME=FILE.npy (inputs: %s)", spec, strings.Join(names, ", "))
			}
		}
		if _, known := p.InputMeta(name); !known {
			return cmdutil.FlagErrorf("--input %q: the model has no input %q (inputs: %s)", spec, name, strings.Join(p.InputNames(), ", "))
		}
		t, err := pio.ReadNpy(file)
		if err != nil {
			return config.Usage(err)
		}
		in[name] = t
	}
	for _, name := range p.InputNames() {
		if in[name] == nil {
			return cmdutil.FlagErrorf("missing --input %s=FILE.npy", name)
		}
	}
	out, err := p.Run(in)
	if err != nil {
		return err
	}
	if opts.Output != "" {
		if err := os.MkdirAll(opts.Output, 0o755); err != nil {
			return err
		}
		for _, name := range p.OutputNames() {
			if err := pio.WriteNpy(filepath.Join(opts.Output, SanitizeName(name)+".npy"), out[name]); err != nil {
				return err
			}
		}
	}
	if opts.Bench > 0 {
		p.Recycle(out)
		return bench(opts, p, in)
	}
	return printOutputs(opts, p, out)
}

// outputInfo describes one output in `model run`'s summary.
type outputInfo struct {
	Name  string `json:"name"`
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
	File  string `json:"file,omitempty"`
}

func printOutputs(opts runOptions, p *runtime.Predictor, out map[string]*tensor.Tensor) error {
	var rows []outputInfo
	for _, name := range p.OutputNames() {
		r := outputInfo{Name: name, DType: out[name].DType().String(), Shape: out[name].Shape()}
		if opts.Output != "" {
			r.File = filepath.Join(opts.Output, SanitizeName(name)+".npy")
		}
		rows = append(rows, r)
	}
	if opts.Format == "json" {
		return json.NewEncoder(opts.Out).Encode(map[string]any{"model": filepath.Base(opts.Model), "outputs": rows})
	}
	for _, r := range rows {
		fmt.Fprintf(opts.Out, "%s\t%s%v", r.Name, r.DType, r.Shape)
		if r.File != "" {
			fmt.Fprintf(opts.Out, "\t%s", r.File)
		}
		fmt.Fprintln(opts.Out)
	}
	return nil
}

// benchResult is `model run --bench`'s JSON line.
type benchResult struct {
	Model    string  `json:"model"`
	Threads  int     `json:"threads"`
	MedianMS float64 `json:"median_ms"`
	MinMS    float64 `json:"min_ms"`
}

// bench times opts.Bench runs after a second warm-up (the first is Run's
// own), the protocol of ../shared/bench's ONNX Runtime figures. Each run's
// outputs go back to the predictor (Recycle), as an ONNX Runtime caller's
// freed outputs go back to its allocator.
func bench(opts runOptions, p *runtime.Predictor, in map[string]*tensor.Tensor) error {
	ms := make([]float64, opts.Bench)
	for i := -1; i < len(ms); i++ {
		t0 := time.Now()
		out, err := p.Run(in)
		if err != nil {
			return err
		}
		d := time.Since(t0)
		p.Recycle(out)
		if i >= 0 {
			ms[i] = float64(d.Microseconds()) / 1000
		}
	}
	sort.Float64s(ms)
	med := ms[len(ms)/2]
	if len(ms)%2 == 0 {
		med = (ms[len(ms)/2-1] + ms[len(ms)/2]) / 2
	}
	r := benchResult{Model: filepath.Base(opts.Model), Threads: parallel.Threads(), MedianMS: med, MinMS: ms[0]}
	if opts.Format == "json" {
		return json.NewEncoder(opts.Out).Encode(r)
	}
	_, err := fmt.Fprintf(opts.Out, "%s: median %.2f ms, min %.2f ms over %d runs (%d threads)\n",
		r.Model, r.MedianMS, r.MinMS, opts.Bench, r.Threads)
	return err
}
