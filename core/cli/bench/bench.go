// Package bench implements `paddle bench`: kernel micro-benchmarks that
// print GFLOP/s, for comparison with the peers in docs/BENCHMARKS.md.
package bench

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/op"
	"paddle/core/tensor"
)

// NewCmdBench returns `paddle bench` with its kernel subcommands.
func NewCmdBench(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench <kernel>",
		Short: "Measure kernel speed (GFLOP/s) on this machine",
		Long: "Measure kernel speed on this machine with the active backend and --threads.\n" +
			"Each run reports the median time over repeated calls after a warm-up.",
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(NewCmdGemm(f, nil), NewCmdConv(f, nil))
	return cmd
}

// GemmOptions are the flags of `paddle bench gemm`.
type GemmOptions struct {
	M, N, K        int
	TransA, TransB bool
	DType          string        // float32, or int8 (uint8 A times int8 B into int32)
	MinTime        time.Duration // keep calling until this much time has passed
	MinRuns        int           // and at least this many calls
}

// Result is what a benchmark prints (JSON keys per the bench contract).
type Result struct {
	Op       string  `json:"op"`
	DType    string  `json:"dtype"`
	Kernels  string  `json:"kernels"` // the active kernel set (backend and level)
	M        int     `json:"m"`
	N        int     `json:"n"`
	K        int     `json:"k"`
	Threads  int     `json:"threads"`
	GFLOPS   float64 `json:"gflops"` // GOP/s for int8 (a multiply-add is 2 operations)
	MedianMS float64 `json:"median_ms"`
	MinMS    float64 `json:"min_ms"`
}

// NewCmdGemm returns `paddle bench gemm`; runF replaces the run in tests.
func NewCmdGemm(f *cmdutil.Factory, runF func(*GemmOptions) error) *cobra.Command {
	o := &GemmOptions{}
	cmd := &cobra.Command{
		Use:   "gemm --m M --n N --k K [--trans-a] [--trans-b]",
		Short: "Time the float32 GEMM C = op(A)·op(B) (row-major), or the int8 one",
		Long: "Time the GEMM of the active kernels: float32 (GFLOP/s), or with --dtype int8\n" +
			"the int8 product uint8 A (M×K) · int8 B (K×N) → int32 C (GOP/s, core/op's\n" +
			"matmul_integer with the backend's int8 kernel; no transposes).",
		Example: "  paddle bench gemm --m 1024 --n 1024 --k 1024 --threads 1 --format json\n" +
			"  paddle bench gemm --m 64 --n 3136 --k 576 --trans-b\n" +
			"  paddle bench gemm --dtype int8 --m 64 --n 3136 --k 576",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.M < 1 || o.N < 1 || o.K < 1 {
				return cmdutil.FlagErrorf("--m, --n and --k must be positive (got %d, %d, %d)", o.M, o.N, o.K)
			}
			if o.DType != "float32" && o.DType != "int8" {
				return cmdutil.FlagErrorf("--dtype %q: want float32 or int8", o.DType)
			}
			if o.DType == "int8" && (o.TransA || o.TransB) {
				return cmdutil.FlagErrorf("--dtype int8 takes no --trans-a/--trans-b")
			}
			if runF != nil {
				return runF(o)
			}
			var r Result
			if o.DType == "int8" {
				r = gemmInt8Run(o)
			} else {
				r = gemmRun(o)
			}
			r.Threads = f.Settings.Threads
			return printResult(f, r)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&o.M, "m", 1024, "rows of C")
	fl.IntVar(&o.N, "n", 1024, "columns of C")
	fl.IntVar(&o.K, "k", 1024, "inner dimension")
	fl.BoolVar(&o.TransA, "trans-a", false, "A is stored transposed (K×M)")
	fl.BoolVar(&o.TransB, "trans-b", false, "B is stored transposed (N×K)")
	fl.StringVar(&o.DType, "dtype", "float32", "element type: float32 or int8")
	fl.DurationVar(&o.MinTime, "min-time", time.Second, "measure for at least this long")
	fl.IntVar(&o.MinRuns, "min-runs", 5, "measure at least this many calls")
	cmdutil.SupportsFormats(cmd, "text", "json")
	return cmd
}

