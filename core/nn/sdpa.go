package nn

import (
	"fmt"
	"math"

	"paddle/core/ag"
	"paddle/core/op"
	"paddle/core/tensor"
)

// SDPAOptions configure ScaledDotProductAttention.
type SDPAOptions struct {
	// Mask is added to the scores: a float tensor of q's dtype, or a bool
	// tensor where true means "may not attend" (nn.MultiheadAttention's
	// convention; masked scores become -inf). It must broadcast to the
	// scores (..., L, S). nil = none.
	Mask *tensor.Tensor
	// Causal masks key j > query i (top-left aligned when L != S).
	Causal bool
	// Scale multiplies q·kᵀ; 0 means 1/sqrt(D).
	Scale float64
	// Dropout is applied to the weights in training; nil = none.
	Dropout *Dropout
}

// ScaledDotProductAttention returns softmax(q·kᵀ·scale + mask)·v and the
// softmax weights (before dropout), as composites of ag primitives, so its
// gradient comes from MatMul, Softmax and Add. A query whose keys are all
// masked gets NaN, as in PyTorch.
//
//	q: (..., L, D), k: (..., S, D), v: (..., S, Dv) → out (..., L, Dv), weights (..., L, S)
//
// The leading axes of q, k and v must match. It panics with *op.ShapeError
// when the mask does not broadcast to the scores.
func ScaledDotProductAttention(q, k, v *ag.Var, o SDPAOptions, training bool) (out, weights *ag.Var) {
	d := q.Shape()[len(q.Shape())-1]
	scale := o.Scale
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(d))
	}
	scores := ag.MulScalar(ag.MatMul(q, k, false, true), scale) // (..., L, S)
	ss := scores.Shape()
	l, s := ss[len(ss)-2], ss[len(ss)-1]
	if o.Causal {
		c := make([]float64, l*s)
		for i := range l {
			for j := i + 1; j < s; j++ {
				c[i*s+j] = math.Inf(-1)
			}
		}
		scores = ag.Add(scores, ag.Const(tensor.FromSlice(c, l, s).Cast(q.DType())))
	}
	if o.Mask != nil {
		if bs, err := tensor.BroadcastShapes(ss, o.Mask.Shape()); err != nil || !bs.Equal(ss) {
			panic(&op.ShapeError{Op: "scaled_dot_product_attention", Err: fmt.Errorf("mask %v does not broadcast to the scores %v", o.Mask.Shape(), ss)})
		}
		scores = ag.Add(scores, ag.Const(additiveMask(o.Mask, q.DType())))
	}
	weights = ag.Softmax(scores, -1)
	att := weights
	if o.Dropout != nil {
		att = o.Dropout.Forward(weights, training)
	}
	return ag.MatMul(att, v, false, false), weights
}

// additiveMask turns a bool mask (true = masked) into 0/-inf of dtype dt and
// casts a float mask to dt.
func additiveMask(m *tensor.Tensor, dt tensor.DType) *tensor.Tensor {
	if m.DType() != tensor.Bool {
		if m.DType() == dt {
			return m
		}
		return m.Cast(dt)
	}
	v := m.Float64s()
	for i, b := range v {
		v[i] = 0
		if b != 0 {
			v[i] = math.Inf(-1)
		}
	}
	return tensor.FromSlice(v, m.Shape()...).Cast(dt)
}
