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

// gemmCase is one SGEMM call with its operands laid out with padding: the
// leading dimensions exceed the widths, and C has guard cells around it.
type gemmCase struct {
	ta, tb        bool
	m, n, k       int
	alpha, beta   float32
	lda, ldb, ldc int
	a, b, c0      []float32
}

const guard = 37

func newCase(r *rand.Rand, ta, tb bool, m, n, k int, alpha, beta float32, pad int) *gemmCase {
	g := &gemmCase{ta: ta, tb: tb, m: m, n: n, k: k, alpha: alpha, beta: beta}
	ra, ca := m, k
	if ta {
		ra, ca = k, m
	}
	rb, cb := k, n
	if tb {
		rb, cb = n, k
	}
	g.lda, g.ldb, g.ldc = max(1, ca+pad), max(1, cb+pad), max(1, n+pad)
	g.a = randSlice(r, max(0, (ra-1)*g.lda+ca))
	g.b = randSlice(r, max(0, (rb-1)*g.ldb+cb))
	g.c0 = randSlice(r, guard+max(0, (m-1)*g.ldc+n)+guard)
	return g
}

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.Float64()*2 - 1)
	}
	return s
}

// check runs SGEMM and compares with a float64 reference: each element
// within 1e-5·sqrt(k) of the scale Σ|alpha·a·b| + |beta·c|, guard cells
// and the padding between rows untouched.
func (g *gemmCase) check(t *testing.T, what string) {
	t.Helper()
	c := append([]float32(nil), g.c0...)
	if g.beta == 0 {
		for i := guard; i < len(c)-guard; i++ {
			c[i] = float32(math.NaN()) // beta = 0 must not read C
		}
	}
	SGEMM(g.ta, g.tb, g.m, g.n, g.k, g.alpha, g.a, g.lda, g.b, g.ldb, g.beta, c[guard:len(c)-guard], g.ldc)
	at := func(i, p int) float64 {
		if g.ta {
			return float64(g.a[p*g.lda+i])
		}
		return float64(g.a[i*g.lda+p])
	}
	bt := func(p, j int) float64 {
		if g.tb {
			return float64(g.b[j*g.ldb+p])
		}
		return float64(g.b[p*g.ldb+j])
	}
	tol := 1e-5 * math.Sqrt(float64(g.k)+1)
	bad := 0
	for idx := range c {
		i, j := (idx-guard)/g.ldc, (idx-guard)%g.ldc
		inside := idx >= guard && idx < len(c)-guard && j < g.n
		if !inside {
			if math.Float32bits(c[idx]) != math.Float32bits(g.c0[idx]) && !(g.beta == 0 && idx >= guard && idx < len(c)-guard && math.IsNaN(float64(c[idx]))) {
				t.Fatalf("%s: wrote outside C at offset %d (row %d col %d): %v", what, idx-guard, i, j, c[idx])
			}
			continue
		}
		var sum, scale float64
		for p := range g.k {
			v := at(i, p) * bt(p, j)
			sum += v
			scale += math.Abs(v)
		}
		want := float64(g.alpha) * sum
		scale = math.Abs(float64(g.alpha))*scale + 1e-30
		if g.beta != 0 {
			want += float64(g.beta) * float64(g.c0[idx])
			scale += math.Abs(float64(g.beta) * float64(g.c0[idx]))
		}
		if d := math.Abs(float64(c[idx]) - want); !(d <= tol*scale) {
			if bad++; bad < 5 {
				t.Errorf("%s: c[%d][%d] = %v, want %v (scale %g)", what, i, j, c[idx], want, scale)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%s: %d wrong elements", what, bad)
	}
}

// withKernel runs f at each kernel level this CPU has (generic included)
// and each thread count.
func withKernel(t *testing.T, f func(t *testing.T, kname string)) {
	saved, savedThreads := activeLevel.Load(), parallel.Threads()
	defer func() { setLevel(saved); parallel.SetThreads(savedThreads) }()
	for _, l := range levels {
		for _, th := range []int{1, 2} {
			setLevel(l)
			parallel.SetThreads(th)
			t.Run(fmt.Sprintf("%s/threads=%d", l.name, th), func(t *testing.T) { f(t, l.name) })
		}
	}
}

var awkward = []int{1, 3, 7, 15, 17, 31, 33, 63, 65, 127, 129}

func TestSGEMMAwkwardSizes(t *testing.T) {
	withKernel(t, func(t *testing.T, _ string) {
		r := rand.New(rand.NewPCG(1, 2))
		for ci := range 48 {
			m, n, k := awkward[r.IntN(len(awkward))], awkward[r.IntN(len(awkward))], awkward[r.IntN(len(awkward))]
			if ci < len(awkward) {
				m, n, k = awkward[ci], awkward[(ci*3+1)%len(awkward)], awkward[(ci*7+2)%len(awkward)]
			}
			ta, tb := ci%2 == 1, ci/2%2 == 1
			alpha, beta := float32(1), float32(0)
			switch ci % 3 {
			case 1:
				alpha, beta = -0.75, 1
			case 2:
				alpha, beta = 1.5, -0.5
			}
			g := newCase(r, ta, tb, m, n, k, alpha, beta, ci%4)
			g.check(t, fmt.Sprintf("m=%d n=%d k=%d ta=%v tb=%v alpha=%v beta=%v", m, n, k, ta, tb, alpha, beta))
		}
	})
}

// A row-major A of one K step with lda = k (a 1×1 conv's weights) is read
// in place, panel by panel, with only a last partial panel packed: row
// counts around the micro-kernels' mr (4, 6, 8, 12) and the AVX2 level's
// 4-row tiles (8, 14, 20, 32: 6-row panels then two 4-row tiles), K up to
// the largest kc.
func TestSGEMMDirectA(t *testing.T) {
	withKernel(t, func(t *testing.T, _ string) {
		r := rand.New(rand.NewPCG(7, 8))
		for _, m := range []int{1, 4, 5, 6, 7, 8, 11, 12, 13, 14, 19, 20, 25, 32, 480} {
			for _, k := range []int{1, 9, 240, 480} {
				n := 1 + r.IntN(70)
				g := newCase(r, false, false, m, n, k, 1, float32(m%2), 0)
				g.check(t, fmt.Sprintf("m=%d n=%d k=%d", m, n, k))
			}
		}
	})
}

func TestSGEMMLargeSides(t *testing.T) {
	shapes := [][3]int{{1000, 33, 129}, {7, 1000, 65}, {65, 127, 1000}, {129, 1000, 17}}
	withKernel(t, func(t *testing.T, _ string) {
		r := rand.New(rand.NewPCG(3, 4))
		for i, s := range shapes {
			for tr := range 4 {
				g := newCase(r, tr&1 == 1, tr&2 == 2, s[0], s[1], s[2], 0.5, float32(i%2), 3)
				g.check(t, fmt.Sprintf("%v trans=%d", s, tr))
			}
		}
	})
}

// TestSGEMMHalfPanels covers last column panels that the half-width
// kernels take (AVX-512 12×16, AVX2 6×8): exactly half wide, narrower,
// and just wider, with rows that are not a multiple of mr.
func TestSGEMMHalfPanels(t *testing.T) {
	withKernel(t, func(t *testing.T, _ string) {
		r := rand.New(rand.NewPCG(7, 8))
		for _, n := range []int{8, 24, 40, 9, 23, 5, 48, 50} {
			for tr := range 4 {
				m, k := 6+n%7, 19+n
				g := newCase(r, tr&1 == 1, tr&2 == 2, m, n, k, 1.25, float32(tr%2)*0.5, tr)
				g.check(t, fmt.Sprintf("m=%d n=%d k=%d trans=%d", m, n, k, tr))
			}
		}
	})
}

// TestSGEMMSmallBlocks shrinks the cache blocks so that small matrices run
// through every blocking loop (several kc, mc and nc steps, partial blocks).
func TestSGEMMSmallBlocks(t *testing.T) {
	withKernel(t, func(t *testing.T, _ string) {
		k := active.Load()
		saved := *k
		defer func() { k.kc, k.mc, k.nc = saved.kc, saved.mc, saved.nc }()
		k.kc, k.mc, k.nc = 16, 2*k.mr, 3*k.nr
		r := rand.New(rand.NewPCG(5, 6))
		for _, s := range [][3]int{{65, 129, 63}, {33, 17, 100}, {127, 65, 33}, {3, 200, 41}} {
			for tr := range 4 {
				g := newCase(r, tr&1 == 1, tr&2 == 2, s[0], s[1], s[2], 1.25, 0.5, 1)
				g.check(t, fmt.Sprintf("%v trans=%d", s, tr))
			}
		}
	})
}

func TestSGEMMDegenerate(t *testing.T) {
	c := []float32{1, 2, 3, 4}
	SGEMM(false, false, 2, 2, 0, 1, nil, 1, nil, 2, 0.5, c, 2)
	if c[0] != 0.5 || c[3] != 2 {
		t.Fatalf("k=0: c = %v, want beta·c", c)
	}
	c = []float32{float32(math.NaN()), 2, 3, 4}
	SGEMM(false, false, 2, 2, 1, 0, []float32{1, 1}, 1, []float32{1, 1}, 2, 0, c, 2)
	if c[0] != 0 || c[3] != 0 {
		t.Fatalf("alpha=0, beta=0: c = %v, want zeros", c)
	}
	SGEMM(false, false, 0, 3, 3, 1, nil, 3, make([]float32, 9), 3, 0, nil, 3)
	// k=0 with the leading dimensions a packed empty operand has (lda = k = 0),
	// as the runtime passes for a batch of molecules without bonds
	c = []float32{1, 2, 3, 4}
	SGEMM(false, false, 2, 2, 0, 1, nil, 0, nil, 2, 0, c, 2)
	if c[0] != 0 || c[3] != 0 {
		t.Fatalf("k=0, lda=0: c = %v, want zeros", c)
	}
	SGEMM(true, true, 2, 2, 0, 1, nil, 2, nil, 0, 0, c, 2)
}

func TestSGEMMPanicsOnShortSlice(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a short a")
		}
	}()
	SGEMM(false, false, 4, 4, 4, 1, make([]float32, 15), 4, make([]float32, 16), 4, 0, make([]float32, 16), 4)
}

