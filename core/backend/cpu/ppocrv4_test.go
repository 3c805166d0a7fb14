package cpu

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"paddle/core/graph"
	"paddle/core/parallel"
	"paddle/core/runtime"
	"paddle/core/runtime/ppocrtest"
	"paddle/core/tensor"
)

// The PP-OCRv4 models on this backend's kernels against ONNX Runtime 1.30:
// the goldens of core/runtime (scripts/ref/ppocrv4_golden.sh), whose own
// test runs core/op's portable kernels. Same inputs, same 1e-4 bound.

func TestPPOCRv4MatchesORTOnCPUBackend(t *testing.T) {
	dir := ppocrtest.Dir(t)
	defer parallel.SetThreads(parallel.Threads())
	// recycled buffers an op is trusted to overwrite hold NaN (the second
	// run of each case takes them)
	runtime.PoisonArena(true)
	defer runtime.PoisonArena(false)
	for _, threads := range []int{1, 2} {
		if err := (host{}).Activate(threads); err != nil {
			t.Fatal(err)
		}
		preds := map[string]*runtime.Predictor{}
		for _, c := range ppocrtest.Cases {
			p := preds[c.Model]
			if p == nil {
				var err error
				if p, err = runtime.Load(filepath.Join(dir, c.Model), runtime.Options{}); err != nil {
					t.Fatal(err)
				}
				preds[c.Model] = p
			}
			want, err := c.Want()
			if err != nil {
				t.Fatal(err)
			}
			x := c.Input()
			for run := range 2 { // the second run takes recycled buffers
				out, err := p.Run(map[string]*tensor.Tensor{"x": x})
				if err != nil {
					t.Fatalf("%s: %v", c.Golden, err)
				}
				got := out[p.OutputNames()[0]]
				if !got.Shape().Equal(want.Shape()) {
					t.Fatalf("%s: shape %v, ORT %v", c.Golden, got.Shape(), want.Shape())
				}
				d, _ := tensor.MaxDiff(got, want, 0, 0)
				if run == 0 {
					t.Logf("%s, %d threads: max abs error vs ORT %.3g", c.Golden, threads, d)
				}
				if d > 1e-4 {
					t.Errorf("%s, %d threads, run %d: max abs error %.3g > 1e-4", c.Golden, threads, run, d)
				}
			}
		}
	}
}

// benchTrace returns Load options that, with PADDLE_BENCH_TRACE set, sum
// the wall time of each node, and a report that logs the nodes by total time
// (op, output shape, ms per call).
func benchTrace() (runtime.Options, func(*testing.B)) {
	if os.Getenv("PADDLE_BENCH_TRACE") == "" {
		return runtime.Options{}, func(*testing.B) {}
	}
	type row struct {
		label   string
		d, busy time.Duration
		calls   int
	}
	rows := map[*graph.Node]*row{}
	var order []*graph.Node
	// with a busy meter: a node's busy thread-time is its time outside
	// parallel regions plus its regions' participants' work time
	var lastWall, lastBusy int64
	if busyMeter != nil {
		lastWall, lastBusy = busyMeter.wall.Load(), busyMeter.busy.Load()
	}
	opts := runtime.Options{Trace: func(n *graph.Node, outs []*tensor.Tensor, d time.Duration) {
		r := rows[n]
		if r == nil {
			r = &row{label: fmt.Sprintf("%s w%v s%v %v g%v %v", n.Op.Name, wShape(n), n.Attrs["strides"], outs[0].Shape(), n.Attrs["groups"], n.Attrs["act"])}
			rows[n] = r
			order = append(order, n)
		}
		r.d += d
		r.calls++
		if busyMeter != nil {
			w, b := busyMeter.wall.Load(), busyMeter.busy.Load()
			r.busy += d - time.Duration(w-lastWall) + time.Duration(b-lastBusy)
			lastWall, lastBusy = w, b
		}
	}}
	return opts, func(b *testing.B) {
		byOp := map[string]time.Duration{}
		var total, busy time.Duration
		for _, n := range order {
			byOp[n.Op.Name] += rows[n].d
			total += rows[n].d
			busy += rows[n].busy
		}
		// with a busy meter, rank by idle thread-time (threads·time - busy)
		th := time.Duration(parallel.Threads())
		key := func(r *row) time.Duration { return r.d }
		if busyMeter != nil {
			key = func(r *row) time.Duration { return th*r.d - r.busy }
		}
		sort.Slice(order, func(i, j int) bool { return key(rows[order[i]]) > key(rows[order[j]]) })
		var sb strings.Builder
		calls := float64(rows[order[0]].calls)
		fmt.Fprintf(&sb, "%d nodes, %.3f ms per call in kernels\n", len(order), total.Seconds()*1e3/calls)
		if busyMeter != nil {
			fmt.Fprintf(&sb, "busy threads on average %.2f of %d (busy thread-time %.3f ms per call)\n", busy.Seconds()/total.Seconds(), th, busy.Seconds()*1e3/calls)
		}
		for _, n := range order[:min(40, len(order))] {
			r := rows[n]
			fmt.Fprintf(&sb, "%8.3f ms  busy %.2f  %s\n", r.d.Seconds()*1e3/calls, r.busy.Seconds()/r.d.Seconds(), r.label)
		}
		ops := make([]string, 0, len(byOp))
		for k := range byOp {
			ops = append(ops, k)
		}
		sort.Slice(ops, func(i, j int) bool { return byOp[ops[i]] > byOp[ops[j]] })
		for _, k := range ops {
			fmt.Fprintf(&sb, "%8.3f ms  all %s\n", byOp[k].Seconds()*1e3/float64(rows[order[0]].calls), k)
		}
		b.Log(sb.String())
	}
}

