package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/tensor"
)

// The vector stride-2 row gather writes exactly dst[r·ldd+i] = src[r·lds+2i]
// and touches nothing else (sentinels between and after the rows stay
// intact; src is cut to exactly what it may read, so the Go bounds check
// fires on a read past it).
func TestStride2Rows(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		k := stride2RowsKernel()
		if k == nil {
			t.Skip("no vector stride-2 gather on this CPU")
		}
		r := rand.New(rand.NewPCG(31, 32))
		for n := 1; n < 70; n++ {
			for _, rows := range []int{1, 2, 5} {
				ldd, lds := n+3, 2*n+7
				src := make([]float32, (rows-1)*lds+2*n-1)
				for i := range src {
					src[i] = r.Float32()
				}
				dst := make([]float32, (rows-1)*ldd+n+20)
				for i := range dst {
					dst[i] = -7
				}
				k(dst, ldd, src, lds, n, rows)
				for i := range dst {
					want := float32(-7)
					if rr, c := i/ldd, i%ldd; rr < rows && c < n {
						want = src[rr*lds+2*c]
					}
					if dst[i] != want {
						t.Fatalf("n=%d rows=%d: dst[%d] = %v, want %v", n, rows, i, dst[i], want)
					}
				}
			}
		}
	})
}

// The vector stride-2 scatter-add adds into exactly the even elements
// dst[2i], i < n, and leaves every other element bitwise alone (-0 too).
func TestStride2Add(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		k := stride2AddKernel()
		if k == nil {
			t.Skip("no vector stride-2 scatter on this CPU")
		}
		r := rand.New(rand.NewPCG(37, 38))
		negZero := float32(math.Copysign(0, -1))
		for n := range 70 {
			src := make([]float32, n+5)
			for i := range src {
				src[i] = r.Float32() - 0.5
			}
			dst := make([]float32, 2*n+20)
			want := make([]float32, len(dst))
			for i := range dst {
				dst[i] = r.Float32()
				if i%2 == 1 {
					dst[i] = negZero
				}
				want[i] = dst[i]
			}
			for i := range n {
				want[2*i] += src[i]
			}
			k(dst[:max(2*n-1, 0)], src[:n])
			for i := range dst {
				if math.Float32bits(dst[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n=%d: dst[%d] = %v, want %v", n, i, dst[i], want[i])
				}
			}
		}
	})
}

