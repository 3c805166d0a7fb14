package cpu

import (
	"sync"

	"paddle/core/op"
	"paddle/core/parallel"
	"paddle/core/scratch"
)

// The filter gradient of a 3×3, stride-1 conv by the same F(4×4, 3×3)
// transforms. For the forward's trilinear form s = Σ dy·conv(x, w) =
// Σ_ξ (A u Aᵀ)_ξ (G g Gᵀ)_ξ (Bᵀ d B)_ξ over the tiles (u a 4×4 tile of dy,
// d its 6×6 input tile, g a filter), the derivative by g is
//
//	dw = Gᵀ [ Σ_tiles (A u Aᵀ) ⊙ (Bᵀ d B) ] G
//
// so per tile position ξ the sum over tiles and images is one GEMM
//
//	Mw[ξ] (OC, C) += DY[ξ] (OC, T) · V[ξ] (C, T)ᵀ
//
// per block of T tiles, with V the forward's input transform
// (wgInputBlock) and DY = A u Aᵀ computed for all of a block's output
// channels at once as the GEMM (A⊗A) (36×16) · U (16, OC·T) over the
// dy tiles split by position (wgDyPlanes). The 36 GEMMs do a quarter of
// the direct method's multiply-adds; Gᵀ Mw G (in float64) gives dw.

// wgFilterMinTiles: blocks of at least this many tiles even past
// wgBlockFloats, since the tiles are the filter GEMMs' inner dimension and
// each block reloads the OC×C sums (with 256 channels the budget alone
// gave 23-tile blocks: fwd+bwd 8% slower). A var so tests can force tiny
// blocks.
var wgFilterMinTiles = 64

// wgAA is A⊗A: wgAA[ξ1·6+ξ2][i·4+j] = A[ξ1][i]·A[ξ2][j], A = (Aᵀ)ᵀ of
// wgOutputTile.
var wgAA = func() []float32 {
	at := [4][6]float32{
		{1, 1, 1, 1, 1, 0},
		{0, 1, -1, 2, -2, 0},
		{0, 1, 1, 4, 4, 0},
		{0, 1, -1, 8, -8, 1},
	}
	k := make([]float32, 36*16)
	for x1 := range 6 {
		for x2 := range 6 {
			for i := range 4 {
				for j := range 4 {
					k[(x1*6+x2)*16+i*4+j] = at[i][x1] * at[j][x2]
				}
			}
		}
	}
	return k
}()

// Winograd3x3Filter computes p.Wt (OC, C, 3, 3) = the filter gradient of
// the conv p (x p.X, pads p.PT, p.PL) for the output gradient p.Y (N, OC,
// OH, OW); p.B and p.Ep are ignored. It runs on up to parallel.Threads()
// goroutines.
func Winograd3x3Filter(p *op.WinogradConv) {
	g := wgGrid{tw: (p.OW + 3) / 4}
	g.tiles = (p.OH + 3) / 4 * g.tw
	total := p.N * g.tiles
	threads := parallel.Threads()
	tb := max(wgFilterMinTiles, wgBlockFloats/(36*(p.C+p.OC)+16*p.OC))
	tb = min(tb, max(16, (total+threads-1)/threads), total)
	nb := (total + tb - 1) / tb
	serial := nb >= threads
	var mu sync.Mutex
	sum := make([]float32, 36*p.OC*p.C)
	parallel.For(nb, 1, func(lo, hi int) {
		// V, DY and U from the forward's pool; Mw sums from zero
		ld := tb + 16
		nv, nd, nu := 36*p.C*ld, 36*p.OC*ld, 16*p.OC*ld
		bp := scratch.Get[float32](nv+nd+nu, false)
		defer scratch.Put(bp)
		buf := *bp
		v, dyt, u := buf[:nv], buf[nv:nv+nd], buf[nv+nd:]
		mw := make([]float32, 36*p.OC*p.C)
		sc := newWgScratch(g.tw)
		gemm := func(transB bool, m, n, k int, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
			if serial {
				sgemmHere(transB, m, n, k, a, lda, b, ldb, beta, c, ldc)
				return
			}
			SGEMM(false, transB, m, n, k, 1, a, lda, b, ldb, beta, c, ldc)
		}
		for bi := lo; bi < hi; bi++ {
			t0, t1 := bi*tb, min((bi+1)*tb, total)
			nt := t1 - t0
			ld := nt + 16
			wgInputBlock(p, g, t0, t1, v, sc)
			wgDyPlanes(p, g, t0, t1, u, sc)
			gemm(false, 36, p.OC*ld, 16, wgAA, 16, u, p.OC*ld, 0, dyt, p.OC*ld)
			for xi := range 36 {
				gemm(true, p.OC, p.C, nt, dyt[xi*p.OC*ld:], ld, v[xi*p.C*ld:], ld, 1, mw[xi*p.OC*p.C:], p.C)
			}
		}
		mu.Lock()
		for i, x := range mw {
			sum[i] += x
		}
		mu.Unlock()
	})
	wgFilterOut(sum, p.Wt, p.OC*p.C)
}

