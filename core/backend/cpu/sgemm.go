package cpu

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"paddle/core/parallel"
)

// SGEMM: row-major C = alpha·op(A)·op(B) + beta·C, Goto/BLIS style.
//
// Loops, outermost first (one set per worker, each owning a block of C):
//
//	pc: K in steps of kc      (beta applies to the first step only)
//	ic: M in steps of mc      pack A (mc×kc) into mr-row micro-panels
//	jc: N in steps of nc      pack B (kc×nc) into nr-column micro-panels (L2)
//	ir: mr rows               the A micro-panel (mr×kc) stays in L1
//	jr: nr columns            micro-kernel: mr×nr tile of C in registers
//
// Transposed operands are handled by the packing routines; nothing else
// copies A or B. Kernels with runB or runA (the avx2 level) skip packing B
// for small row blocks and A for narrow regions, reading them in place.

// A microKernel computes one mr×nr tile: c[r*ldc+j] = alpha·Σ_p a[p*mr+r]·b[p*nr+j]
// (+ beta·c[r*ldc+j] when loadC) for r < rows, j < cols. a and b are packed
// micro-panels of kc steps; padding rows/columns in them are zero.
type microKernel struct {
	name   string
	mr, nr int
	// rowA is passed true when the A panel is row-major (a[r*kc+p]), which
	// only kernels with the rowA field set receive.
	run func(kc int, a, b, c []float32, ldc, rows, cols int, alpha, beta float32, loadC, rowA bool)
	// half, when set, is a variant for the last panel of at most nr/2 columns,
	// packed nr/2 wide.
	half    bool
	runHalf func(kc int, a, b, c []float32, ldc, rows, cols int, alpha, beta float32, loadC, rowA bool)
	// rowA: the kernel also reads row-major A panels, so a non-transposed A
	// is packed by plain row copies.
	rowA bool
	// packRows, when set, packs a non-transposed B panel: dst[p*w+j] =
	// src[p*ld+j] for j < cols, 0 for cols ≤ j < w, p < k.
	packRows func(src []float32, ld, k, cols, w int, dst []float32)
	// packPanels, when set, packs np full nr-wide panels of a non-transposed
	// B (panel q at dst[q*nr*k]), reading the source row by row.
	packPanels func(src []float32, ld, k, np int, dst []float32)
	// packPanelT, when set, packs one full nr-wide panel of a transposed B:
	// dst[p*nr+c] = src[c*ld+p].
	packPanelT func(src []float32, ld, k int, dst []float32)

	// runEp, when set, is run with an epilogue fused into the tile's store
	// (i0: the tile's first row in C); false when it cannot take this tile
	// or epilogue (run and epilogue do it then).
	runEp func(kc int, a, b, c []float32, ldc, rows, cols int, alpha, beta float32, loadC, rowA bool, e *Epilogue, i0 int) bool

	// epilogueTile, when set, applies an epilogue to one tile of at most
	// 32 columns (a vector version of Epilogue.applyGo).
	epilogueTile func(e *Epilogue, c []float32, ldc, i0, j0, rows, cols int)

	// mrLow, when set, is the height of the kernel's short variant, which
	// run picks for tiles of at most mrLow rows and which reads only mrLow
	// rows of a row-major A panel. With it, row-major panels are cut so
	// that no short tile does more than mr−1 rows of padding (32 rows: 6,
	// 6, 6, 6, 4, 4 rather than 6, 6, 6, 6, 6 and 2 in a 4-row tile).
	mrLow int

	// runB, when set, runs a whole-width tile of a row-major A panel with
	// B read in place (b: op(B) at the tile's first row and column, rows
	// ldb apart) rather than packed. It is used for row blocks of at most
	// inBRows rows, where packing B costs more than the few row tiles that
	// reuse each packed panel gain, when the K step's rows of B span at
	// most inBSpan bytes (farther apart they come from memory a line per
	// row, slower than the packing's row-by-row streams) and do not fall
	// into too few cache sets (bSetsOK).
	runB func(kc int, a, b []float32, ldb int, c []float32, ldc, rows int, alpha, beta float32, loadC bool)
	// runBEp, when set, is runB with an epilogue fused into the tile's
	// store (as runEp); false when it cannot take this tile or epilogue.
	runBEp  func(kc int, a, b []float32, ldb int, c []float32, ldc, rows int, alpha, beta float32, loadC bool, e *Epilogue, i0 int) bool
	inBRows int
	inBSpan int

	// runA, when set, is run for a non-transposed A read in place (rows
	// lda apart; half: the last B panel packed nr/2 wide) in regions of at
	// most inACols columns, where each packed A element would serve few
	// tiles (256×196×2304 at avx2: 104 → 110 GFLOP/s; no gain at 784
	// columns). Only tiles whose rows all exist use it (a last short one
	// is packed).
	runA    func(kc int, a []float32, lda int, b, c []float32, ldc, rows, cols int, alpha, beta float32, loadC, half bool)
	inACols int

	kc, mc, nc int // cache blocking, set by tune
}

