package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/ag"
	"paddle/core/op/optest"
	"paddle/core/tensor"
)

// TestCRFGradCheck: the op's VJP against central differences in float64,
// with a random upstream gradient, on the sample and on a batch with a
// zero-length and a full-length sequence.
func TestCRFGradCheck(t *testing.T) {
	tol := optest.Tol{Abs: 1e-6, Rel: 1e-5}
	in, attrs := crfDef.Sample(rand.New(rand.NewPCG(1, 2)))
	optest.GradCheck(t, crfDef, in, attrs, tol)
	r := rand.New(rand.NewPCG(7, 7))
	e := tensor.Rand(r, tensor.Float64, -3, 3, 3, 5, 4)
	tags := tensor.FromSlice([]int64{3, 3, 0, 1, 2, 0, 0, 0, 0, 0, 1, 2, 3, 0, 1}, 3, 5)
	lens := tensor.FromSlice([]int64{5, 0, 5}, 3)
	tr := tensor.Rand(r, tensor.Float64, -1, 1, 4, 4)
	st := tensor.Rand(r, tensor.Float64, -1, 1, 4)
	en := tensor.Rand(r, tensor.Float64, -1, 1, 4)
	optest.GradCheck(t, crfDef, []*tensor.Tensor{e, tr, st, en, tags, lens}, nil, tol)
}

// TestCRFLayerGradCheck checks the layer (with the transition casts) end to
// end through the shared float64 checker.
func TestCRFLayerGradCheck(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	c, err := NewCRF(3, r)
	if err != nil {
		t.Fatal(err)
	}
	ToDType(c, tensor.Float64)
	e := ag.Param(tensor.Rand(r, tensor.Float64, -2, 2, 2, 4, 3))
	tags := tensor.FromSlice([]int64{0, 1, 2, 2, 1, 1, 0, 0}, 2, 4)
	params := []*ag.Var{e, c.Transitions, c.Start, c.End}
	checkGrad(t, "crf", params, func() *ag.Var { return c.NLL(e, tags, []int{4, 2}) }, 1e-5)
}

// enumerate calls f on every tag path of length l over k tags.
func enumerate(l, k int, f func(y []int)) {
	y := make([]int, l)
	for {
		f(y)
		i := l - 1
		for i >= 0 && y[i] == k-1 {
			y[i] = 0
			i--
		}
		if i < 0 {
			return
		}
		y[i]++
	}
}

// TestCRFBruteForce: log Z, the NLL and the Viterbi path on tiny cases
// against summing and maximising over every path.
func TestCRFBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	for _, tc := range []struct{ l, k int }{{1, 1}, {1, 3}, {2, 2}, {3, 3}, {5, 3}, {4, 4}} {
		c := CRFChain{K: tc.k}
		rnd := func(n int) []float64 {
			v := make([]float64, n)
			for i := range v {
				v[i] = r.Float64()*4 - 2
			}
			return v
		}
		c.Trans, c.Start, c.End = rnd(tc.k*tc.k), rnd(tc.k), rnd(tc.k)
		e := rnd(tc.l * tc.k)
		var scores []float64
		best, bestScore := []int(nil), math.Inf(-1)
		enumerate(tc.l, tc.k, func(y []int) {
			s := c.Score(e, y)
			scores = append(scores, s)
			if s > bestScore {
				best, bestScore = append([]int(nil), y...), s
			}
		})
		want := 0.0
		for _, s := range scores {
			want += math.Exp(s)
		}
		want = math.Log(want)
		if got := c.LogZ(e, tc.l); math.Abs(got-want) > 1e-10 {
			t.Errorf("L=%d K=%d: LogZ %v, brute force %v", tc.l, tc.k, got, want)
		}
		path, score := c.Viterbi(e, tc.l)
		if math.Abs(score-bestScore) > 1e-12 || !equalInts(path, best) {
			t.Errorf("L=%d K=%d: Viterbi %v (%v), brute force %v (%v)", tc.l, tc.k, path, score, best, bestScore)
		}
		// the op's nll of the best path, through the layer
		crf := &CRF{NumTags: tc.k, Transitions: ag.Param(tensor.FromSlice(c.Trans, tc.k, tc.k)),
			Start: ag.Param(tensor.FromSlice(c.Start, tc.k)), End: ag.Param(tensor.FromSlice(c.End, tc.k))}
		tags := make([]int64, tc.l)
		for i, v := range best {
			tags[i] = int64(v)
		}
		nll := crf.NLL(ag.Const(tensor.FromSlice(e, 1, tc.l, tc.k)), tensor.FromSlice(tags, 1, tc.l), []int{tc.l}).Item()
		if math.Abs(nll-(want-bestScore)) > 1e-10 {
			t.Errorf("L=%d K=%d: nll %v, want %v", tc.l, tc.k, nll, want-bestScore)
		}
		dec := crf.Decode(tensor.FromSlice(e, 1, tc.l, tc.k), []int{tc.l})
		if !equalInts(dec[0], best) {
			t.Errorf("L=%d K=%d: Decode %v, want %v", tc.l, tc.k, dec[0], best)
		}
	}
}

// TestCRFPadding: steps past a sequence's length change neither its nll
// nor its gradient, in float32 as in float64.
func TestCRFPadding(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	c, _ := NewCRF(3, r)
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
		short := tensor.Rand(r, dt, -1, 1, 1, 3, 3)
		long := tensor.New(dt, 1, 5, 3)
		for tt := range 5 {
			for k := range 3 {
				v := 100.0 // garbage in the padding
				if tt < 3 {
					v = short.At(0, tt, k)
				}
				long.SetAt(v, 0, tt, k)
			}
		}
		a, b := ag.Param(short), ag.Param(long)
		na := c.NLL(a, tensor.FromSlice([]int64{0, 2, 1}, 1, 3), []int{3})
		nb := c.NLL(b, tensor.FromSlice([]int64{0, 2, 1, 0, 0}, 1, 5), []int{3})
		if math.Abs(na.Item()-nb.Item()) > 1e-5 {
			t.Fatalf("%v: padded nll %v, unpadded %v", dt, nb.Item(), na.Item())
		}
		na.Backward()
		nb.Backward()
		for tt := range 5 {
			for k := range 3 {
				want := 0.0
				if tt < 3 {
					want = a.Grad.At(0, tt, k)
				}
				if g := b.Grad.At(0, tt, k); math.Abs(g-want) > 1e-5 {
					t.Fatalf("%v: grad at (%d, %d) = %v, want %v", dt, tt, k, g, want)
				}
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
