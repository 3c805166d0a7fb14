// Command convcpu times float32 conv2d (forward, or forward+backward as
// `paddle bench conv --backward` runs it) on the cpu backend in CPU time
// (user+sys of the process, getrusage) rather than wall-clock time, for
// comparisons on a machine that other jobs share. It prints one JSON line
// per shape with the CPU milliseconds per call over -runs calls (after one
// warm-up call), next to scripts/bench/conv_cpu_torch.py:
//
//	convcpu -threads 1 -runs 20 -shape conv1x1_128to256_28 [-backward]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"time"

	"paddle/core/backend"
	_ "paddle/core/backend/cpu" // registers the cpu backend
	"paddle/core/op"
	"paddle/core/tensor"
	"paddle/scripts/bench/internal/cputime"
)

// shapes are the conv2d cases of ../shared/bench/CORE.md §3 (N = 8): C, OC, H = W, K, stride, groups.
var shapes = map[string][6]int{
	"conv3x3_64to64_56":    {64, 64, 56, 3, 1, 1},
	"conv3x3s2_32to64_112": {32, 64, 112, 3, 2, 1},
	"dw3x3_128_56":         {128, 128, 56, 3, 1, 128},
	"conv1x1_128to256_28":  {128, 256, 28, 1, 1, 1},
	// a long-K, small-image case (K = 2304)
	"conv3x3s2_256to512_28": {256, 512, 28, 3, 2, 1},
	// many channels on Winograd (64 tiles per image)
	"conv3x3_256to256_32": {256, 256, 32, 3, 1, 1},
}

func main() {
	threads := flag.Int("threads", 1, "kernel threads")
	runs := flag.Int("runs", 20, "timed calls")
	name := flag.String("shape", "conv1x1_128to256_28", "case name")
	batch := flag.Int("batch", 8, "images N")
	bwd := flag.Bool("backward", false, "forward+backward")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the timed calls here")
	flag.Parse()
	s, ok := shapes[*name]
	if !ok {
		fmt.Fprintf(os.Stderr, "convcpu: unknown shape %q\n", *name)
		os.Exit(2)
	}
	b, err := backend.Get("cpu")
	if err == nil {
		err = backend.Activate(b, *threads)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "convcpu:", err)
		os.Exit(1)
	}
	c, oc, hw, k, st, g := s[0], s[1], s[2], s[3], s[4], s[5]
	r := rand.New(rand.NewPCG(1, 2))
	x := tensor.Rand(r, tensor.Float32, -1, 1, *batch, c, hw, hw)
	w := tensor.Rand(r, tensor.Float32, -1, 1, oc, c/g, k, k)
	p := op.ConvParams{Strides: []int{st, st}, Pads: []int{k / 2, k / 2, k / 2, k / 2}, Groups: g}
	def := op.Lookup("conv2d")
	y := op.Conv2D(x, w, nil, p)
	dy := tensor.Rand(r, tensor.Float32, -1, 1, y.Shape()...)
	call := func() {
		y := op.Conv2D(x, w, nil, p)
		if *bwd {
			def.VJP(&op.VJPCtx{In: []*op.T{x, w}, Out: []*op.T{y}, GradOut: []*op.T{dy}, Attrs: p.Attrs()})
		}
	}
	call()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fmt.Fprintln(os.Stderr, "convcpu:", err)
			os.Exit(1)
		}
		defer f.Close()
		_ = pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	c0, t0 := cputime.Now(), time.Now()
	for range *runs {
		call()
	}
	cpu, wall := cputime.Now()-c0, time.Since(t0)
	ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 / float64(*runs) }
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{
		"impl": "paddle", "case": *name, "threads": *threads, "backward": *bwd, "runs": *runs,
		"cpu_ms": ms(cpu), "wall_ms": ms(wall),
	})
}
