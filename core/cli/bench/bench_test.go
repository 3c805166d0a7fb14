package bench

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"paddle/core/backend"
	_ "paddle/core/backend/cpu"
	"paddle/core/cli/cmdutil"
	"paddle/core/cli/iostreams"
	"paddle/core/op"
)

func TestGemmJSON(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios}
	f.Settings.Format, f.Settings.Threads = "json", 1
	cmd := NewCmdBench(f)
	cmd.SetArgs([]string{"gemm", "--m", "33", "--n", "17", "--k", "65", "--trans-b", "--min-time", "1ms", "--min-runs", "3"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	for _, k := range []string{"op", "m", "n", "k", "threads", "gflops", "median_ms"} {
		if _, ok := r[k]; !ok {
			t.Errorf("key %q missing in %s", k, out.String())
		}
	}
	if r["op"] != "gemm" || r["m"] != 33.0 || r["n"] != 17.0 || r["k"] != 65.0 || r["threads"] != 1.0 {
		t.Errorf("got %s", out.String())
	}
	if g, _ := r["gflops"].(float64); !(g > 0) {
		t.Errorf("gflops = %v, want > 0", r["gflops"])
	}
}

func TestGemmRejectsBadSizes(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios}
	cmd := NewCmdGemm(f, func(*GemmOptions) error { return nil })
	cmd.SetArgs([]string{"--m", "0"})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	var fe *cmdutil.FlagError
	if err := cmd.Execute(); !errors.As(err, &fe) || !strings.Contains(err.Error(), "--m") {
		t.Fatalf("err = %v, want a FlagError about --m", err)
	}
}

func TestSummarize(t *testing.T) {
	ms := time.Millisecond
	r := summarize("gemm", 10, 10, 10, []time.Duration{4 * ms, 1 * ms, 2 * ms, 3 * ms})
	if r.MedianMS != 2.5 || r.MinMS != 1 || r.GFLOPS != 2000/2.5e-3/1e9 {
		t.Fatalf("got %+v", r)
	}
}

func TestConvJSON(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios}
	f.Settings.Format, f.Settings.Threads = "json", 1
	cmd := NewCmdBench(f)
	cmd.SetArgs([]string{"conv", "--batch", "2", "--in-ch", "4", "--height", "9", "--width", "7", "--out-ch", "6",
		"--kernel", "3", "--stride", "2", "--pad", "1", "--groups", "2", "--backward", "--min-time", "1ms", "--min-runs", "2"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	var r ConvResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	want := ConvResult{Op: "conv", Batch: 2, InCh: 4, Height: 9, Width: 7, OutCh: 6, Kernel: 3, Stride: 2, Pad: 1, Groups: 2, Backward: true, Threads: 1}
	got := r
	got.GFLOPS, got.MedianMS, got.MinMS = 0, 0, 0
	if got != want || !(r.GFLOPS > 0) || !(r.MedianMS > 0) {
		t.Fatalf("got %+v", r)
	}
}

func TestConvRejectsBadGroups(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	cmd := NewCmdConv(&cmdutil.Factory{IOStreams: ios}, func(*ConvOptions) error { return nil })
	cmd.SetArgs([]string{"--in-ch", "6", "--groups", "4"})
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	var fe *cmdutil.FlagError
	if err := cmd.Execute(); !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a FlagError", err)
	}
}

func TestGemmInt8JSON(t *testing.T) {
	// The kernels the binary runs (root activates the cpu backend at
	// start-up; tests otherwise run the reference ones): process-wide.
	b, err := backend.Get("cpu")
	if err != nil {
		t.Fatal(err)
	}
	if err := backend.Activate(b, 1); err != nil {
		t.Fatal(err)
	}
	ios, _, out, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios}
	f.Settings.Format, f.Settings.Threads = "json", 1
	cmd := NewCmdBench(f)
	cmd.SetArgs([]string{"gemm", "--dtype", "int8", "--m", "33", "--n", "17", "--k", "65", "--min-time", "1ms", "--min-runs", "3"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("output %q: %v", out.String(), err)
	}
	if r["dtype"] != "int8" || r["m"] != 33.0 || r["kernels"] == "" {
		t.Errorf("got %s", out.String())
	}
	if g, _ := r["gflops"].(float64); !(g > 0) {
		t.Errorf("gflops = %v, want > 0", r["gflops"])
	}
	q := op.Active().QKernel
	if q == "" {
		t.Fatalf("kernels %q name no int8 kernel", op.Active().Name)
	}
	if k, _ := r["kernels"].(string); !strings.HasSuffix(k, ", int8 "+q) {
		t.Errorf("kernels = %q, want the int8 kernel %q named", k, q)
	}
}

func TestGemmRejectsBadDType(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios}
	for _, args := range [][]string{{"--dtype", "int4"}, {"--dtype", "int8", "--trans-b"}} {
		cmd := NewCmdGemm(f, func(*GemmOptions) error { return nil })
		cmd.SetArgs(args)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		var fe *cmdutil.FlagError
		if err := cmd.Execute(); !errors.As(err, &fe) {
			t.Fatalf("%v: err = %v, want a FlagError", args, err)
		}
	}
}
