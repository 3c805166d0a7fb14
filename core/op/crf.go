package op

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// A linear-chain conditional random field (Lafferty et al. 2001,
// https://repository.upenn.edu/cis_papers/159/; as a tagger's output layer,
// Lample et al. 2016, https://arxiv.org/abs/1603.01360). The score of a tag
// path y over emissions e (T, K) is
//
//	s(y) = start[y₀] + Σ_t e[t, y_t] + Σ_{t≥1} trans[y_{t-1}, y_t] + end[y_{T-1}]
//
// and its negative log-likelihood is log Z − s(y), Z = Σ_y' exp s(y') by the
// forward algorithm. Like CTC it is a primitive: the recursion is a loop over
// time that would be thousands of tiny ops as a composite. "crf_nll" maps
//
//	emissions (N, T, K) float, transitions (K, K), start (K), end (K),
//	tags (N, T) int64, lengths (N) int64  →  nll (N)
//
// Steps at or past a sequence's length are ignored (padding); a length of
// 0 gives nll 0. Its VJP calls "crf_nll_grad", which runs the forward and
// backward recursions and returns the exact gradients: the tag marginals
// minus the gold indicators, ∂nll/∂e[t,k] = p(y_t=k) − [y_t=k], and likewise
// the pair marginals for the transitions and the first/last tag marginals
// for start and end, each scaled by the upstream gradient of its sequence.

var crfDef, crfGradDef *Def

func init() {
	crfGradDef = define(&Def{
		Name: "crf_nll_grad", Arity: 7, NoGrad: []int{0, 1, 2, 3, 4, 5, 6},
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if _, err := crfInfer(in[:6], a); err != nil {
				return nil, err
			}
			return []Meta{in[0], in[1], in[2], in[3]}, nil
		},
		Ref: func(out, in []*T, _ Attrs) { crfRef(nil, out, in) },
	})
	crfDef = define(&Def{
		Name: "crf_nll", Arity: 6, NoGrad: []int{4, 5}, Infer: crfInfer,
		Ref: func(out, in []*T, _ Attrs) { crfRef(out[0], nil, in) },
		VJP: func(c *VJPCtx) []*T {
			g := Call(crfGradDef, nil, append(append([]*T(nil), c.In...), c.G(0))...)
			return []*T{g[0], g[1], g[2], g[3], nil, nil}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			e := tensor.Rand(r, tensor.Float64, -2, 2, 3, 4, 3)
			tr := tensor.Rand(r, tensor.Float64, -1, 1, 3, 3)
			st := tensor.Rand(r, tensor.Float64, -1, 1, 3)
			en := tensor.Rand(r, tensor.Float64, -1, 1, 3)
			tags := tensor.FromSlice([]int64{0, 2, 1, 1, 2, 2, 0, 0, 1, 0, 0, 0}, 3, 4)
			return []*T{e, tr, st, en, tags, tensor.FromSlice([]int64{4, 3, 1}, 3)}, nil
		},
	})
}

func crfInfer(in []Meta, _ Attrs) ([]Meta, error) {
	e, tr, st, en, tg, ln := in[0], in[1], in[2], in[3], in[4], in[5]
	if !e.DType.IsFloat() || len(e.Shape) != 3 {
		return nil, fmt.Errorf("emissions must be float (N, T, K), got %v %v", e.DType, e.Shape)
	}
	n, t, k := e.Shape[0], e.Shape[1], e.Shape[2]
	if tr.DType != e.DType || !tr.Shape.Equal(tensor.Shape{k, k}) {
		return nil, fmt.Errorf("transitions must be %v (%d, %d), got %v %v", e.DType, k, k, tr.DType, tr.Shape)
	}
	for i, m := range []Meta{st, en} {
		if m.DType != e.DType || !m.Shape.Equal(tensor.Shape{k}) {
			return nil, fmt.Errorf("input %d (start, end) must be %v (%d), got %v %v", i+2, e.DType, k, m.DType, m.Shape)
		}
	}
	if tg.DType != tensor.Int64 || !tg.Shape.Equal(tensor.Shape{n, t}) {
		return nil, fmt.Errorf("tags must be int64 (%d, %d), got %v %v", n, t, tg.DType, tg.Shape)
	}
	if ln.DType != tensor.Int64 || !ln.Shape.Equal(tensor.Shape{n}) {
		return nil, fmt.Errorf("lengths must be int64 (%d), got %v %v", n, ln.DType, ln.Shape)
	}
	return []Meta{{DType: e.DType, Shape: tensor.Shape{n}}}, nil
}

