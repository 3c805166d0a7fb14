package op

import (
	"math"
	"sync"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// rowNorm views layer/group/instance norm as normalising rows of l
// contiguous elements; element j of row r uses parameter (r%g)·cg + j/span.
type rowNorm struct{ rows, l, g, cg, span int }

// rowStats returns a row's mean and 1/sqrt(var + eps), accumulated in float64.
func rowStats[E float32 | float64](x []E, eps float64) (mean, rstd float64) {
	s := 0.0
	for _, v := range x {
		s += float64(v)
	}
	mean = s / float64(len(x))
	ss := 0.0
	for _, v := range x {
		d := float64(v) - mean
		ss += d * d
	}
	return mean, 1 / math.Sqrt(ss/float64(len(x))+eps)
}

func rowNormRef(out, in []*T, rn rowNorm, a Attrs) {
	eps := a.Float("epsilon", 1e-5)
	if out[0].DType() == tensor.Float32 {
		rowNormForward(in[0].F32(), in[1].F32(), in[2].F32(), out[0].F32(), rn, eps)
	} else {
		rowNormForward(in[0].F64(), in[1].F64(), in[2].F64(), out[0].F64(), rn, eps)
	}
}

func rowNormGradRef(out, in []*T, rn rowNorm, a Attrs) {
	eps := a.Float("epsilon", 1e-5)
	if out[0].DType() == tensor.Float32 {
		rowNormBackward(in[0].F32(), in[1].F32(), in[2].F32(), out[0].F32(), out[1].F32(), out[2].F32(), rn, eps)
	} else {
		rowNormBackward(in[0].F64(), in[1].F64(), in[2].F64(), out[0].F64(), out[1].F64(), out[2].F64(), rn, eps)
	}
}

// rowGrainFor gives each worker at least ~16k elements.
func rowGrainFor(l int) int { return max(1, 16384/max(l, 1)) }

func rowNormForward[E float32 | float64](x, s, b, y []E, rn rowNorm, eps float64) {
	parallel.For(rn.rows, rowGrainFor(rn.l), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			xr, yr := x[r*rn.l:(r+1)*rn.l], y[r*rn.l:(r+1)*rn.l]
			mean, rstd := rowStats(xr, eps)
			base := (r % rn.g) * rn.cg
			for c := range rn.l / rn.span {
				a := E(rstd) * s[base+c]
				sh := b[base+c] - E(mean)*a
				src, dst := xr[c*rn.span:(c+1)*rn.span], yr[c*rn.span:(c+1)*rn.span]
				for i, v := range src {
					dst[i] = v*a + sh
				}
			}
		}
	})
}

// rowNormBackward: with x̂ = (x-mean)·rstd and g = dy·scale,
// dx = rstd·(g - mean(g) - x̂·mean(g·x̂)), dscale = Σ dy·x̂, dbias = Σ dy.
// Workers sum dscale and dbias into their own buffers first.
func rowNormBackward[E float32 | float64](x, s, dy, dx, ds, db []E, rn rowNorm, eps float64) {
	var mu sync.Mutex
	clear(ds)
	clear(db)
	parallel.For(rn.rows, rowGrainFor(rn.l), func(lo, hi int) {
		pds, pdb := make([]E, len(ds)), make([]E, len(db))
		for r := lo; r < hi; r++ {
			xr, gr, dr := x[r*rn.l:(r+1)*rn.l], dy[r*rn.l:(r+1)*rn.l], dx[r*rn.l:(r+1)*rn.l]
			mean, rstd := rowStats(xr, eps)
			m, rs := E(mean), E(rstd)
			base := (r % rn.g) * rn.cg
			var m1, m2 float64
			for c := range rn.l / rn.span {
				sc := s[base+c]
				var gs, gxs E
				for i, v := range xr[c*rn.span : (c+1)*rn.span] {
					xh, g := (v-m)*rs, gr[c*rn.span+i]
					gs += g
					gxs += g * xh
				}
				pds[base+c] += gxs
				pdb[base+c] += gs
				m1 += float64(gs * sc)
				m2 += float64(gxs * sc)
			}
			m1, m2 = m1/float64(rn.l), m2/float64(rn.l)
			for c := range rn.l / rn.span {
				sc := s[base+c]
				for i, v := range xr[c*rn.span : (c+1)*rn.span] {
					xh := (v - m) * rs
					dr[c*rn.span+i] = rs * (gr[c*rn.span+i]*sc - E(m1) - xh*E(m2))
				}
			}
		}
		mu.Lock()
		for i := range ds {
			ds[i] += pds[i]
			db[i] += pdb[i]
		}
		mu.Unlock()
	})
}

