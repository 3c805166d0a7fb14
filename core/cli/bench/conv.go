package bench

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/op"
	"paddle/core/tensor"
)

// ConvOptions are the flags of `paddle bench conv`.
type ConvOptions struct {
	Batch, InCh, Height, Width, OutCh int
	Kernel, Stride, Pad, Groups       int
	Backward                          bool
	MinTime                           time.Duration
	MinRuns                           int
}

// ConvResult is what `paddle bench conv` prints.
type ConvResult struct {
	Op       string  `json:"op"`
	Batch    int     `json:"batch"`
	InCh     int     `json:"in_ch"`
	Height   int     `json:"height"`
	Width    int     `json:"width"`
	OutCh    int     `json:"out_ch"`
	Kernel   int     `json:"kernel"`
	Stride   int     `json:"stride"`
	Pad      int     `json:"pad"`
	Groups   int     `json:"groups"`
	Backward bool    `json:"backward"`
	Threads  int     `json:"threads"`
	GFLOPS   float64 `json:"gflops"`
	MedianMS float64 `json:"median_ms"`
	MinMS    float64 `json:"min_ms"`
}

// NewCmdConv returns `paddle bench conv`; runF replaces the run in tests.
func NewCmdConv(f *cmdutil.Factory, runF func(*ConvOptions) error) *cobra.Command {
	o := &ConvOptions{}
	cmd := &cobra.Command{
		Use:   "conv --batch N --in-ch C --height H --width W --out-ch OC --kernel K [--backward]",
		Short: "Time float32 conv2d (NCHW), forward or forward+backward",
		Long: "Time float32 conv2d on random data. GFLOP/s counts 2·N·OC·OH·OW·(C/groups)·K² for the\n" +
			"forward pass; with --backward the input and weight gradients are computed too and\n" +
			"the count is three times the forward one.",
		Example: "  paddle bench conv --batch 8 --in-ch 64 --height 56 --width 56 --out-ch 64 --kernel 3 --pad 1 --threads 1 --format json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Batch < 1 || o.InCh < 1 || o.Height < 1 || o.Width < 1 || o.OutCh < 1 || o.Kernel < 1 || o.Stride < 1 || o.Pad < 0 || o.Groups < 1 {
				return cmdutil.FlagErrorf("conv sizes must be positive (pad may be 0)")
			}
			if o.InCh%o.Groups != 0 || o.OutCh%o.Groups != 0 {
				return cmdutil.FlagErrorf("--groups %d must divide --in-ch %d and --out-ch %d", o.Groups, o.InCh, o.OutCh)
			}
			if (o.Height+2*o.Pad-o.Kernel) < 0 || (o.Width+2*o.Pad-o.Kernel) < 0 {
				return cmdutil.FlagErrorf("the %dx%d input with pad %d is smaller than the %dx%d kernel", o.Height, o.Width, o.Pad, o.Kernel, o.Kernel)
			}
			if runF != nil {
				return runF(o)
			}
			r := convRun(o)
			r.Threads = f.Settings.Threads
			return printConv(f, r)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&o.Batch, "batch", 1, "images N")
	fl.IntVar(&o.InCh, "in-ch", 64, "input channels C")
	fl.IntVar(&o.Height, "height", 56, "input height H")
	fl.IntVar(&o.Width, "width", 56, "input width W")
	fl.IntVar(&o.OutCh, "out-ch", 64, "output channels OC")
	fl.IntVar(&o.Kernel, "kernel", 3, "square kernel size K")
	fl.IntVar(&o.Stride, "stride", 1, "stride")
	fl.IntVar(&o.Pad, "pad", 0, "zero padding on each side")
	fl.IntVar(&o.Groups, "groups", 1, "channel groups (in-ch for depthwise)")
	fl.BoolVar(&o.Backward, "backward", false, "also compute the input and weight gradients")
	fl.DurationVar(&o.MinTime, "min-time", time.Second, "measure for at least this long")
	fl.IntVar(&o.MinRuns, "min-runs", 5, "measure at least this many calls")
	cmdutil.SupportsFormats(cmd, "text", "json")
	return cmd
}

// convRun times op.Conv2D (and, with Backward, conv2d's VJP: the same
// kernels autograd runs) on random float32 data.
func convRun(o *ConvOptions) ConvResult {
	r := rand.New(rand.NewPCG(1, 2))
	x := tensor.Rand(r, tensor.Float32, -1, 1, o.Batch, o.InCh, o.Height, o.Width)
	w := tensor.Rand(r, tensor.Float32, -1, 1, o.OutCh, o.InCh/o.Groups, o.Kernel, o.Kernel)
	p := op.ConvParams{Strides: []int{o.Stride, o.Stride}, Pads: []int{o.Pad, o.Pad, o.Pad, o.Pad}, Groups: o.Groups}
	def := op.Lookup("conv2d")
	y := op.Conv2D(x, w, nil, p)
	dy := tensor.Rand(r, tensor.Float32, -1, 1, y.Shape()...)
	call := func() time.Duration {
		t := time.Now()
		y := op.Conv2D(x, w, nil, p)
		if o.Backward {
			def.VJP(&op.VJPCtx{In: []*op.T{x, w}, Out: []*op.T{y}, GradOut: []*op.T{dy}, Attrs: p.Attrs()})
		}
		return time.Since(t)
	}
	call()
	var times []time.Duration
	start := time.Now()
	for len(times) < o.MinRuns || time.Since(start) < o.MinTime {
		times = append(times, call())
	}
	oh, ow := y.Shape()[2], y.Shape()[3]
	// the forward FLOPs as an M×N×K GEMM: OC × N·OH·OW × (C/groups)·K²
	s := summarize("conv", o.OutCh, o.Batch*oh*ow, o.InCh/o.Groups*o.Kernel*o.Kernel, times)
	if o.Backward {
		s.GFLOPS *= 3
	}
	return ConvResult{
		Op: "conv", Batch: o.Batch, InCh: o.InCh, Height: o.Height, Width: o.Width, OutCh: o.OutCh,
		Kernel: o.Kernel, Stride: o.Stride, Pad: o.Pad, Groups: o.Groups, Backward: o.Backward,
		GFLOPS: s.GFLOPS, MedianMS: s.MedianMS, MinMS: s.MinMS,
	}
}

func printConv(f *cmdutil.Factory, r ConvResult) error {
	out := f.IOStreams.Out
	if f.Settings.Format == "json" {
		return json.NewEncoder(out).Encode(r)
	}
	pass := "forward"
	if r.Backward {
		pass = "forward+backward"
	}
	_, err := fmt.Fprintf(out, "conv %s N=%d C=%d %dx%d OC=%d K=%d stride=%d pad=%d groups=%d threads=%d: %.1f GFLOP/s (median %.3f ms, min %.3f ms)\n",
		pass, r.Batch, r.InCh, r.Height, r.Width, r.OutCh, r.Kernel, r.Stride, r.Pad, r.Groups, r.Threads, r.GFLOPS, r.MedianMS, r.MinMS)
	return err
}