// crfRef fills nll (N), or the four gradients when grads is non-nil.
func crfRef(nll *T, grads, in []*T) {
	switch in[0].DType() {
	case tensor.Float32:
		crfRun[float32](nll, grads, in)
	case tensor.Float64:
		crfRun[float64](nll, grads, in)
	}
}

func crfRun[E float32 | float64](nll *T, grads, in []*T) {
	n, tn, k := in[0].Dims3()
	em := tensor.Data[E](in[0])
	tr := toF64(tensor.Data[E](in[1]))
	st := toF64(tensor.Data[E](in[2]))
	en := toF64(tensor.Data[E](in[3]))
	tags, lens := in[4].I64(), in[5].I64()
	var gu []E // upstream gradient (N)
	var de []E
	var dtrN, dstN, denN []float64 // per sequence, summed after the parallel loop
	if grads != nil {
		gu = tensor.Data[E](in[6])
		de = tensor.Data[E](grads[0])
		dtrN, dstN, denN = make([]float64, n*k*k), make([]float64, n*k), make([]float64, n*k)
	}
	var losses []E
	if nll != nil {
		losses = tensor.Data[E](nll)
	}
	parallel.For(n, 1, func(lo, hi int) {
		e := make([]float64, tn*k)
		for b := lo; b < hi; b++ {
			l := min(int(lens[b]), tn)
			if l <= 0 {
				continue
			}
			for i := range l * k {
				e[i] = float64(em[b*tn*k+i])
			}
			y := make([]int, l)
			for t := range l {
				y[t] = int(tags[b*tn+t])
			}
			c := CRFChain{Trans: tr, Start: st, End: en, K: k}
			if grads == nil {
				losses[b] = E(c.LogZ(e[:l*k], l) - c.Score(e[:l*k], y))
				continue
			}
			g := float64(gu[b])
			dtr, dst, den := dtrN[b*k*k:(b+1)*k*k], dstN[b*k:(b+1)*k], denN[b*k:(b+1)*k]
			c.marginals(e[:l*k], l, func(t, j int, p float64) {
				de[(b*tn+t)*k+j] = E(g * p)
			}, func(i, j int, p float64) { dtr[i*k+j] += g * p }, func(j int, p float64) { dst[j] += g * p }, func(j int, p float64) { den[j] += g * p })
			for t := range l {
				de[(b*tn+t)*k+y[t]] -= E(g)
				if t > 0 {
					dtr[y[t-1]*k+y[t]] -= g
				}
			}
			dst[y[0]] -= g
			den[y[l-1]] -= g
		}
	})
	if grads == nil {
		return
	}
	dtr, dst, den := tensor.Data[E](grads[1]), tensor.Data[E](grads[2]), tensor.Data[E](grads[3])
	for b := range n {
		for i := range k * k {
			dtr[i] += E(dtrN[b*k*k+i])
		}
		for j := range k {
			dst[j] += E(dstN[b*k+j])
			den[j] += E(denN[b*k+j])
		}
	}
}

func toF64[E float32 | float64](v []E) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// CRFChain is a CRF's parameters as plain numbers, for the recursions of
// one sequence outside autograd (decoding, tests): Trans[i*K+j] scores tag
// i followed by tag j.
type CRFChain struct {
	Trans, Start, End []float64
	K                 int
}

// Score returns s(y) for emissions e (L, K) row-major and tags y (L).
func (c CRFChain) Score(e []float64, y []int) float64 {
	k, l := c.K, len(y)
	if l == 0 {
		return 0
	}
	s := c.Start[y[0]] + c.End[y[l-1]]
	for t, j := range y {
		s += e[t*k+j]
		if t > 0 {
			s += c.Trans[y[t-1]*k+j]
		}
	}
	return s
}

// LogZ returns log Σ_y exp s(y) over all tag paths of length l (forward algorithm).
func (c CRFChain) LogZ(e []float64, l int) float64 {
	if l == 0 {
		return 0
	}
	alpha := c.forward(e, l)
	return c.logZFrom(alpha[(l-1)*c.K:])
}