// Stride-2 convs give bitwise the same forward and input gradient with the
// vector gather and scatter as with im2col's and col2im's Go loops (the filter gradient up to the
// order its per-worker parts are summed in), and match
// the float64 reference: awkward sizes, pads, kernels, groups, batches,
// 1/2/3 threads.
func TestStride2Im2colMatches(t *testing.T) {
	forLevels(t, func(t *testing.T) {
		k := stride2RowsKernel()
		if k == nil {
			t.Skip("no vector stride-2 gather on this CPU")
		}
		defer func(old func([]float32, int, []float32, int, int, int), oldAdd func(dst, src []float32)) {
			op.Active().Stride2Rows32, op.Active().Stride2Add32 = old, oldAdd
		}(op.Active().Stride2Rows32, op.Active().Stride2Add32)
		kAdd := stride2AddKernel()
		defer parallel.SetThreads(parallel.Threads())
		def := op.Lookup("conv2d")
		r := rand.New(rand.NewPCG(33, 34))
		cases := 0
		for _, hw := range [][2]int{{1, 1}, {3, 7}, {7, 3}, {17, 33}, {33, 17}, {65, 9}} {
			for _, kk := range []int{1, 3, 5} {
				for _, groups := range []int{1, 3} {
					c, oc := 3*groups, 2*groups+cases%5
					oc -= oc % groups
					pads := []int{cases % 3, (cases + 1) % 3, (cases + 2) % 3, cases % 2}
					if hw[0]+pads[0]+pads[2] < kk || hw[1]+pads[1]+pads[3] < kk {
						continue
					}
					parallel.SetThreads(1 + cases%3)
					x := tensor.Rand(r, tensor.Float32, -1, 1, 1+cases%3, c, hw[0], hw[1])
					w := tensor.Rand(r, tensor.Float32, -1, 1, oc, c/groups, kk, kk)
					p := op.ConvParams{Strides: []int{1 + cases%2, 2}, Pads: pads, Groups: groups}
					run := func() []*op.T {
						y := op.Conv2D(x, w, nil, p)
						dy := tensor.Rand(rand.New(rand.NewPCG(1, 1)), tensor.Float32, -1, 1, y.Shape()...)
						return append([]*op.T{y}, def.VJP(&op.VJPCtx{In: []*op.T{x, w}, Out: []*op.T{y}, GradOut: []*op.T{dy}, Attrs: p.Attrs()})...)
					}
					op.Active().Stride2Rows32, op.Active().Stride2Add32 = k, kAdd
					got := run()
					op.Active().Stride2Rows32, op.Active().Stride2Add32 = nil, nil
					want := run()
					name := fmt.Sprintf("x%v w%v %+v", x.Shape(), w.Shape(), p)
					// dw sums per-worker parts in the order they finish: equal
					// up to rounding only
					if d, ok := tensor.MaxDiff(got[2], want[2], 1e-5, 1e-5); !ok {
						t.Fatalf("%s: dw differs from the Go loop's by %g", name, d)
					}
					for i := range 2 {
						gv, wv := got[i].F32(), want[i].F32()
						for j := range gv {
							if math.Float32bits(gv[j]) != math.Float32bits(wv[j]) {
								t.Fatalf("%s: result %d [%d] = %v, Go loop %v", name, i, j, gv[j], wv[j])
							}
						}
					}
					if e := convErr(t, got[0], x, w, nil, p); e > 1e-6 {
						t.Errorf("%s: forward error %.3g against float64", name, e)
					}
					cases++
				}
			}
		}
		if cases < 20 {
			t.Fatalf("only %d cases ran", cases)
		}
	})
}

// While a conv loop's tasks run (the kernel set's GemmLoop), each SGEMM call takes its
// share of the threads; the count returns to zero after the loop.
func TestGemmLoopShare(t *testing.T) {
	defer parallel.SetThreads(parallel.Threads())
	parallel.SetThreads(4)
	if n := gemmThreads(1); n != 4 {
		t.Fatalf("alone: %d threads, want 4", n)
	}
	end := gemmLoop(2)
	if n := gemmThreads(1); n != 2 {
		t.Errorf("in a loop of 2 tasks: %d threads, want 2", n)
	}
	if n := gemmThreads(3); n != 1 {
		t.Errorf("3 calls in a loop of 2: %d threads, want 1", n)
	}
	end()
	if n := gemmThreads(1); n != 4 || loopTasks.Load() != 0 {
		t.Errorf("after the loop: %d threads, %d tasks left", n, loopTasks.Load())
	}
}

// sgemmHere (Winograd's GEMMs when its blocks are the parallel tasks) is
// bitwise SGEMM.
func TestSgemmHere(t *testing.T) {
	defer parallel.SetThreads(parallel.Threads())
	parallel.SetThreads(3)
	r := rand.New(rand.NewPCG(35, 36))
	for _, s := range [][3]int{{1, 1, 1}, {7, 33, 17}, {64, 113, 64}, {13, 65, 300}} {
		m, n, k := s[0], s[1], s[2]
		a, b := make([]float32, m*k), make([]float32, k*(n+3))
		for i := range a {
			a[i] = r.Float32() - 0.5
		}
		for i := range b {
			b[i] = r.Float32() - 0.5
		}
		want, got := make([]float32, m*(n+1)), make([]float32, m*(n+1))
		SGEMM(false, false, m, n, k, 1, a, k, b, n+3, 0, want, n+1)
		sgemmHere(false, m, n, k, a, k, b, n+3, 0, got, n+1)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%v: c[%d] = %v, SGEMM %v", s, i, got[i], want[i])
			}
		}
	}
}
