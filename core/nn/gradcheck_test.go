package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"paddle/core/ag"
	"paddle/core/tensor"
)

// checkGrad compares the autograd gradients of L = Σ f(params)·R, for a
// random upstream R, with central finite differences over every element of
// every float64 parameter. f must be deterministic (no fresh randomness).
func checkGrad(t *testing.T, name string, params []*ag.Var, f func() *ag.Var, tol float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 5))
	out := f()
	up := tensor.Rand(r, out.DType(), -1, 1, out.Shape()...)
	loss := func() float64 {
		var y *ag.Var
		ag.NoGrad(func() { y = f() })
		s := 0.0
		yv, uv := y.T.Float64s(), up.Float64s()
		for i := range yv {
			s += yv[i] * uv[i]
		}
		return s
	}
	for _, p := range params {
		p.ZeroGrad()
	}
	out.BackwardWith(up)
	const h = 1e-6
	for pi, p := range params {
		if p.Grad == nil {
			t.Errorf("%s: param %d got no gradient", name, pi)
			continue
		}
		xv, gv := p.T.F64(), p.Grad.Float64s()
		for e := range xv {
			orig := xv[e]
			xv[e] = orig + h
			lp := loss()
			xv[e] = orig - h
			lm := loss()
			xv[e] = orig
			num := (lp - lm) / (2 * h)
			if math.Abs(num-gv[e]) > tol*(1+math.Abs(num)) {
				t.Errorf("%s: param %d element %d: autograd %.8g, numeric %.8g", name, pi, e, gv[e], num)
				return
			}
		}
	}
}
