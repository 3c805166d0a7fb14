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
	MinTime        time.Duration // keep calling until this much time has passed
	MinRuns        int           // and at least this many calls
}

// Result is what a benchmark prints (JSON keys per the bench contract).
type Result struct {
	Op       string  `json:"op"`
	M        int     `json:"m"`
	N        int     `json:"n"`
	K        int     `json:"k"`
	Threads  int     `json:"threads"`
	GFLOPS   float64 `json:"gflops"`
	MedianMS float64 `json:"median_ms"`
	MinMS    float64 `json:"min_ms"`
}

// NewCmdGemm returns `paddle bench gemm`; runF replaces the run in tests.
func NewCmdGemm(f *cmdutil.Factory, runF func(*GemmOptions) error) *cobra.Command {
	o := &GemmOptions{}
	cmd := &cobra.Command{
		Use:   "gemm --m M --n N --k K [--trans-a] [--trans-b]",
		Short: "Time the float32 GEMM C = op(A)·op(B) (row-major)",
		Example: "  paddle bench gemm --m 1024 --n 1024 --k 1024 --threads 1 --format json\n" +
			"  paddle bench gemm --m 64 --n 3136 --k 576 --trans-b",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.M < 1 || o.N < 1 || o.K < 1 {
				return cmdutil.FlagErrorf("--m, --n and --k must be positive (got %d, %d, %d)", o.M, o.N, o.K)
			}
			if runF != nil {
				return runF(o)
			}
			r := gemmRun(o)
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
	call()
	var times []time.Duration
	start := time.Now()
	for len(times) < o.MinRuns || time.Since(start) < o.MinTime {
		times = append(times, call())
	}
	return summarize("gemm", m, n, k, times)
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
		Op: name, M: m, N: n, K: k,
		GFLOPS:   2 * float64(m) * float64(n) * float64(k) / med.Seconds() / 1e9,
		MedianMS: ms(med), MinMS: ms(times[0]),
	}
}

func printResult(f *cmdutil.Factory, r Result) error {
	out := f.IOStreams.Out
	if f.Settings.Format == "json" {
		return json.NewEncoder(out).Encode(r)
	}
	_, err := fmt.Fprintf(out, "%s m=%d n=%d k=%d threads=%d: %.1f GFLOP/s (median %.3f ms, min %.3f ms)\n",
		r.Op, r.M, r.N, r.K, r.Threads, r.GFLOPS, r.MedianMS, r.MinMS)
	return err
}
