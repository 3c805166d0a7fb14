package ag

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"paddle/core/tensor"
)

func ids(v []int64, shape ...int) *Var { return Const(tensor.FromSlice(v, shape...)) }

func TestIndexWrappersHandGradients(t *testing.T) {
	pad := 0
	tests := []struct {
		name string
		f    func(p *Var) *Var
		p    *tensor.Tensor
		want []float64
	}{
		{"split, scale one part, concat", func(p *Var) *Var {
			parts := Split(p, 1, 1, 2)
			return Sum(Concat(1, MulScalar(parts[0], 2), parts[1]), nil, false)
		}, tensor.Ones(tensor.Float64, 2, 3), []float64{2, 1, 1, 2, 1, 1}},
		{"only one split output used", func(p *Var) *Var {
			return Sum(Split(p, 0, 2, 1)[1], nil, false)
		}, tensor.Ones(tensor.Float64, 3), []float64{0, 0, 1}},
		{"stack weights", func(p *Var) *Var {
			w := Const(tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2))
			return Sum(Mul(Stack(-1, p, MulScalar(p, 10)), w), nil, false) // p*[1,3] + 10p*[2,4]
		}, tensor.Ones(tensor.Float64, 2), []float64{21, 43}},
		{"embedding with padding", func(p *Var) *Var {
			return Sum(Embedding(ids([]int64{1, 1, 0, -1}, 2, 2), p, &pad), nil, false)
		}, tensor.Ones(tensor.Float64, 4, 2), []float64{0, 0, 2, 2, 0, 0, 1, 1}},
		{"segment_max routes to the max row", func(p *Var) *Var {
			return Sum(SegmentMax(p, ids([]int64{0, 0, 1}, 3), 3), nil, false)
		}, tensor.FromSlice([]float64{1, 5, 2}, 3), []float64{0, 1, 1}},
		{"gather counts repeats", func(p *Var) *Var {
			return Sum(Gather(p, ids([]int64{2, 2, -1, 0}, 4), 0), nil, false)
		}, tensor.Ones(tensor.Float64, 3), []float64{1, 0, 3}},
		{"tile sums copies", func(p *Var) *Var { return Sum(Tile(p, 3), nil, false) },
			tensor.Ones(tensor.Float64, 2), []float64{3, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Param(tt.p)
			tt.f(p).Backward()
			if got := p.Grad.Float64s(); !slices.Equal(got, tt.want) {
				t.Errorf("grad %v, want %v", got, tt.want)
			}
		})
	}
}

// TestMessagePassingGradient checks a small graph-network step built from the
// wrappers against central finite differences.
func TestMessagePassingGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 9))
	w := Param(tensor.Rand(r, tensor.Float64, -1, 1, 5, 3))
	nodes := ids([]int64{0, 3, 4, 1}, 4)
	src := ids([]int64{0, 1, 2, 3, 3, 1}, 6)
	dst := ids([]int64{1, 0, 3, 2, 0, 1}, 6)
	loss := func() *Var {
		h := Embedding(nodes, w, nil)                                   // (4, 3)
		m := Gather(h, src, 0)                                          // (6, 3)
		agg := Concat(1, SegmentMean(m, dst, 4), SegmentMax(m, dst, 4)) // (4, 6)
		x := Pad(Unsqueeze(agg, 0), []int{0, 1, 2, 0, 1, 1}, "reflect", 0)
		y := Slice(Flatten(x, 1), []int{-1}, []int{-1 << 40}, []int{1}, []int{-3})
		return Sum(Mul(y, y), nil, false)
	}
	loss().Backward()
	wv := w.T.F64()
	const h = 1e-6
	for i := range wv {
		orig := wv[i]
		wv[i] = orig + h
		lp := loss().Item()
		wv[i] = orig - h
		lm := loss().Item()
		wv[i] = orig
		num := (lp - lm) / (2 * h)
		if got := w.Grad.F64()[i]; math.Abs(got-num) > 1e-6+1e-5*math.Abs(num) {
			t.Fatalf("dW[%d] = %v, numeric %v", i, got, num)
		}
	}
}
