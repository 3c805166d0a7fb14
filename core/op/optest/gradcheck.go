// Package optest checks op definitions: finite-difference gradient checks in
// float64 against each Def's VJP.
package optest

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"paddle/core/op"
	"paddle/core/tensor"
)

// Tol is an absolute plus relative tolerance.
type Tol struct{ Abs, Rel float64 }

// GradCheck compares d.VJP with central finite differences of
// L = Σ_j sum(out_j * R_j), for random upstream gradients R_j, at the given
// float64 inputs. Integer inputs and those in d.NoGrad are not checked.
func GradCheck(t testing.TB, d *op.Def, in []*tensor.Tensor, attrs op.Attrs, tol Tol) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 11))
	outs := op.Call(d, attrs, in...)
	upstream := make([]*tensor.Tensor, len(outs))
	for j, o := range outs {
		if o.DType().IsFloat() {
			upstream[j] = tensor.Rand(r, o.DType(), -1, 1, o.Shape()...)
		}
	}
	grads := d.VJP(&op.VJPCtx{In: in, Out: outs, GradOut: upstream, Attrs: attrs})
	if len(grads) != len(in) {
		t.Fatalf("%s: VJP returned %d gradients for %d inputs", d.Name, len(grads), len(in))
	}
	loss := func() float64 {
		s := 0.0
		for j, o := range op.Call(d, attrs, in...) {
			if upstream[j] == nil {
				continue
			}
			ov, uv := o.Float64s(), upstream[j].Float64s()
			for k := range ov {
				s += ov[k] * uv[k]
			}
		}
		return s
	}
	const h = 1e-6
	for i, x := range in {
		if x.DType() != tensor.Float64 || slices.Contains(d.NoGrad, i) {
			continue
		}
		g := grads[i]
		if g == nil {
			t.Errorf("%s: input %d: VJP gave no gradient", d.Name, i)
			continue
		}
		if !g.Shape().Equal(x.Shape()) {
			t.Errorf("%s: input %d: gradient shape %v, want %v", d.Name, i, g.Shape(), x.Shape())
			continue
		}
		xv, gv := x.F64(), g.Contiguous().Float64s()
		for e := range xv {
			orig := xv[e]
			xv[e] = orig + h
			lp := loss()
			xv[e] = orig - h
			lm := loss()
			xv[e] = orig
			num := (lp - lm) / (2 * h)
			if diff := math.Abs(num - gv[e]); diff > tol.Abs+tol.Rel*math.Abs(num) {
				t.Errorf("%s: input %d element %d: analytic %.8g, numeric %.8g", d.Name, i, e, gv[e], num)
				return
			}
		}
	}
}