// wgDyPlanes writes U[q][o·(nt+16) + t-t0] = u_t[o][q] (q = i·4+j: the
// 4×4 dy tile t of channel o by position, 0 past dy's edges; planes
// oc·(nt+16) apart) for the tiles [t0, t1) of p.Y: (N, OC, OH, OW).
func wgDyPlanes(p *op.WinogradConv, g wgGrid, t0, t1 int, u []float32, s *wgScratch) {
	nt := t1 - t0
	ldu := p.OC * (nt + 16)
	g.segments(t0, t1, func(t, ni, r, a, n int) {
		dy := p.Y[ni*p.OC*p.OH*p.OW : (ni+1)*p.OC*p.OH*p.OW]
		groups := wgUp16(n) / 16
		for o := range p.OC {
			col := o*(nt+16) + t - t0
			for i := range 4 {
				oh := r*4 + i
				q := u[i*4*ldu:]
				if oh >= p.OH {
					for j := range 4 {
						clear(q[j*ldu+col : j*ldu+col+n])
					}
					continue
				}
				row := dy[(o*p.OH+oh)*p.OW : (o*p.OH+oh+1)*p.OW]
				if s.vec {
					// 16·groups columns per plane: past n they land in
					// the next segment's columns (written after) or the
					// row's 16 floats of padding
					buf := s.row[:64*groups]
					lo, hi := 0, min(len(buf), p.OW-a*4)
					copy(buf[lo:hi], row[a*4+lo:a*4+hi])
					clear(buf[hi:])
					_ = q[3*ldu+col+16*groups-1]
					wgDeint4(&buf[0], &q[col], ldu, groups)
					continue
				}
				for j := range 4 {
					d := q[j*ldu+col : j*ldu+col+n]
					for k := range d {
						if ow := a*4 + 4*k + j; ow < p.OW {
							d[k] = row[ow]
						} else {
							d[k] = 0
						}
					}
				}
			}
		}
	})
}

// wgFilterOut writes dw[k·9 + a·3 + b] = (Gᵀ M_k G)[a][b] for the nf
// filters k, M_k[ξ] = m[ξ·nf + k], in float64 rounded once.
func wgFilterOut(m, dw []float32, nf int) {
	parallel.For(nf, 256, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			var t [3][6]float64 // Gᵀ M
			for a := range 3 {
				for j := range 6 {
					var acc float64
					for i := range 6 {
						acc += wgG[i][a] * float64(m[(i*6+j)*nf+k])
					}
					t[a][j] = acc
				}
			}
			for a := range 3 {
				for b := range 3 {
					var acc float64
					for j := range 6 {
						acc += t[a][j] * wgG[j][b]
					}
					dw[k*9+a*3+b] = float32(acc)
				}
			}
		}
	})
}