// Batch norm: statistics per channel over (N, spatial); x is (N, C, S).

func bnDims(x *T) (n, c, s int) {
	n, c = x.Dim(0), x.Dim(1)
	return n, c, x.Len() / max(n*c, 1)
}

func batchNormEvalRef(out, in []*T, a Attrs) {
	n, c, s := bnDims(in[0])
	eps := a.Float("epsilon", 1e-5)
	if out[0].DType() == tensor.Float32 {
		bnEval(in[0].F32(), in[1].F32(), in[2].F32(), in[3].F32(), in[4].F32(), out[0].F32(), n, c, s, eps)
	} else {
		bnEval(in[0].F64(), in[1].F64(), in[2].F64(), in[3].F64(), in[4].F64(), out[0].F64(), n, c, s, eps)
	}
}

func bnEval[E float32 | float64](x, sc, b, mean, v, y []E, n, c, s int, eps float64) {
	parallel.For(n*c, rowGrainFor(s), func(lo, hi int) {
		for p := lo; p < hi; p++ {
			ch := p % c
			a := E(float64(sc[ch]) / math.Sqrt(float64(v[ch])+eps))
			sh := b[ch] - mean[ch]*a
			dst := y[p*s : (p+1)*s]
			for i, xv := range x[p*s : (p+1)*s] {
				dst[i] = xv*a + sh
			}
		}
	})
}

func batchNormTrainRef(out, in []*T, a Attrs) {
	n, c, s := bnDims(in[0])
	eps := a.Float("epsilon", 1e-5)
	if out[0].DType() == tensor.Float32 {
		bnTrain(in[0].F32(), in[1].F32(), in[2].F32(), out[0].F32(), out[1].F32(), out[2].F32(), n, c, s, eps)
	} else {
		bnTrain(in[0].F64(), in[1].F64(), in[2].F64(), out[0].F64(), out[1].F64(), out[2].F64(), n, c, s, eps)
	}
}

// The pieces of batch norm in training, per channel: one process runs them
// channel after channel (bnTrain, bnTrainGrad); a synchronised batch norm
// (bnTrainAcross, bnTrainGradAcross) runs the same pieces with the
// per-channel sums summed across ranks in between, so it does one process's
// arithmetic on every value except the order of the float64 sums.

// bnSum returns the float64 sum of channel ch's values over (N, S).
func bnSum[E float32 | float64](x []E, n, c, s, ch int) float64 {
	sum := 0.0
	for ni := range n {
		for _, v := range x[(ni*c+ch)*s : (ni*c+ch+1)*s] {
			sum += float64(v)
		}
	}
	return sum
}

// bnSqDev returns Σ (x - mean)² over channel ch's values, in float64.
func bnSqDev[E float32 | float64](x []E, n, c, s, ch int, mean float64) float64 {
	ss := 0.0
	for ni := range n {
		for _, v := range x[(ni*c+ch)*s : (ni*c+ch+1)*s] {
			d := float64(v) - mean
			ss += d * d
		}
	}
	return ss
}

// bnChannelStats returns channel ch's mean and biased variance over (N, S).
func bnChannelStats[E float32 | float64](x []E, n, c, s, ch int) (mean, variance float64) {
	m := float64(n * s)
	mean = bnSum(x, n, c, s, ch) / m
	return mean, bnSqDev(x, n, c, s, ch, mean) / m
}

// bnApply writes channel ch of y = (x - mu)/sqrt(v + eps)·scale + bias.
func bnApply[E float32 | float64](x, sc, b, y []E, n, c, s, ch int, mu, v, eps float64) {
	a := E(float64(sc[ch]) / math.Sqrt(v+eps))
	sh := b[ch] - E(mu)*a
	for ni := range n {
		dst := y[(ni*c+ch)*s : (ni*c+ch+1)*s]
		for i, xv := range x[(ni*c+ch)*s : (ni*c+ch+1)*s] {
			dst[i] = xv*a + sh
		}
	}
}

func bnTrain[E float32 | float64](x, sc, b, y, mean, variance []E, n, c, s int, eps float64) {
	parallel.For(c, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			mu, v := bnChannelStats(x, n, c, s, ch)
			mean[ch], variance[ch] = E(mu), E(v)
			bnApply(x, sc, b, y, n, c, s, ch, mu, v, eps)
		}
	})
}

