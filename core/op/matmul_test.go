package op_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"paddle/core/op"
	"paddle/core/op/optest"
	"paddle/core/tensor"
)

// naiveMatMul is the definition: out[..., i, j] = Σ_k op(a)[..., i, k]·op(b)[..., k, j]
// with the batch axes broadcast, computed with At on (transposed) views.
func naiveMatMul(a, b *tensor.Tensor, ta, tb bool) *tensor.Tensor {
	tr := func(x *tensor.Tensor) *tensor.Tensor {
		p := make([]int, x.Rank())
		for i := range p {
			p[i] = i
		}
		p[len(p)-1], p[len(p)-2] = p[len(p)-2], p[len(p)-1]
		return x.Transpose(p...)
	}
	if ta {
		a = tr(a)
	}
	if tb {
		b = tr(b)
	}
	as, bs := a.Shape(), b.Shape()
	m, k, n := as[len(as)-2], as[len(as)-1], bs[len(bs)-1]
	batch, err := tensor.BroadcastShapes(as[:len(as)-2], bs[:len(bs)-2])
	if err != nil {
		panic(err)
	}
	full := append(batch.Clone(), m, n)
	a = a.BroadcastTo(append(batch.Clone(), m, k)...)
	b = b.BroadcastTo(append(batch.Clone(), k, n)...)
	out := tensor.New(tensor.Float64, full...)
	idx := make([]int, len(full))
	for flat := range out.Len() {
		rem := flat
		for ax := len(full) - 1; ax >= 0; ax-- {
			idx[ax] = rem % full[ax]
			rem /= full[ax]
		}
		s := 0.0
		ia := append([]int(nil), idx...)
		ib := append([]int(nil), idx...)
		for kk := range k {
			ia[len(ia)-1], ib[len(ib)-2] = kk, kk
			s += a.At(ia...) * b.At(ib...)
		}
		out.SetAt(s, idx...)
	}
	return out
}

type mmCase struct {
	a, b   tensor.Shape // shapes as stored (already transposed where trans is set)
	ta, tb bool
}

func mmCases() []mmCase {
	return []mmCase{
		{tensor.Shape{3, 4}, tensor.Shape{4, 5}, false, false},
		{tensor.Shape{4, 3}, tensor.Shape{4, 5}, true, false},
		{tensor.Shape{3, 4}, tensor.Shape{5, 4}, false, true},
		{tensor.Shape{4, 3}, tensor.Shape{5, 4}, true, true},
		{tensor.Shape{2, 3, 4}, tensor.Shape{2, 4, 5}, false, false},    // batched
		{tensor.Shape{2, 1, 4, 3}, tensor.Shape{3, 5, 4}, true, true},   // batch broadcast both ways
		{tensor.Shape{3, 4}, tensor.Shape{2, 4, 5}, false, false},       // 2-D times batched
		{tensor.Shape{2, 3, 4}, tensor.Shape{5, 4}, false, true},        // batched times 2-D
		{tensor.Shape{33, 65}, tensor.Shape{17, 65}, false, true},       // big enough for the blocked paths
		{tensor.Shape{3, 70, 40}, tensor.Shape{1, 70, 50}, true, false}, // parallel over the batch
	}
}

// TestMatMulMatchesDefinition checks plain, transposed, batched and
// batch-broadcast products in float64 and float32 against the definition.
func TestMatMulMatchesDefinition(t *testing.T) {
	got := op.MatMul(tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2), tensor.FromSlice([]float64{5, 6, 7, 8}, 2, 2), false, false)
	wantMath(t, "2x2 by hand", got, []float64{19, 22, 43, 50}, 0)
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range mmCases() {
		a := tensor.Rand(r, tensor.Float64, -1, 1, c.a...)
		b := tensor.Rand(r, tensor.Float64, -1, 1, c.b...)
		want := naiveMatMul(a, b, c.ta, c.tb)
		for _, dt := range []tensor.DType{tensor.Float64, tensor.Float32} {
			name := fmt.Sprintf("%v×%v ta=%v tb=%v %v", c.a, c.b, c.ta, c.tb, dt)
			y := op.MatMul(a.Cast(dt), b.Cast(dt), c.ta, c.tb)
			if y.DType() != dt || !y.Shape().Equal(want.Shape()) {
				t.Fatalf("%s: got %v %v, want %v", name, y.DType(), y.Shape(), want.Shape())
			}
			tol := 1e-12
			if dt == tensor.Float32 {
				tol = 1e-5
			}
			if d, ok := tensor.MaxDiff(y, want, tol, tol); !ok {
				t.Errorf("%s: max diff %g", name, d)
			}
		}
	}
}

// TestMatMulGradients gradient-checks every transpose combination and the
// batch-broadcast cases, whose gradients must sum over the broadcast axes
// (the registry's Sample covers only one configuration).
func TestMatMulGradients(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, c := range mmCases() {
		if c.a.NumElements() > 500 {
			continue
		}
		in := []*tensor.Tensor{tensor.Rand(r, tensor.Float64, -1, 1, c.a...), tensor.Rand(r, tensor.Float64, -1, 1, c.b...)}
		optest.GradCheck(t, op.Lookup("matmul"), in, op.Attrs{"trans_a": c.ta, "trans_b": c.tb}, optest.Tol{Abs: 1e-6, Rel: 1e-5})
	}
}

func TestMatMulShapeErrors(t *testing.T) {
	f := func(s ...int) *tensor.Tensor { return tensor.New(tensor.Float32, s...) }
	mustMathShapeError(t, "inner mismatch", func() { op.MatMul(f(2, 3), f(4, 5), false, false) })
	mustMathShapeError(t, "inner mismatch after transpose", func() { op.MatMul(f(2, 3), f(3, 5), true, false) })
	mustMathShapeError(t, "rank 1", func() { op.MatMul(f(3), f(3, 2), false, false) })
	mustMathShapeError(t, "batch not broadcastable", func() { op.MatMul(f(2, 2, 3), f(3, 3, 4), false, false) })
	mustMathShapeError(t, "dtypes differ", func() { op.MatMul(f(2, 3), tensor.New(tensor.Float64, 3, 2), false, false) })
	mustMathShapeError(t, "int64", func() { op.MatMul(tensor.New(tensor.Int64, 2, 2), tensor.New(tensor.Int64, 2, 2), false, false) })
	if v := op.MatMul(f(0, 3), f(3, 2), false, false); !v.Shape().Equal(tensor.Shape{0, 2}) {
		t.Errorf("empty product shape %v", v.Shape())
	}
}
