package cpu

import (
	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/scratch"
)

// Winograd F(4×4, 3×3) convolution (Lavin & Gray, "Fast Algorithms for
// Convolutional Neural Networks", https://arxiv.org/abs/1509.09308), with
// the interpolation points 0, ±1, ±2 and ∞:
//
//	Y = Aᵀ [ (G g Gᵀ) ⊙ (Bᵀ d B) ] A
//
// for each 6×6 input tile d (stride 4) and 3×3 filter g, giving a 4×4
// output tile. Over channels the elementwise products become, for each of
// the 36 tile positions ξ, one GEMM
//
//	M[ξ] (OC, T) = U[ξ] (OC, C) · V[ξ] (C, T)
//
// for a block of T tiles, with the transformed filter U = G g Gᵀ (computed
// in float64, cached per weight buffer: winograd_cache.go) and the
// transformed input V = Bᵀ d B. The output transform Aᵀ M A then adds the
// bias and runs the epilogue. Blocks of tiles bound the memory (V and M
// hold 36·(C+OC)·T floats) and are the parallel tasks.
//
// The 36 products replace 144 multiply-adds per 4×4 tile and channel pair
// (4× fewer GEMM flops). The transforms (16 tiles per group: one AVX-512
// vector, winograd_amd64.s, or two AVX2 ones, avx2_amd64.s; scalar Go at
// the generic level) cost about 14 operations per output pixel and input
// channel plus 9 per output channel, so the kernel wins only with enough
// channels and tiles (the rule, with measured ratios, is op.useWinograd).
// The same 3×3 convolution's rounding is larger than im2col's: about 4e-6
// of Σ|x|·|w| at most in the tests, against 3e-7 (winograd_test.go).

// wgBlockFloats caps 36·(C+OC)·T, the floats of one block's V and M: about
// 2 MiB, so a block's transformed input is still in L2/L3 when its GEMMs
// read it. A var so tests can force tiny blocks.
var wgBlockFloats = 1 << 19

// Winograd3x3 computes the conv p (see op.WinogradConv) with F(4×4, 3×3).
// It runs on up to parallel.Threads() goroutines.
func Winograd3x3(p *op.WinogradConv) {
	u := wgFilterCached(p.Wt, p.OC, p.C, p.Adjoint)
	g := wgGrid{tw: (p.OW + 3) / 4}
	g.tiles = (p.OH + 3) / 4 * g.tw
	// blocks run over the tiles of all images (a block may span images,
	// so small images still fill the GEMMs' columns)
	total := p.N * g.tiles
	tb := max(1, wgBlockFloats/(36*(p.C+p.OC)))
	tb = min(tb, max(16, (total+parallel.Threads()-1)/parallel.Threads())) // a task per thread
	tb = min(tb, total)
	nb := (total + tb - 1) / tb
	var ep op.GemmEpilogue
	hasEp := p.Ep != nil && (p.Ep.Act != op.GemmActNone || p.Ep.Affine)
	if hasEp {
		ep = *p.Ep
		ep.RowBias = nil
	}
	// with a block per thread, each block's GEMMs stay on its goroutine: a
	// GEMM that split itself again would only wait for the other blocks'
	// threads (and leave spinning pool workers beside them)
	serial := nb >= parallel.Threads()
	parallel.For(nb, 1, func(lo, hi int) {
		// V and M rows have 16 floats of padding for the vector
		// transforms' last group of lanes
		need := 36 * (p.C + p.OC) * (tb + 16)
		bp := scratch.Get[float32](need, false)
		buf := *bp
		sc := newWgScratch(g.tw)
		for bi := lo; bi < hi; bi++ {
			t0, t1 := bi*tb, min((bi+1)*tb, total)
			nt := t1 - t0
			ld := nt + 16
			v, m := buf[:36*p.C*ld], buf[36*p.C*ld:36*(p.C+p.OC)*ld]
			wgInputBlock(p, g, t0, t1, v, sc)
			for xi := range 36 {
				if serial {
					sgemmHere(false, p.OC, nt, p.C, u[xi*p.OC*p.C:], p.C, v[xi*p.C*ld:], ld, 0, m[xi*p.OC*ld:], ld)
				} else {
					SGEMM(false, false, p.OC, nt, p.C, 1, u[xi*p.OC*p.C:], p.C, v[xi*p.C*ld:], ld, 0, m[xi*p.OC*ld:], ld)
				}
			}
			wgOutputBlock(p, g, m, t0, t1, sc)
			if hasEp {
				wgEpilogue(p, g, &ep, t0, t1)
			}
		}
		scratch.Put(bp)
	})
}