var (
	available []*microKernel // the levels' micro-kernels, fastest first; generic last
	active    atomic.Pointer[microKernel]
	l1Size    = 48 << 10
	l2Size    = 1 << 20
)

// tune sizes the blocks for the caches: the A micro-panel (mr×kc) takes
// about 3/8 of L1 (B micro-panels stream past it), the packed B block
// (kc×nc) about 5/8 of L2, and the packed A block (mc×kc) about 2 MiB
// (L3). For 48 KiB / 1 MiB and a 12×32 kernel: kc=384, nc=416, mc=1356.
func (k *microKernel) tune(l1, l2 int) {
	k.kc = clamp(l1*3/8/(k.mr*4)/16*16, 64, 1024)
	k.nc = clamp(l2*5/8/(k.kc*4)/k.nr*k.nr, k.nr, 8192)
	k.mc = k.blockRows(k.kc)
}

// blockRows is the height of a packed A block of depth kc: about 2 MiB.
func (k *microKernel) blockRows(kc int) int {
	return clamp((2<<20)/(kc*4)/k.mr*k.mr, k.mr, 1<<16)
}

func clamp(v, lo, hi int) int { return min(max(v, lo), hi) }

// Kernel names the micro-kernel SGEMM uses now.
func Kernel() string { return active.Load().name }

// SGEMM computes the row-major float32 product c = alpha·op(a)·op(b) + beta·c
// with op(a) m×k (a is k×m when transA), op(b) k×n (n×k when transB) and c
// m×n, leading dimensions lda, ldb, ldc. When beta is 0, c is not read. It
// runs on up to parallel.Threads() goroutines. Invalid sizes panic (a
// programmer error, as in BLAS).
func SGEMM(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	sgemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nil)
}