// bnTrainAcross is bnTrain over the values of every rank: reduce sums the
// per-channel sums (and the count, last) across the ranks.
func bnTrainAcross[E float32 | float64](x, sc, b, y, mean, variance []E, n, c, s int, eps float64, reduce func([]float64)) {
	sums := make([]float64, c+1)
	parallel.For(c, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			sums[ch] = bnSum(x, n, c, s, ch)
		}
	})
	sums[c] = float64(n * s)
	reduce(sums)
	m := sums[c]
	ss := make([]float64, c)
	parallel.For(c, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			sums[ch] /= m
			ss[ch] = bnSqDev(x, n, c, s, ch, sums[ch])
		}
	})
	reduce(ss)
	parallel.For(c, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			mu, v := sums[ch], ss[ch]/m
			mean[ch], variance[ch] = E(mu), E(v)
			bnApply(x, sc, b, y, n, c, s, ch, mu, v, eps)
		}
	})
}

// batchNormTrainGradRef: inputs x, scale, mean, var, dy; outputs dx, dscale, dbias.
func batchNormTrainGradRef(out, in []*T, a Attrs) {
	n, c, s := bnDims(in[0])
	eps := a.Float("epsilon", 1e-5)
	if out[0].DType() == tensor.Float32 {
		bnTrainGrad(in[0].F32(), in[1].F32(), in[2].F32(), in[3].F32(), in[4].F32(), out[0].F32(), out[1].F32(), out[2].F32(), n, c, s, eps, nil)
	} else {
		bnTrainGrad(in[0].F64(), in[1].F64(), in[2].F64(), in[3].F64(), in[4].F64(), out[0].F64(), out[1].F64(), out[2].F64(), n, c, s, eps, nil)
	}
}

// bnGradSums returns channel ch's Σ dy and Σ dy·x̂ (terms in E, sums in float64).
func bnGradSums[E float32 | float64](x, dy []E, n, c, s, ch int, mu, rstd E) (sdy, sdyx float64) {
	for ni := range n {
		off := (ni*c + ch) * s
		g := dy[off : off+s]
		for i, xv := range x[off : off+s] {
			sdy += float64(g[i])
			sdyx += float64(g[i] * (xv - mu) * rstd)
		}
	}
	return sdy, sdyx
}

// bnTrainGrad: dx = scale·rstd·(dy - Σdy/M - x̂·Σ(dy·x̂)/M), dscale = Σ dy·x̂,
// dbias = Σ dy. With reduce (a synchronised batch norm), the sums in dx and
// M are those of every rank (reduce sums 2C+1 values: Σdy, Σdy·x̂, count);
// dscale and dbias stay this rank's (the gradient average adds them up).
func bnTrainGrad[E float32 | float64](x, sc, mean, variance, dy, dx, ds, db []E, n, c, s int, eps float64, reduce func([]float64)) {
	rstd := func(ch int) E { return E(1 / math.Sqrt(float64(variance[ch])+eps)) }
	m := float64(n * s)
	if reduce == nil { // one pass per channel while its values are in cache
		parallel.For(c, 1, func(lo, hi int) {
			for ch := lo; ch < hi; ch++ {
				sdy, sdyx := bnGradSums(x, dy, n, c, s, ch, mean[ch], rstd(ch))
				ds[ch], db[ch] = E(sdyx), E(sdy)
				bnGradApply(x, sc, mean, dy, dx, n, c, s, ch, rstd(ch), E(sdy/m), E(sdyx/m))
			}
		})
		return
	}
	sums := make([]float64, 2*c+1)
	parallel.For(c, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			sums[ch], sums[c+ch] = bnGradSums(x, dy, n, c, s, ch, mean[ch], rstd(ch))
			ds[ch], db[ch] = E(sums[c+ch]), E(sums[ch])
		}
	})
	sums[2*c] = m
	reduce(sums)
	m = sums[2*c]
	parallel.For(c, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			bnGradApply(x, sc, mean, dy, dx, n, c, s, ch, rstd(ch), E(sums[ch]/m), E(sums[c+ch]/m))
		}
	})
}

// bnGradApply writes channel ch of dx = scale·rstd·(dy - a1 - x̂·a2).
func bnGradApply[E float32 | float64](x, sc, mean, dy, dx []E, n, c, s, ch int, rstd, a1, a2 E) {
	mu, k := mean[ch], sc[ch]*rstd
	for ni := range n {
		off := (ni*c + ch) * s
		g, d := dy[off:off+s], dx[off:off+s]
		for i, xv := range x[off : off+s] {
			d[i] = k * (g[i] - a1 - (xv-mu)*rstd*a2)
		}
	}
}
