package op

import (
	"fmt"
	"math"
	"math/rand/v2"

	"paddle/core/parallel"
	"paddle/core/tensor"
)

// CTC (Graves et al. 2006, https://www.cs.toronto.edu/~graves/icml_2006.pdf)
// is a primitive: the forward-backward recursion is a loop over time that
// would be thousands of tiny ops as a composite. "ctc_loss" maps
//
//	log_probs (T, N, C) float, targets (N, S) padded or (ΣL) concatenated int64,
//	input_lengths (N) int64, target_lengths (N) int64  →  nll (N)
//
// with attributes blank (default 0) and zero_infinity. Its VJP calls the
// companion primitive "ctc_loss_grad", which runs the α/β recursions in log
// space and returns the exact partial derivative with respect to log_probs:
//
//	∂nll/∂lp[t,n,c] = -exp(logΣ_{s: l'_s=c} α_t(s)β_t(s) - lp[t,n,c] + nll_n)
//
// (PyTorch's CUDA/CPU kernels return this plus exp(lp), which only equals the
// true derivative after a log_softmax backward; ours is the true one, so the
// finite-difference check holds for any log_probs.)

var ctcDef, ctcGradDef *Def

func init() {
	ctcGradDef = define(&Def{
		Name: "ctc_loss_grad", Arity: 4, NoGrad: []int{0, 1, 2, 3},
		Infer: func(in []Meta, a Attrs) ([]Meta, error) {
			if _, err := ctcInfer(in, a); err != nil {
				return nil, err
			}
			return []Meta{in[0]}, nil
		},
		Ref: func(out, in []*T, a Attrs) { ctcRef(nil, out[0], in, a) },
	})
	ctcDef = define(&Def{
		Name: "ctc_loss", Arity: 4, NoGrad: []int{1, 2, 3}, Infer: ctcInfer,
		Ref: func(out, in []*T, a Attrs) { ctcRef(out[0], nil, in, a) },
		VJP: func(c *VJPCtx) []*T {
			n := c.In[0].Dim(1)
			d := Call(ctcGradDef, c.Attrs, c.In...)[0]
			return []*T{Mul(d, Reshape(c.G(0), 1, n, 1)), nil, nil, nil}
		},
		Sample: func(r *rand.Rand) ([]*T, Attrs) {
			lp := tensor.Rand(r, tensor.Float64, -3, -0.1, 6, 2, 4)
			tg := tensor.FromSlice([]int64{1, 2, 2, 3, 1, 0}, 2, 3)
			il := tensor.FromSlice([]int64{6, 5}, 2)
			tl := tensor.FromSlice([]int64{3, 2}, 2)
			return []*T{lp, tg, il, tl}, Attrs{"blank": 0}
		},
	})
}

func ctcInfer(in []Meta, a Attrs) ([]Meta, error) {
	lp, tg, il, tl := in[0], in[1], in[2], in[3]
	if !lp.DType.IsFloat() || len(lp.Shape) != 3 {
		return nil, fmt.Errorf("log_probs must be float (T, N, C), got %v %v", lp.DType, lp.Shape)
	}
	n, c := lp.Shape[1], lp.Shape[2]
	for i, m := range []Meta{tg, il, tl} {
		if m.DType != tensor.Int64 {
			return nil, fmt.Errorf("input %d (targets, input_lengths, target_lengths) must be int64, got %v", i+1, m.DType)
		}
	}
	if (len(tg.Shape) != 2 || tg.Shape[0] != n) && len(tg.Shape) != 1 {
		return nil, fmt.Errorf("targets must be (N, S) with N=%d or concatenated (ΣL), got %v", n, tg.Shape)
	}
	if !il.Shape.Equal(tensor.Shape{n}) || !tl.Shape.Equal(tensor.Shape{n}) {
		return nil, fmt.Errorf("input_lengths %v and target_lengths %v must be (%d)", il.Shape, tl.Shape, n)
	}
	if b := a.Int("blank", 0); b < 0 || b >= c {
		return nil, fmt.Errorf("blank %d out of range for %d classes", b, c)
	}
	return []Meta{{DType: lp.DType, Shape: tensor.Shape{n}}}, nil
}

// ctcRef fills nll (N) or grad (T, N, C), whichever is non-nil.
func ctcRef(nll, grad *T, in []*T, a Attrs) {
	switch in[0].DType() {
	case tensor.Float32:
		ctcRun(tensor.Data[float32](in[0]), nll, grad, in, a)
	case tensor.Float64:
		ctcRun(tensor.Data[float64](in[0]), nll, grad, in, a)
	}
}