// BenchmarkPPOCRv4 runs the PP-OCRv4 models of docs/BENCHMARKS.md on this
// backend, for profiles (-cpuprofile): PADDLE_BENCH_THREADS sets the
// threads (default 1), PADDLE_BENCH_CASE picks one case by name prefix,
// PADDLE_BENCH_TRACE logs per-node times, and PADDLE_BENCH_BUSY with it how
// many threads each node kept busy on average (from the parallel regions'
// work time, so it does not count spinning workers; a loaded machine
// stretches work and wall alike).
func BenchmarkPPOCRv4(b *testing.B) {
	dir := ppocrtest.Dir(b)
	threads := 1
	if t, err := strconv.Atoi(os.Getenv("PADDLE_BENCH_THREADS")); err == nil {
		threads = t
	}
	defer parallel.SetThreads(parallel.Threads())
	if err := (host{}).Activate(threads); err != nil {
		b.Fatal(err)
	}
	if os.Getenv("PADDLE_BENCH_BUSY") != "" { // with PADDLE_BENCH_TRACE: threads kept busy per node
		busyMeter = &meter{}
		defer func() { busyMeter = nil }()
	}
	for _, c := range []struct{ name, model string }{
		{"det_1x3x640x640", "ch_PP-OCRv4_det_infer.onnx"},
		{"det_1x3x960x960", "ch_PP-OCRv4_det_infer.onnx"},
		{"rec_6x3x48x320", "ch_PP-OCRv4_rec_infer.onnx"},
		{"rec_1x3x48x320", "ch_PP-OCRv4_rec_infer.onnx"},
		{"cls_6x3x48x192", "ch_ppocr_mobile_v2.0_cls_infer.onnx"},
	} {
		if !strings.HasPrefix(c.name, os.Getenv("PADDLE_BENCH_CASE")) {
			continue
		}
		b.Run(c.name, func(b *testing.B) {
			opts, report := benchTrace()
			defer report(b)
			p, err := runtime.Load(filepath.Join(dir, c.model), opts)
			if err != nil {
				b.Fatal(err)
			}
			var shape []int
			for _, d := range strings.Split(strings.SplitN(c.name, "_", 2)[1], "x") {
				n, _ := strconv.Atoi(d)
				shape = append(shape, n)
			}
			in := map[string]*tensor.Tensor{"x": ppocrtest.NoiseInput(shape...)}
			if _, err := p.Run(in); err != nil { // warm-up (and the shape plan)
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := p.Run(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// wShape is the shape of n's second input when it is a constant (a conv's weight).
func wShape(n *graph.Node) tensor.Shape {
	if len(n.In) > 1 && n.In[1].Const != nil {
		return n.In[1].Const.Shape()
	}
	return nil
}