// gemmRun times op.SGEMM (the GEMM the active backend installed) on random
// operands: one warm-up call, then calls until MinTime and MinRuns are met.
func gemmRun(o *GemmOptions) Result {
	r := rand.New(rand.NewPCG(1, 2))
	rnd := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = r.Float32()*2 - 1
		}
		return s
	}
	m, n, k := o.M, o.N, o.K
	a, b, c := rnd(m*k), rnd(k*n), make([]float32, m*n)
	lda, ldb := k, n
	if o.TransA {
		lda = m
	}
	if o.TransB {
		ldb = k
	}
	call := func() time.Duration {
		t := time.Now()
		op.SGEMM(o.TransA, o.TransB, m, n, k, 1, a, lda, b, ldb, 0, c, n)
		return time.Since(t)
	}
	return summarize("gemm", m, n, k, measure(o, call))
}

// gemmInt8Run times matmul_integer (uint8 A, int8 B, int32 C) like gemmRun.
func gemmInt8Run(o *GemmOptions) Result {
	r := rand.New(rand.NewPCG(1, 2))
	m, n, k := o.M, o.N, o.K
	a, b := tensor.New(tensor.Uint8, m, k), tensor.New(tensor.Int8, k, n)
	for i := range a.U8() {
		a.U8()[i] = uint8(r.Uint32())
	}
	for i := range b.I8() {
		b.I8()[i] = int8(r.Uint32())
	}
	c := tensor.New(tensor.Int32, m, n)
	d := op.Lookup("matmul_integer")
	call := func() time.Duration {
		t := time.Now()
		op.Run(d, []*tensor.Tensor{c}, []*tensor.Tensor{a, b}, nil)
		return time.Since(t)
	}
	res := summarize("gemm", m, n, k, measure(o, call))
	res.DType = "int8"
	if q := op.Active().QKernel; q != "" {
		res.Kernels += ", int8 " + q
	}
	return res
}

// measure makes one warm-up call, then calls until MinTime and MinRuns are met.
func measure(o *GemmOptions, call func() time.Duration) []time.Duration {
	call()
	var times []time.Duration
	start := time.Now()
	for len(times) < o.MinRuns || time.Since(start) < o.MinTime {
		times = append(times, call())
	}
	return times
}

// summarize turns call times into a Result: GFLOP/s from the median.
func summarize(name string, m, n, k int, times []time.Duration) Result {
	slices.Sort(times)
	med := times[len(times)/2]
	if len(times)%2 == 0 {
		med = (times[len(times)/2-1] + times[len(times)/2]) / 2
	}
	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
	return Result{
		Op: name, DType: "float32", Kernels: op.Active().Name, M: m, N: n, K: k,
		GFLOPS:   2 * float64(m) * float64(n) * float64(k) / med.Seconds() / 1e9,
		MedianMS: ms(med), MinMS: ms(times[0]),
	}
}

func printResult(f *cmdutil.Factory, r Result) error {
	out := f.IOStreams.Out
	if f.Settings.Format == "json" {
		return json.NewEncoder(out).Encode(r)
	}
	unit, name := "GFLOP/s", r.Op
	if r.DType == "int8" {
		unit, name = "GOP/s", r.Op+" int8"
	}
	_, err := fmt.Fprintf(out, "%s m=%d n=%d k=%d threads=%d (%s): %.1f %s (median %.3f ms, min %.3f ms)\n",
		name, r.M, r.N, r.K, r.Threads, r.Kernels, r.GFLOPS, unit, r.MedianMS, r.MinMS)
	return err
}