func sgemm(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int, ep *Epilogue) {
	checkGemm(transA, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	if ep != nil && ep.RowBias == nil && ep.ColBias == nil && ep.Act == ActNone && !ep.Affine {
		ep = nil
	}
	if k == 0 || alpha == 0 {
		scaleC(m, n, beta, c, ldc)
		if ep != nil {
			ep.applyGo(c, ldc, 0, 0, m, n)
		}
		return
	}
	g := &gemm{transA: transA, transB: transB, m: m, n: n, k: k, alpha: alpha, a: a, lda: lda, b: b, ldb: ldb, beta: beta, c: c, ldc: ldc, kern: active.Load(), ep: ep}
	// concurrent calls (e.g. from the convolutions' own parallel loops)
	// share the threads instead of multiplying them
	calls := inflight.Add(1)
	defer inflight.Add(-1)
	threads := gemmThreads(calls)
	tm, tn := g.split(threads)
	if tm*tn == 1 {
		g.region(0, m, 0, n)
		return
	}
	tasks := g.tasks(tm, tn)
	var next atomic.Int64
	work := func() {
		for {
			t := int(next.Add(1)) - 1
			if t >= len(tasks) {
				return
			}
			g.region(tasks[t][0], tasks[t][1], tasks[t][2], tasks[t][3])
		}
	}
	fanOut(tm*tn, work)
}

// tasks cuts C into the tm×tn worker blocks, each cut again in two along
// the side whose repacking costs less (a second packing of its A rows when
// cut along N, of its B columns when cut along M). Workers take blocks from
// a shared counter, so when one worker does not get a core (a busy
// machine), the others do its share.
func (g *gemm) tasks(tm, tn int) [][4]int {
	mr, nr := g.kern.mr, g.kern.nr
	mt, nt := ceilDiv(g.m, mr), ceilDiv(g.n, nr)
	var ts [][4]int
	for ti := range tm {
		i0, i1 := ti*mt/tm*mr, min((ti+1)*mt/tm*mr, g.m)
		for tj := range tn {
			j0, j1 := tj*nt/tn*nr, min((tj+1)*nt/tn*nr, g.n)
			rp, cp := ceilDiv(i1-i0, mr), ceilDiv(j1-j0, nr)
			switch {
			case cp >= 2 && (i1-i0 <= j1-j0 || rp < 2):
				jm := min(j0+cp/2*nr, j1)
				ts = append(ts, [4]int{i0, i1, j0, jm}, [4]int{i0, i1, jm, j1})
			case rp >= 2:
				im := min(i0+rp/2*mr, i1)
				ts = append(ts, [4]int{i0, im, j0, j1}, [4]int{im, i1, j0, j1})
			default:
				ts = append(ts, [4]int{i0, i1, j0, j1})
			}
		}
	}
	return ts
}

// inflight counts the SGEMM calls running now.
var inflight atomic.Int64

// loopTasks counts the tasks of the parallel loops (op.Kernels.GemmLoop) running
// now whose tasks call SGEMM: a call then takes threads/loopTasks threads
// even while the other tasks are between their GEMMs.
var loopTasks atomic.Int64

// gemmThreads is how many threads a call gets when calls SGEMM calls
// (itself included) run now.
func gemmThreads(calls int64) int {
	return max(1, parallel.Threads()/int(max(calls, loopTasks.Load())))
}

// gemmLoop is the kernel set's GemmLoop.
func gemmLoop(tasks int) func() {
	loopTasks.Add(int64(tasks))
	return func() { loopTasks.Add(-int64(tasks)) }
}

// epilogue applies e to one tile.
func (k *microKernel) epilogue(e *Epilogue, c []float32, ldc, i0, j0, rows, cols int) {
	if k.epilogueTile != nil {
		k.epilogueTile(e, c, ldc, i0, j0, rows, cols)
		return
	}
	e.applyGo(c, ldc, i0, j0, rows, cols)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func checkGemm(ta, tb bool, m, n, k, la, lda, lb, ldb, lc, ldc int) {
	rowsA, colsA := m, k
	if ta {
		rowsA, colsA = k, m
	}
	rowsB, colsB := k, n
	if tb {
		rowsB, colsB = n, k
	}
	switch {
	case m < 0 || n < 0 || k < 0:
		panic(fmt.Sprintf("cpu.SGEMM: negative size m=%d n=%d k=%d", m, n, k))
	// an operand with no elements (k = 0: an empty sum) may have any leading dimension ≥ 0
	case lda < ld(rowsA, colsA) || ldb < ld(rowsB, colsB) || ldc < ld(m, n):
		panic(fmt.Sprintf("cpu.SGEMM: bad leading dimension lda=%d ldb=%d ldc=%d for m=%d n=%d k=%d", lda, ldb, ldc, m, n, k))
	case rowsA > 0 && colsA > 0 && la < (rowsA-1)*lda+colsA,
		rowsB > 0 && colsB > 0 && lb < (rowsB-1)*ldb+colsB,
		m > 0 && n > 0 && lc < (m-1)*ldc+n:
		panic(fmt.Sprintf("cpu.SGEMM: slice too short (len a=%d b=%d c=%d) for m=%d n=%d k=%d", la, lb, lc, m, n, k))
	}
}

// ld is the smallest leading dimension of a rows×cols row-major operand: its
// width, at least 1 as BLAS requires, or 0 when it has no elements.
func ld(rows, cols int) int {
	if rows == 0 || cols == 0 {
		return 0
	}
	return cols
}

// scaleC sets c = beta·c (c = 0 when beta is 0, whatever c held).
func scaleC(m, n int, beta float32, c []float32, ldc int) {
	for i := range m {
		row := c[i*ldc : i*ldc+n]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// gemm holds one call's arguments.
type gemm struct {
	transA, transB bool
	m, n, k        int
	alpha, beta    float32
	a, b, c        []float32
	lda, ldb, ldc  int
	kern           *microKernel
	ep             *Epilogue // nil: none
}

// split chooses a grid of tm×tn workers over C: the one with the least
// estimated time (largest block's flops plus its packing, counted as 32
// flops per packed element, plus a start-up cost per extra worker).
func (g *gemm) split(threads int) (tm, tn int) {
	mr, nr := g.kern.mr, g.kern.nr
	mt, nt := ceilDiv(g.m, mr), ceilDiv(g.n, nr)
	best := -1.0
	tm, tn = 1, 1
	for t := 1; t <= threads; t++ {
		for a := 1; a <= t; a++ {
			if t%a != 0 || a > mt || t/a > nt {
				continue
			}
			b := t / a
			r, c := float64(min(ceilDiv(mt, a)*mr, g.m)), float64(min(ceilDiv(nt, b)*nr, g.n))
			cost := 2*r*c*float64(g.k) + 32*float64(g.k)*(r+c) + float64(t-1)*400e3
			if best < 0 || cost < best {
				best, tm, tn = cost, a, b
			}
		}
	}
	return tm, tn
}

// buffers are per-worker packing buffers, 64-byte aligned.
type buffers struct{ a, b []float32 }

var bufPool sync.Pool

func getBuffers(na, nb int) *buffers {
	bf, _ := bufPool.Get().(*buffers)
	if bf == nil {
		bf = &buffers{}
	}
	if cap(bf.a) < na {
		bf.a = aligned(na)
	}
	if cap(bf.b) < nb {
		bf.b = aligned(nb)
	}
	return bf
}

func aligned(n int) []float32 {
	s := make([]float32, n+16)
	off := int(uintptr(unsafe.Pointer(&s[0]))%64) / 4
	if off != 0 {
		off = 16 - off
	}
	return s[off : off+n : off+n]
}

// region computes rows [i0, i1) and columns [j0, j1) of C.
func (g *gemm) region(i0, i1, j0, j1 int) {
	kn := g.kern
	mr, nr := kn.mr, kn.nr
	kc := min(kn.kc, g.k)
	// balance the K steps: 600 → 2×300 rather than 384+216
	kc = ceilDiv(g.k, ceilDiv(g.k, kc))
	// the A block is as high as the balanced depth allows (kc 683 rather
	// than 768 fits 762 rows, not 678), and the row blocks are balanced too:
	// 2048 rows are 3 blocks of 684, so B is packed 3 times, not 4 (the
	// row blocks only partition C: the sums are the same)
	mc := min(kn.blockRows(kc), ceilDiv(i1-i0, mr)*mr)
	mc = ceilDiv(ceilDiv(i1-i0, ceilDiv(i1-i0, mc)), mr) * mr
	nc := min(kn.nc, ceilDiv(j1-j0, nr)*nr)
	// mr rows of slack: a row-major tile may start at any row
	bf := getBuffers((mc+mr)*kc, nc*kc)
	defer bufPool.Put(bf)
	// a row-major A read in one K step (lda = kc, e.g. a 1×1 conv's
	// weights) is already in a rowA kernel's panel layout: its whole mr-row
	// panels are read in place, and only a last partial one is packed
	// (with zero rows)
	direct := !g.transA && kn.rowA && g.lda == kc && kc == g.k
	for pc := 0; pc < g.k; pc += kc {
		kb := min(kc, g.k-pc)
		beta, loadC := g.beta, g.beta != 0
		if pc > 0 {
			beta, loadC = 1, true
		}
		ep := g.ep
		if pc+kb < g.k {
			ep = nil // only after the last K step
		}
		for ic := i0; ic < i1; ic += mc {
			mb := min(mc, i1-ic)
			// B in place (small row blocks): only a last partial panel is
			// packed; A in place (the others): only a last short tile
			inB := kn.runB != nil && !g.transB && !g.transA && kn.rowA && mb <= kn.inBRows && kb*g.ldb*4 <= kn.inBSpan && bSetsOK(kb, g.ldb)
			inA := kn.runA != nil && !g.transA && !direct && !inB && j1-j0 <= kn.inACols
			rowA := true
			if !direct && !inA {
				rowA = packA(g.transA, g.a, g.lda, ic, pc, mb, kb, kn, bf.a)
			} else if last := kn.lastTile(mb, true); kn.tileReads(mb-last) != mb-last {
				packA(false, g.a, g.lda, ic+last, pc, mb-last, kb, kn, bf.a[last*kb:])
			}
			for jc := j0; jc < j1; jc += nc {
				nb := min(nc, j1-jc)
				if whole := nb / nr * nr; !inB {
					packB(g.transB, g.b, g.ldb, pc, jc, kb, nb, nr, kn, bf.b)
				} else if whole < nb {
					packB(false, g.b, g.ldb, pc, jc+whole, kb, nb-whole, nr, kn, bf.b[whole*kb:])
				}
				for ir, rows := 0, 0; ir < mb; ir += rows {
					rows = kn.tileRows(mb-ir, rowA)
					ap := bf.a[ir*kb : (ir+mr)*kb]
					if direct && kn.tileReads(rows) == rows {
						ap = g.a[(ic+ir)*g.lda : (ic+ir+rows)*g.lda]
					}
					crow := (ic+ir)*g.ldc + jc
					for jr := 0; jr < nb; jr += nr {
						cols := min(nr, nb-jr)
						cs := g.c[crow+jr:]
						if inA && kn.tileReads(rows) == rows {
							half := cols <= nr/2 && kn.half
							kn.runA(kb, g.a[(ic+ir)*g.lda+pc:], g.lda, bf.b[jr*kb:(jr+nr)*kb], cs, g.ldc, rows, cols, g.alpha, beta, loadC, half)
							if ep != nil {
								kn.epilogue(ep, cs, g.ldc, ic+ir, jc+jr, rows, cols)
							}
							continue
						}
						if inB && cols == nr {
							if ep != nil && kn.runBEp != nil && kn.runBEp(kb, ap, g.b[pc*g.ldb+jc+jr:], g.ldb, cs, g.ldc, rows, g.alpha, beta, loadC, ep, ic+ir) {
								continue
							}
							kn.runB(kb, ap, g.b[pc*g.ldb+jc+jr:], g.ldb, cs, g.ldc, rows, g.alpha, beta, loadC)
							if ep != nil {
								kn.epilogue(ep, cs, g.ldc, ic+ir, jc+jr, rows, cols)
							}
							continue
						}
						if ep != nil && kn.runEp != nil && kn.runEp(kb, ap, bf.b[jr*kb:(jr+nr)*kb], cs, g.ldc, rows, cols, g.alpha, beta, loadC, rowA, ep, ic+ir) {
							continue
						}
						if cols <= nr/2 && kn.half {
							kn.runHalf(kb, ap, bf.b[jr*kb:jr*kb+nr/2*kb], cs, g.ldc, rows, cols, g.alpha, beta, loadC, rowA)
						} else {
							kn.run(kb, ap, bf.b[jr*kb:(jr+nr)*kb], cs, g.ldc, rows, cols, g.alpha, beta, loadC, rowA)
						}
						if ep != nil {
							kn.epilogue(ep, cs, g.ldc, ic+ir, jc+jr, rows, cols)
						}
					}
				}
			}
		}
	}
}

// bSetsOK reports whether kb rows of B, ldb floats apart, read in place
// as 16-float panels, spread over enough cache sets to stay in L2: rows
// whose stride is a multiple of a large power of two share few sets (1024
// floats apart, all rows fall into 32 of a 1 MiB 8-way L2's 2048 sets),
// and a panel then thrashes L2 (64×1024×1024 at avx2: 116 GFLOP/s packed,
// 72 in place; 32×1024×128 102 and 69). The bound lies between those and
// the largest product seen to gain (6400 floats apart, 288 rows: 110 → 123).
func bSetsOK(kb, ldb int) bool {
	g := 32768 // 128 KiB of floats: the set period of a 1 MiB 8-way cache
	for ldb%g != 0 {
		g /= 2
	}
	return kb*g <= 96<<10
}

// tileRows is the height of the next row tile when rem rows are left
// (rowA: the A panels are row-major).
func (k *microKernel) tileRows(rem int, rowA bool) int {
	if rowA && k.mrLow > 0 && rem > k.mr && rem <= 2*k.mrLow {
		return k.mrLow
	}
	return min(k.mr, rem)
}

// tileReads is how many rows of a row-major A panel the kernel reads for a
// tile of rows rows.
func (k *microKernel) tileReads(rows int) int {
	if k.mrLow > 0 && rows <= k.mrLow {
		return k.mrLow
	}
	return k.mr
}

// lastTile is the first row of the last row tile of mb rows.
func (k *microKernel) lastTile(mb int, rowA bool) int {
	ir := 0
	for rows := k.tileRows(mb, rowA); ir+rows < mb; rows = k.tileRows(mb-ir, rowA) {
		ir += rows
	}
	return ir
}

// mergeTile writes c = t + beta·c (c = t when !loadC) for a rows×cols tile
// t (leading dimension ldt) that already holds alpha·A·B.
func mergeTile(t []float32, ldt int, c []float32, ldc, rows, cols int, beta float32, loadC bool) {
	for r := range rows {
		src, dst := t[r*ldt:r*ldt+cols], c[r*ldc:r*ldc+cols]
		if !loadC {
			copy(dst, src)
			continue
		}
		for j, v := range src {
			dst[j] = v + beta*dst[j]
		}
	}
}