func TestSelectKernel(t *testing.T) {
	saved := activeLevel.Load()
	defer setLevel(saved)
	if err := SelectKernel("generic"); err != nil || Kernel() != "generic" {
		t.Fatalf("SelectKernel(generic) = %v, kernel %s", err, Kernel())
	}
	if err := SelectKernel("nonesuch"); err == nil {
		t.Fatal("SelectKernel(nonesuch): no error")
	}
	if err := SelectKernel(""); err != nil || Kernel() != available[0].name {
		t.Fatalf("SelectKernel(\"\") = %v, kernel %s", err, Kernel())
	}
}

func FuzzSGEMM(f *testing.F) {
	f.Add(uint8(3), uint8(5), uint8(7), uint8(0), uint8(0))
	f.Add(uint8(33), uint8(17), uint8(65), uint8(3), uint8(2))
	f.Add(uint8(1), uint8(200), uint8(1), uint8(1), uint8(1))
	f.Fuzz(func(t *testing.T, m, n, k, flags, pad uint8) {
		r := rand.New(rand.NewPCG(uint64(m)<<16|uint64(n)<<8|uint64(k), uint64(flags)))
		saved := active.Load()
		defer active.Store(saved)
		for _, kern := range available {
			active.Store(kern)
			g := newCase(r, flags&1 == 1, flags&2 == 2, int(m), int(n), int(k), 1-float32(flags>>2&1)*2.5, float32(flags>>3&1), int(pad%5))
			g.check(t, fmt.Sprintf("%s m=%d n=%d k=%d flags=%d pad=%d", kern.name, m, n, k, flags, pad))
		}
	})
}