// wgScratch is one worker's buffers for the tile transforms.
type wgScratch struct {
	in  []float32 // 24 planes of tw16+16: six input rows split by column mod 4
	out []float32 // 16 planes of tw16: a segment's 4×4 outputs by position
	row []float32 // a zero-padded input row for wgRowPlanes: 4·(tw16+16)
	tmp [64]float32
	reg [36 * 16]float32
	// vec: run the vector transforms (at the avx2, avx512 and neon levels)
	vec bool
}

func newWgScratch(tw int) *wgScratch {
	tw16 := wgUp16(tw)
	return &wgScratch{in: make([]float32, 24*(tw16+16)), out: make([]float32, 16*tw16),
		row: make([]float32, 4*(tw16+16)), vec: wgVector && curISA() != isaGeneric}
}

// wgUp16 rounds n up to a multiple of 16: the vector transforms run on
// whole groups of 16 tiles, the lanes past a segment's end on padding.
func wgUp16(n int) int { return (n + 15) &^ 15 }

// wgGrid is the tiling of the output: tw tiles per tile row, tiles per
// image. Tiles are numbered over all images, row-major in each.
type wgGrid struct{ tw, tiles int }

// segments calls f for each run of the tiles [t0, t1) inside one tile row:
// tiles a..a+n-1 of tile row r of image ni, the first being tile t.
func (g wgGrid) segments(t0, t1 int, f func(t, ni, r, a, n int)) {
	for t := t0; t < t1; {
		ni, r := t/g.tiles, t%g.tiles/g.tw
		end := min(t1, ni*g.tiles+(r+1)*g.tw)
		f(t, ni, r, t%g.tiles%g.tw, end-t)
		t = end
	}
}

// wgInputBlock writes V[ξ][c][t-t0] = (Bᵀ d B)[ξ] (rows nt+16 apart) for the tiles [t0, t1)
// (row-major over the th×tw tile grid) of one image x: (C, H, W). Per
// channel and tile row, the six input rows are first copied, zero-padded,
// into 24 planes split by column mod 4 (so tile k's column j is plane
// j mod 4 at k + j/4); then 16 tiles at a time go through the vector
// transform, the rest through wgInputTile.
func wgInputBlock(p *op.WinogradConv, g wgGrid, t0, t1 int, v []float32, s *wgScratch) {
	nt := t1 - t0
	ldv := p.C * (nt + 16)
	var d, res [36]float32
	g.segments(t0, t1, func(t, ni, r, a, n int) {
		x := p.X[ni*p.C*p.H*p.W : (ni+1)*p.C*p.H*p.W]
		lds, groups := n+1, 0
		if s.vec {
			// planes of whole groups for the vector deinterleave
			lds, groups = wgUp16(n)+16, wgUp16(n)/16
		}
		for c := range p.C {
			xc := x[c*p.H*p.W : (c+1)*p.H*p.W]
			for i := range 6 {
				ih := r*4 - p.PT + i
				var row []float32
				if ih >= 0 && ih < p.H {
					row = xc[ih*p.W : (ih+1)*p.W]
				}
				if s.vec {
					wgRowPlanes(s.in[i*4*lds:], lds, s.row, row, a*4-p.PL)
					continue
				}
				for m := range 4 {
					wgFillPlane(s.in[(i*4+m)*lds:(i*4+m)*lds+lds], row, a*4-p.PL+m)
				}
			}
			o := c*(nt+16) + t - t0
			if groups > 0 {
				wgInput16(&s.in[0], lds, &v[o], ldv, &s.reg[0], groups)
			}
			for k := min(groups*16, n); k < n; k++ {
				for i := range 6 {
					for j := range 6 {
						d[i*6+j] = s.in[(i*4+j%4)*lds+k+j/4]
					}
				}
				wgInputTile(&d, &res)
				for xi, val := range res {
					v[xi*ldv+o+k] = val
				}
			}
		}
	})
}

