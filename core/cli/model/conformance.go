package model

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"paddle/core/cli/cmdutil"
	"paddle/core/config"
	"paddle/core/runtime"
)

func newCmdConformance(f *cmdutil.Factory) *cobra.Command {
	var verbose bool
	cmd := &cobra.Command{
		Use:   "conformance DIR",
		Short: "Run the ONNX operator tests in DIR (e.g. libonnx-testdata's data/node) and count passes",
		Long: "Runs every ONNX node test under DIR (test_*/model.onnx with test_data_set_*) whose ops are\n" +
			"in scope and compares the outputs (rtol 1e-3, atol 1e-5). Prints passed, failed, known-failure\n" +
			"and excluded counts; exits 1 when a test fails. Exclusions (unsupported dtypes, random\n" +
			"outputs, out-of-scope modes) are listed with their reasons by --verbose.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return conformanceRun(f.IOStreams.Out, args[0], f.Settings.Format, verbose)
		},
	}
	cmdutil.SupportsFormats(cmd, "text", "json")
	cmd.Flags().BoolVar(&verbose, "verbose", false, "list every test with its status and reason")
	return cmd
}

func conformanceRun(out io.Writer, dir, format string, verbose bool) error {
	res, err := runtime.Conformance(dir, runtime.ConformanceExclusions)
	if err != nil {
		return config.Usage(err)
	}
	count := map[string]int{}
	for _, r := range res {
		count[r.Status]++
	}
	if format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"passed": count["pass"], "failed": count["fail"], "known_failures": count["known"],
			"excluded": count["excluded"], "out_of_scope": count["skipped"], "tests": res}); err != nil {
			return err
		}
	} else {
		for _, r := range res {
			if r.Status == "fail" || (verbose && r.Status != "skipped") {
				fmt.Fprintf(out, "%s\t%s\t%s\n", r.Status, r.Name, r.Reason)
			}
		}
		fmt.Fprintf(out, "passed %d, failed %d, known failures %d, excluded %d (out of scope: %d)\n",
			count["pass"], count["fail"], count["known"], count["excluded"], count["skipped"])
	}
	if count["fail"] > 0 {
		return cmdutil.ErrSilent
	}
	return nil
}