func (c CRFChain) logZFrom(last []float64) float64 {
	v := make([]float64, c.K)
	for j := range c.K {
		v[j] = last[j] + c.End[j]
	}
	return logSumExp(v)
}

// forward returns α (L, K): α[t][j] = log Σ over paths ending in j at t.
func (c CRFChain) forward(e []float64, l int) []float64 {
	k := c.K
	alpha := make([]float64, l*k)
	for j := range k {
		alpha[j] = c.Start[j] + e[j]
	}
	v := make([]float64, k)
	for t := 1; t < l; t++ {
		prev := alpha[(t-1)*k : t*k]
		for j := range k {
			for i := range k {
				v[i] = prev[i] + c.Trans[i*k+j]
			}
			alpha[t*k+j] = logSumExp(v) + e[t*k+j]
		}
	}
	return alpha
}

// marginals calls unary(t, j, p(y_t=j)), pair(i, j, Σ_t p(y_{t-1}=i, y_t=j)),
// first(j, p(y_0=j)) and last(j, p(y_{l-1}=j)) (forward-backward).
func (c CRFChain) marginals(e []float64, l int, unary func(t, j int, p float64), pair func(i, j int, p float64), first, last func(j int, p float64)) {
	k := c.K
	alpha := c.forward(e, l)
	logZ := c.logZFrom(alpha[(l-1)*k:])
	beta := make([]float64, l*k) // β[t][i] = log Σ over continuations from i at t
	copy(beta[(l-1)*k:], c.End)
	v := make([]float64, k)
	for t := l - 2; t >= 0; t-- {
		for i := range k {
			for j := range k {
				v[j] = c.Trans[i*k+j] + e[(t+1)*k+j] + beta[(t+1)*k+j]
			}
			beta[t*k+i] = logSumExp(v)
		}
	}
	for t := range l {
		for j := range k {
			p := math.Exp(alpha[t*k+j] + beta[t*k+j] - logZ)
			unary(t, j, p)
			if t == 0 {
				first(j, p)
			}
			if t == l-1 {
				last(j, p)
			}
		}
	}
	pp := make([]float64, k*k)
	for t := 1; t < l; t++ {
		for i := range k {
			for j := range k {
				pp[i*k+j] += math.Exp(alpha[(t-1)*k+i] + c.Trans[i*k+j] + e[t*k+j] + beta[t*k+j] - logZ)
			}
		}
	}
	for i := range k {
		for j := range k {
			pair(i, j, pp[i*k+j])
		}
	}
}

// Viterbi returns the highest-scoring tag path for emissions e (l, K)
// row-major and its score; ties go to the lower tag index.
func (c CRFChain) Viterbi(e []float64, l int) ([]int, float64) {
	if l == 0 {
		return nil, 0
	}
	k := c.K
	delta := make([]float64, k)
	for j := range k {
		delta[j] = c.Start[j] + e[j]
	}
	back := make([]int, l*k)
	next := make([]float64, k)
	for t := 1; t < l; t++ {
		for j := range k {
			best, arg := math.Inf(-1), 0
			for i := range k {
				if v := delta[i] + c.Trans[i*k+j]; v > best {
					best, arg = v, i
				}
			}
			next[j] = best + e[t*k+j]
			back[t*k+j] = arg
		}
		delta, next = next, delta
	}
	best, arg := math.Inf(-1), 0
	for j := range k {
		if v := delta[j] + c.End[j]; v > best {
			best, arg = v, j
		}
	}
	path := make([]int, l)
	path[l-1] = arg
	for t := l - 1; t > 0; t-- {
		path[t-1] = back[t*k+path[t]]
	}
	return path, best
}

func logSumExp(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = max(m, x)
	}
	if math.IsInf(m, -1) {
		return m
	}
	s := 0.0
	for _, x := range v {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}

// DecodeBatch runs Viterbi on each sequence of emissions (N, T, K).
func (c CRFChain) DecodeBatch(emissions *tensor.Tensor, lengths []int) [][]int {
	n, tn, k := emissions.Dims3()
	ev := emissions.Contiguous().Float64s()
	out := make([][]int, n)
	parallel.For(n, 8, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			l := min(lengths[b], tn)
			out[b], _ = c.Viterbi(ev[b*tn*k:(b*tn+l)*k], l)
		}
	})
	return out
}