// wgFillPlane sets dst[k] = row[iw0 + 4k], 0 outside row (or when row is nil).
func wgFillPlane(dst, row []float32, iw0 int) {
	if row == nil {
		clear(dst)
		return
	}
	if iw0 >= 0 && iw0+4*(len(dst)-1) < len(row) {
		for k := range dst {
			dst[k] = row[iw0+4*k]
		}
		return
	}
	for k := range dst {
		if iw := iw0 + 4*k; iw >= 0 && iw < len(row) {
			dst[k] = row[iw]
		} else {
			dst[k] = 0
		}
	}
}

// wgInputTile computes r = Bᵀ d B for one 6×6 tile, columns then rows, with
//
//	Bᵀ = [4  0 -5  0 1 0]
//	     [0 -4 -4  1 1 0]
//	     [0  4 -4 -1 1 0]
//	     [0 -2 -1  2 1 0]
//	     [0  2 -1 -2 1 0]
//	     [0  4  0 -5 0 1]
func wgInputTile(d, r *[36]float32) {
	var t [36]float32
	for j := range 6 {
		d0, d1, d2, d3, d4, d5 := d[j], d[6+j], d[12+j], d[18+j], d[24+j], d[30+j]
		t[j], t[6+j], t[12+j], t[18+j], t[24+j], t[30+j] = wgBt(d0, d1, d2, d3, d4, d5)
	}
	for i := range 6 {
		s := t[i*6 : i*6+6 : i*6+6]
		r[i*6], r[i*6+1], r[i*6+2], r[i*6+3], r[i*6+4], r[i*6+5] = wgBt(s[0], s[1], s[2], s[3], s[4], s[5])
	}
}

// wgBt applies Bᵀ to one column of six values.
func wgBt(d0, d1, d2, d3, d4, d5 float32) (r0, r1, r2, r3, r4, r5 float32) {
	a, b := d4-4*d2, d3-4*d1
	c, e := d4-d2, 2*(d3-d1)
	return 4*d0 - 5*d2 + d4, a + b, a - b, c + e, c - e, 4*d1 - 5*d3 + d5
}

