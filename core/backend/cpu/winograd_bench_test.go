package cpu

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// wgShapes are 3×3 stride-1 pad-1 convs: the conv shape of ../shared/bench
// (conv3x3_64to64_56, N=8 there) and ones from the PP-OCRv4 det neck/head
// at 960×960 (96→24 at 240², 24→24 at 240²), the CRNN (64→128 at 16×128,
// 256→256 at 4×32) and the SmallCNN (3→32 at 32²) of its training figures.
var wgShapes = []struct{ n, c, oc, h, w int }{
	{1, 64, 64, 56, 56},
	{8, 64, 64, 56, 56},
	{1, 96, 24, 240, 240},
	{1, 24, 24, 240, 240},
	{1, 32, 32, 112, 112},
	{1, 16, 16, 160, 160},
	{1, 128, 128, 28, 28},
	{1, 256, 256, 14, 14},
	{1, 64, 128, 16, 128},
	{1, 256, 256, 4, 32},
	{1, 3, 32, 32, 32},
	{1, 96, 24, 120, 120},
	{1, 96, 24, 60, 60},
	{1, 96, 24, 30, 30},
	{1, 8, 8, 240, 240},
	{1, 16, 32, 80, 80},
	{1, 64, 64, 14, 14},
	{1, 64, 64, 8, 8},
	{1, 32, 32, 16, 16},
	{1, 16, 16, 32, 32},
	{8, 64, 64, 14, 14},
	{8, 64, 64, 8, 8},
	{8, 32, 32, 16, 16},
	{8, 256, 256, 4, 32},
	{4, 16, 16, 16, 16},
}

func wgBenchInputs(n, c, oc, h, w int) (x, wt *tensor.Tensor, p op.ConvParams) {
	r := rand.New(rand.NewPCG(1, 2))
	return tensor.Rand(r, tensor.Float32, -1, 1, n, c, h, w), tensor.Rand(r, tensor.Float32, -1, 1, oc, c, 3, 3), op.ConvParams{Pads: []int{1, 1, 1, 1}}
}

// BenchmarkConv3x3 times conv2d on wgShapes with Winograd forced on and off.
func BenchmarkConv3x3(b *testing.B) {
	defer op.SetWinogradMode(op.SetWinogradMode(op.WinogradAuto))
	if err := (host{}).Activate(parallel.Threads()); err != nil {
		b.Fatal(err)
	}
	for _, s := range wgShapes {
		x, w, p := wgBenchInputs(s.n, s.c, s.oc, s.h, s.w)
		flops := 2.0 * float64(s.n*s.oc*s.h*s.w*s.c*9)
		for _, m := range []struct {
			name string
			mode int
		}{{"winograd", op.WinogradOn}, {"im2col", op.WinogradOff}} {
			b.Run(fmt.Sprintf("n%d_%dto%d_%dx%d/%s", s.n, s.c, s.oc, s.h, s.w, m.name), func(b *testing.B) {
				op.SetWinogradMode(m.mode)
				for b.Loop() {
					op.Conv2D(x, w, nil, p)
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// TestWinogradSpeedup prints, for each of wgShapes, the median time of
// Winograd over im2col measured interleaved in this process (the numbers
// behind op.useWinograd's rule). Only with PADDLE_WINOGRAD_BENCH=1 (it
// takes a minute).
func TestWinogradSpeedup(t *testing.T) {
	if os.Getenv("PADDLE_WINOGRAD_BENCH") != "1" {
		t.Skip("set PADDLE_WINOGRAD_BENCH=1 to measure")
	}
	defer op.SetWinogradMode(op.SetWinogradMode(op.WinogradAuto))
	defer parallel.SetThreads(parallel.Threads())
	threads := 1
	if os.Getenv("PADDLE_WINOGRAD_BENCH_THREADS") == "2" {
		threads = 2
	}
	if err := (host{}).Activate(threads); err != nil { // im2col on this package's SGEMM
		t.Fatal(err)
	}
	for _, s := range wgShapes {
		x, w, p := wgBenchInputs(s.n, s.c, s.oc, s.h, s.w)
		var tw, ti []float64
		run := func(mode int) float64 {
			op.SetWinogradMode(mode)
			t0 := time.Now()
			op.Conv2D(x, w, nil, p)
			return float64(time.Since(t0).Microseconds()) / 1e3
		}
		run(op.WinogradOn)
		run(op.WinogradOff)
		for i := range 15 {
			if i%2 == 0 {
				tw, ti = append(tw, run(op.WinogradOn)), append(ti, run(op.WinogradOff))
			} else {
				ti, tw = append(ti, run(op.WinogradOff)), append(tw, run(op.WinogradOn))
			}
		}
		slices.Sort(tw)
		slices.Sort(ti)
		mw, mi := tw[len(tw)/2], ti[len(ti)/2]
		t.Logf("threads %d n%d %3d→%3d %3dx%3d: winograd %8.2f ms, im2col %8.2f ms, ratio %.2f (min ratio %.2f)",
			threads, s.n, s.c, s.oc, s.h, s.w, mw, mi, mw/mi, tw[0]/ti[0])
	}
}
