// Package stepbench is what the training-step benchmarks under
// scripts/bench share: kernel threads, an optional CPU profile, the
// optimizer a config names, and the timing loop that prints one JSON line.
package stepbench

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"time"

	"paddle/core/backend"
	_ "paddle/core/backend/cpu" // the cpu backend the steps run on
	"paddle/core/config"
	"paddle/core/nn"
	"paddle/core/optim"
	"paddle/scripts/bench/internal/cputime"
)

// Start activates the cpu backend with threads kernel threads and, when
// cpuprofile is not "", starts a CPU profile into that file. The returned
// stop ends the profile (a no-op without one).
func Start(threads int, cpuprofile string) (stop func(), err error) {
	b, err := backend.Get("cpu")
	if err != nil {
		return nil, err
	}
	if err := backend.Activate(b, threads); err != nil {
		return nil, err
	}
	if cpuprofile == "" {
		return func() {}, nil
	}
	f, err := os.Create(cpuprofile)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// Optimizer builds the optimizer of cfg's Optimizer section over params
// at a fixed learning rate of 1e-3 (the schedule is not stepped).
func Optimizer(cfg *config.Config, params []nn.Param) (optim.Optimizer, error) {
	var oc optim.Config
	if err := cfg.Decode("Optimizer", &oc); err != nil {
		return nil, err
	}
	opt, _, err := optim.Build(oc, params, 1, 1000)
	if err != nil {
		return nil, err
	}
	opt.SetLR(1e-3)
	return opt, nil
}

// Time runs step warmup times untimed, then times it until at least
// seconds have passed and at least 3 steps ran, and prints one JSON line:
// the fields of info plus "median_ms", "min_ms" and "steps" (wall clock) and
// "cpu_median_ms", "cpu_min_ms" (the process's CPU time per step, which a
// loaded machine inflates less than wall time at one kernel thread).
func Time(step func(), warmup int, seconds float64, info map[string]any) {
	for range warmup {
		step()
	}
	var ms, cpu []float64
	start := time.Now()
	for time.Since(start).Seconds() < seconds || len(ms) < 3 {
		c0, t0 := cputime.Now(), time.Now()
		step()
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
		cpu = append(cpu, float64((cputime.Now()-c0).Microseconds())/1000)
	}
	slices.Sort(ms)
	slices.Sort(cpu)
	out := map[string]any{"median_ms": ms[len(ms)/2], "min_ms": ms[0], "steps": len(ms),
		"cpu_median_ms": cpu[len(cpu)/2], "cpu_min_ms": cpu[0]}
	for k, v := range info {
		out[k] = v
	}
	b, _ := json.Marshal(out)
	fmt.Println(string(b))
}

// Fail prints err prefixed by the command's name to stderr and exits 1.
func Fail(name string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	os.Exit(1)
}