func ctcRun[E float32 | float64](lp []E, nll, grad *T, in []*T, a Attrs) {
	t, n, c := in[0].Dims3()
	tg, il, tl := in[1].I64(), in[2].I64(), in[3].I64()
	blank := a.Int("blank", 0)
	zeroInf := a.Bool("zero_infinity", false)
	// start offset of each target sequence
	offs := make([]int, n)
	padded := in[1].Rank() == 2
	acc := 0
	for i := range n {
		if padded {
			offs[i] = i * in[1].Dim(1)
		} else {
			offs[i] = acc
			acc += int(tl[i])
		}
	}
	var g, losses []E
	if grad != nil {
		g = tensor.Data[E](grad) // zeroed by the caller: frames past a sequence's end keep 0
	}
	if nll != nil {
		losses = tensor.Data[E](nll)
	}
	parallel.For(n, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			tb, lb := min(int(il[b]), t), int(tl[b])
			lab := make([]int, lb)
			for i := range lb {
				lab[i] = int(tg[offs[b]+i])
			}
			emit := func(tt, k int) float64 { return float64(lp[(tt*n+b)*c+k]) }
			loss, ab, ext := ctcSeq(emit, tb, lab, blank, grad != nil)
			if math.IsInf(loss, 1) && zeroInf {
				loss, ab = 0, nil
			}
			if losses != nil {
				losses[b] = E(loss)
			}
			if ab == nil {
				continue
			}
			// ∂nll/∂lp[t,k] = -exp(logΣ_{s: l'_s=k} α_t(s)β_t(s) - lp[t,k] + nll) for the
			// classes k in l'; every other class has no path through it and gets 0.
			s := len(ext)
			occ := make([]float64, c)
			for tt := range tb {
				for _, k := range ext {
					occ[k] = math.Inf(-1)
				}
				for i, k := range ext {
					occ[k] = logAdd(occ[k], ab[tt*s+i])
				}
				for _, k := range ext { // a class repeated in l' writes the same value again
					if o := occ[k]; !math.IsInf(o, -1) {
						g[(tt*n+b)*c+k] = E(-math.Exp(o - emit(tt, k) + loss))
					}
				}
			}
		}
	})
}

// ctcSeq runs CTC on one sequence of length tn with emissions emit(t, k) (log
// space) and labels lab. It returns the negative log-likelihood, the
// extended labels l' (blank, l1, blank, ..., blank) and, when wantAB, the
// table α_t(s)+β_t(s) (tn, len(l')) in log space (nil when the likelihood is 0).
func ctcSeq(emit func(t, k int) float64, tn int, lab []int, blank int, wantAB bool) (float64, []float64, []int) {
	s := 2*len(lab) + 1
	ext := make([]int, s) // l': blank, l1, blank, l2, ..., blank
	for i := range ext {
		ext[i] = blank
		if i%2 == 1 {
			ext[i] = lab[i/2]
		}
	}
	inf := math.Inf(-1)
	if tn == 0 {
		if len(lab) == 0 {
			return 0, nil, ext
		}
		return math.Inf(1), nil, ext
	}
	// skip(s): the transition s-2 → s is allowed (a label differing from the one two back)
	skip := func(i int) bool { return i >= 2 && ext[i] != blank && ext[i] != ext[i-2] }
	alpha := make([]float64, tn*s)
	for i := range alpha {
		alpha[i] = inf
	}
	alpha[0] = emit(0, ext[0])
	if s > 1 {
		alpha[1] = emit(0, ext[1])
	}
	for t := 1; t < tn; t++ {
		prev, cur := alpha[(t-1)*s:t*s], alpha[t*s:(t+1)*s]
		for i := range s {
			v := prev[i]
			if i >= 1 {
				v = logAdd(v, prev[i-1])
			}
			if skip(i) {
				v = logAdd(v, prev[i-2])
			}
			if !math.IsInf(v, -1) {
				cur[i] = v + emit(t, ext[i])
			}
		}
	}
	last := alpha[(tn-1)*s : tn*s]
	ll := last[s-1]
	if s > 1 {
		ll = logAdd(ll, last[s-2])
	}
	if math.IsInf(ll, -1) {
		return math.Inf(1), nil, ext
	}
	if !wantAB {
		return -ll, nil, ext
	}
	beta := make([]float64, tn*s)
	for i := range beta {
		beta[i] = inf
	}
	beta[(tn-1)*s+s-1] = emit(tn-1, ext[s-1])
	if s > 1 {
		beta[(tn-1)*s+s-2] = emit(tn-1, ext[s-2])
	}
	for t := tn - 2; t >= 0; t-- {
		next, cur := beta[(t+1)*s:(t+2)*s], beta[t*s:(t+1)*s]
		for i := range s {
			v := next[i]
			if i+1 < s {
				v = logAdd(v, next[i+1])
			}
			if i+2 < s && skip(i+2) {
				v = logAdd(v, next[i+2])
			}
			if !math.IsInf(v, -1) {
				cur[i] = v + emit(t, ext[i])
			}
		}
	}
	for i := range alpha {
		alpha[i] += beta[i] // -inf stays -inf
	}
	return -ll, alpha, ext
}

// logAdd returns log(e^a + e^b) without overflow.
func logAdd(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}