// TestSGEMMConcurrentCalls runs SGEMMs from several goroutines at once (as
// the convolutions' parallel loops do): the worker pool is shared.
func TestSGEMMConcurrentCalls(t *testing.T) {
	saved := parallel.Threads()
	parallel.SetThreads(2)
	t.Cleanup(func() { parallel.SetThreads(saved) })
	t.Run("group", func(t *testing.T) {
		for gi := range 4 {
			t.Run(fmt.Sprint(gi), func(t *testing.T) {
				t.Parallel()
				r := rand.New(rand.NewPCG(uint64(gi), 9))
				for i := range 6 {
					g := newCase(r, i%2 == 0, i%3 == 0, 65+gi, 129, 33+i, 1, 0.5, 1)
					g.check(t, fmt.Sprintf("goroutine %d call %d", gi, i))
				}
			})
		}
	})
}

func TestBlockSizes(t *testing.T) {
	l1, l2 := cacheSizes()
	t.Logf("CPUID caches: L1d %d KiB, L2 %d KiB (used: %d, %d)", l1>>10, l2>>10, l1Size>>10, l2Size>>10)
	for _, k := range available {
		t.Logf("%s: mr=%d nr=%d kc=%d mc=%d nc=%d", k.name, k.mr, k.nr, k.kc, k.mc, k.nc)
		if k.kc < 16 || k.mc < k.mr || k.nc < k.nr || k.mc%k.mr != 0 || k.nc%k.nr != 0 {
			t.Errorf("%s: bad blocking kc=%d mc=%d nc=%d", k.name, k.kc, k.mc, k.nc)
		}
	}
}

// TestMatMulSharedB checks that matmul of a batch by one 2-D b (rec's
// output layer: (6, 40, 120)·(120, 6625)), which runs as one product of all
// the batches' rows, is bitwise the per-batch products at every level and
// thread count, b plain and transposed.
func TestMatMulSharedB(t *testing.T) {
	defer parallel.SetThreads(parallel.Threads())
	if err := (host{}).Activate(1); err != nil {
		t.Fatal(err)
	}
	mm := op.Lookup("matmul")
	withKernel(t, func(t *testing.T, _ string) {
		r := rand.New(rand.NewPCG(29, 30))
		for _, s := range [][4]int{{6, 40, 120, 661}, {3, 7, 33, 45}, {2, 13, 5, 17}, {4, 1, 9, 40}} {
			nb, m, k, n := s[0], s[1], s[2], s[3]
			for _, tb := range []bool{false, true} {
				a := tensor.Rand(r, tensor.Float32, -1, 1, nb, m, k)
				bs := []int{k, n}
				ldb := n
				if tb {
					bs, ldb = []int{n, k}, k
				}
				b := tensor.Rand(r, tensor.Float32, -1, 1, bs...)
				got := op.Call(mm, op.Attrs{"trans_b": tb}, a, b)[0].F32()
				want := make([]float32, nb*m*n)
				for i := range nb {
					SGEMM(false, tb, m, n, k, 1, a.F32()[i*m*k:], k, b.F32(), ldb, 0, want[i*m*n:], n)
				}
				for i, w := range want {
					if !sameBits(got[i], w) {
						t.Fatalf("%v trans_b=%v: c[%d] = %v, want %v", s, tb, i, got[i], w)
					}
				}
			}
		}
	})
}