// wgOutputBlock writes y tiles (with p.B added) from M[ξ][oc][t-t0] (rows nt+16 apart) for
// the tiles [t0, t1) of one image y: (OC, OH, OW), clipping at the borders:
// per output channel and tile row, 16 tiles at a time through the vector
// transform (the rest through wgOutputTile) into 16 planes by position in
// the tile, then interleaved into y's rows.
func wgOutputBlock(p *op.WinogradConv, g wgGrid, m []float32, t0, t1 int, s *wgScratch) {
	nt := t1 - t0
	ldm := p.OC * (nt + 16)
	var mm [36]float32
	var res [16]float32
	g.segments(t0, t1, func(t, ni, r, a, n int) {
		y := p.Y[ni*p.OC*p.OH*p.OW : (ni+1)*p.OC*p.OH*p.OW]
		ldo, groups := n, 0
		if s.vec {
			ldo, groups = wgUp16(n), wgUp16(n)/16
		}
		rows := min(4, p.OH-r*4)
		for oc := range p.OC {
			var bias float32
			if p.B != nil {
				bias = p.B[oc]
			}
			o := oc*(nt+16) + t - t0
			if groups > 0 {
				wgOutput16(&m[o], ldm, &s.out[0], ldo, &s.reg[0], groups, bias)
			}
			for k := min(groups*16, n); k < n; k++ {
				for xi := range mm {
					mm[xi] = m[xi*ldm+o+k]
				}
				wgOutputTile(&mm, &res)
				for q, val := range res {
					s.out[q*ldo+k] = val + bias
				}
			}
			yc := y[oc*p.OH*p.OW : (oc+1)*p.OH*p.OW]
			for i := range rows {
				yr := yc[(r*4+i)*p.OW : (r*4+i+1)*p.OW]
				k0 := 0
				if s.vec { // the tiles whose 4 columns are all inside the row
					k0 = min(n, (p.OW-a*4)/4)
					wgPlanesRow(yr[a*4:], s.out[i*4*ldo:], ldo, k0, &s.tmp)
				}
				for j := range 4 {
					ow := a*4 + j
					kn := min(n, (p.OW-ow+3)/4)
					for k := k0; k < kn; k++ {
						yr[ow+4*k] = s.out[(i*4+j)*ldo+k]
					}
				}
			}
		}
	})
}

// wgOutputTile computes r = Aᵀ m A for one tile (4×4 from 6×6) with
//
//	Aᵀ = [1 1  1 1  1 0]
//	     [0 1 -1 2 -2 0]
//	     [0 1  1 4  4 0]
//	     [0 1 -1 8 -8 1]
func wgOutputTile(m *[36]float32, r *[16]float32) {
	var t [24]float32 // 4×6
	for j := range 6 {
		t[j], t[6+j], t[12+j], t[18+j] = wgAt(m[j], m[6+j], m[12+j], m[18+j], m[24+j], m[30+j])
	}
	for i := range 4 {
		s := t[i*6 : i*6+6 : i*6+6]
		r[i*4], r[i*4+1], r[i*4+2], r[i*4+3] = wgAt(s[0], s[1], s[2], s[3], s[4], s[5])
	}
}

// wgAt applies Aᵀ to one column of six values.
func wgAt(m0, m1, m2, m3, m4, m5 float32) (r0, r1, r2, r3 float32) {
	a, b := m1+m2, m3+m4
	c, d := m1-m2, m3-m4
	return m0 + a + b, c + 2*d, a + 4*b, c + 8*d + m5
}

// wgEpilogue runs ep (no row bias) over the output pixels of the tiles
// [t0, t1), one output row segment at a time.
func wgEpilogue(p *op.WinogradConv, g wgGrid, ep *op.GemmEpilogue, t0, t1 int) {
	g.segments(t0, t1, func(_, ni, r, a, n int) {
		y := p.Y[ni*p.OC*p.OH*p.OW : (ni+1)*p.OC*p.OH*p.OW]
		oh0, ow0, ow1 := r*4, a*4, min((a+n)*4, p.OW)
		for oc := range p.OC {
			yc := y[oc*p.OH*p.OW:]
			for oh := oh0; oh < min(oh0+4, p.OH); oh++ {
				op.ApplyEpilogue(yc[oh*p.OW+ow0:oh*p.OW+ow1], ep)
			}
		}
	})
}

// sgemmHere is SGEMM (alpha 1, no transposed A) on the calling goroutine
// only.
func sgemmHere(transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	checkGemm(false, transB, m, n, k, len(a), lda, len(b), ldb, len(c), ldc)
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		scaleC(m, n, beta, c, ldc)
		return
	}
	g := &gemm{transB: transB, m: m, n: n, k: k, alpha: 1, a: a, lda: lda, b: b, ldb: ldb, beta: beta, c: c, ldc: ldc, kern: active.Load()}
	g.region(0, m, 0, n)
}
