// Command gemmbench is `paddle bench` (gemm, conv) on the cpu backend without the
// rest of the paddle binary, for sgemm_compare.py:
//
//	gemmbench --threads 1 --format json gemm --m 1024 --n 1024 --k 1024
package main

import (
	"os"

	"github.com/spf13/cobra"

	"paddle/core/backend"
	"paddle/core/backend/cpu"
	"paddle/core/cli/bench"
	"paddle/core/cli/cmdutil"
)

func main() {
	f := cmdutil.NewFactory()
	root := bench.NewCmdBench(f)
	root.PersistentFlags().IntVar(&f.Settings.Threads, "threads", cmdutil.DefaultThreads(), "kernel threads")
	root.PersistentFlags().StringVar(&f.Settings.Format, "format", "text", "text or json")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		b, err := backend.Get("cpu")
		if err != nil {
			return err
		}
		return backend.Activate(b, f.Settings.Threads)
	}
	_ = cpu.Kernel // the cpu backend registers itself on import
	if err := root.Execute(); err != nil {
		os.Exit(1)
	}
}
