// Command qcputime times whole models on core/runtime in CPU time (user+sys
// of the process, getrusage) rather than wall-clock time, for float32
// against int8 (QDQ) comparisons on a machine that other jobs share. The
// models run alternated in one process on one fixed input each (uniform in
// [-1, 1), seed 7), one kernel thread, after a warm-up run; it prints per
// model the minimum and median CPU milliseconds per run over -runs rounds:
//
//	qcputime -level avx2 -runs 10 det.onnx:1,3,960,960 det_q.onnx:1,3,960,960
//
// Each model keeps its working set between its calls, each output goes
// back to its model after the call (runtime.Predictor.Recycle, as in ocr
// predict), and the collector runs between rounds only (see main), so runs
// do not fault in memory the runtime returned to the OS.
//
// -cpuprofile writes a pprof CPU profile of the timed runs of all models;
// -ops and -nodes N print wall time per op kind and for the N slowest
// nodes (noisier than the CPU times: a node that the background sweeper
// or a page fault interrupts is charged for it).
package main

import (
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"paddle/core/backend"
	"paddle/core/backend/cpu"
	"paddle/core/graph"
	"paddle/core/runtime"
	"paddle/core/tensor"
	"paddle/scripts/bench/internal/cputime"
)

func main() {
	runs := flag.Int("runs", 10, "timed rounds")
	level := flag.String("level", "", "cpu kernel level (default: the best the host has)")
	prof := flag.String("cpuprofile", "", "write a CPU profile of the timed runs to this file")
	ops := flag.Bool("ops", false, "also print each model's wall time per op kind (depthwise convs apart), summed over the timed runs")
	nodes := flag.Int("nodes", 0, "also print each model's N slowest nodes, with their output shapes and, for convolutions, multiply-adds and GOP/s")
	flag.Parse()
	if *level != "" {
		if err := cpu.SelectKernel(*level); err != nil {
			fail(err)
		}
	}
	// Each model as if it ran alone, in steady state, from its warm-up on:
	// its arena keeps its whole working set between its calls (no budget
	// shared with the other models), and the collector runs between rounds
	// only. Under Go's default pacing the runtime returned freed memory to
	// the OS and most runs faulted their buffers in again (1,550 minor
	// faults for rec b6's 6.4 MB output, 20–26 ms of a 38 ms int8 run here),
	// so medians sat far above minimums; with the whole working set live at
	// each collection, the runtime keeps what a round frees for the next.
	runtime.MaxIdleArenaBytes, runtime.MaxRetainedArenaBytes = 1<<40, 1<<40
	b, err := backend.Get("cpu")
	if err == nil {
		err = backend.Activate(b, 1)
	}
	if err != nil {
		fail(err)
	}
	type model struct {
		name string
		p    *runtime.Predictor
		in   map[string]*tensor.Tensor
		ms   []float64
		ops  map[string]time.Duration
		node map[string]*nodeTime
	}
	var ms []*model
	for _, arg := range flag.Args() {
		file, shape, ok := strings.Cut(arg, ":")
		if !ok {
			fail(fmt.Errorf("%q: want MODEL.onnx:N,C,H,W", arg))
		}
		var dims []int
		for _, s := range strings.Split(shape, ",") {
			d, err := strconv.Atoi(s)
			if err != nil || d <= 0 {
				fail(fmt.Errorf("%q: shape %q: want positive integers", arg, shape))
			}
			dims = append(dims, d)
		}
		m := &model{name: arg, ops: map[string]time.Duration{}, node: map[string]*nodeTime{}}
		opt := runtime.Options{Threads: 1}
		if *ops || *nodes > 0 {
			opt.Trace = func(n *graph.Node, out []*tensor.Tensor, d time.Duration) {
				k := n.Op.Name
				if g := n.Attrs.Int("groups", 1); g > 1 && len(n.In) > 1 && n.In[1].Const != nil && n.In[1].Const.Rank() == 4 && n.In[1].Const.Dim(1) == 1 {
					k += " (depthwise)"
				}
				m.ops[k] += d
				nt := m.node[n.Name]
				if nt == nil {
					nt = &nodeTime{name: n.Name, op: k, macs: convMACs(n, out)}
					if len(out) > 0 && out[0] != nil {
						nt.shape = fmt.Sprint(out[0].Shape())
					}
					m.node[n.Name] = nt
				}
				nt.d += d
			}
		}
		p, err := runtime.Load(file, opt)
		if err != nil {
			fail(err)
		}
		if len(p.InputNames()) != 1 {
			fail(fmt.Errorf("%s: want one input, has %v", file, p.InputNames()))
		}
		x := tensor.New(tensor.Float32, dims...)
		r := rand.New(rand.NewPCG(7, 7))
		for i := range x.F32() {
			x.F32()[i] = r.Float32()*2 - 1
		}
		m.p, m.in = p, map[string]*tensor.Tensor{p.InputNames()[0]: x}
		out, err := p.Run(m.in) // warm-up: plans, arenas, packed weights
		if err != nil {
			fail(err)
		}
		p.Recycle(out)
		clear(m.ops)
		clear(m.node)
		ms = append(ms, m)
	}
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fail(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	// the collector runs between rounds only (see the arena budgets above)
	debug.SetGCPercent(-1)
	for range *runs {
		goruntime.GC()
		for _, m := range ms {
			t0 := cputime.Now()
			out, err := m.p.Run(m.in)
			if err != nil {
				fail(err)
			}
			m.ms = append(m.ms, float64(cputime.Now()-t0)/float64(time.Millisecond))
			m.p.Recycle(out) // as ocr predict does
		}
	}
	fmt.Printf("level %s, %d runs, CPU ms per run (min / median)\n", cpu.Level(), *runs)
	for _, m := range ms {
		slices.Sort(m.ms)
		fmt.Printf("%-50s %8.1f %8.1f\n", m.name, m.ms[0], m.ms[len(m.ms)/2])
	}
	for _, m := range ms {
		if len(m.ops) == 0 {
			continue
		}
		fmt.Printf("\n%s: wall ms per run by op\n", m.name)
		keys := slices.SortedFunc(maps.Keys(m.ops), func(a, b string) int { return int(m.ops[b] - m.ops[a]) })
		for _, k := range keys {
			fmt.Printf("  %-28s %8.2f\n", k, float64(m.ops[k])/float64(time.Millisecond)/float64(*runs))
		}
	}
	for _, m := range ms {
		if *nodes <= 0 || len(m.node) == 0 {
			continue
		}
		fmt.Printf("\n%s: the %d slowest nodes, wall ms per run\n", m.name, *nodes)
		ns := slices.SortedFunc(maps.Values(m.node), func(a, b *nodeTime) int { return int(b.d - a.d) })
		for _, nt := range ns[:min(*nodes, len(ns))] {
			ms := float64(nt.d) / float64(time.Millisecond) / float64(*runs)
			gops := ""
			if nt.macs > 0 {
				gops = fmt.Sprintf("%8.1f MMAC %6.1f GOP/s", float64(nt.macs)/1e6, 2*float64(nt.macs)/ms/1e6)
			}
			fmt.Printf("  %-24s %-22s %-20s %7.2f %s\n", nt.name, nt.op, nt.shape, ms, gops)
		}
	}
}

// nodeTime is one node's wall time summed over the timed runs.
type nodeTime struct {
	name, op, shape string
	macs            int64
	d               time.Duration
}

// convMACs is the multiply-adds of a (not transposed) convolution node,
// its weights a constant (OC, C/groups, KH, KW), producing out; else 0.
func convMACs(n *graph.Node, out []*tensor.Tensor) int64 {
	if !strings.Contains(n.Op.Name, "conv") || strings.Contains(n.Op.Name, "transpose") || len(n.In) < 2 || n.In[1].Const == nil || n.In[1].Const.Rank() != 4 || len(out) == 0 || out[0] == nil || out[0].Rank() != 4 {
		return 0
	}
	w := n.In[1].Const.Shape()
	return int64(out[0].Shape().NumElements()) * int64(w[1]*w[2]*w[3])
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "qcputime:", err)
	os.Exit(1)
}
