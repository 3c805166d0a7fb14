package nn

import (
	"fmt"

	"paddle/core/ag"
	"paddle/core/op"
	"paddle/core/tensor"
)

// SumAcross sums each of xs (float32 or float64, any shape) over the ranks
// of a data-parallel run in one all-reduce: a loss normalised over the
// whole batch (a mean over valid pixels, a weighted mean) computes its sums
// and normalisers with it, so every rank's loss has the value one process
// has for the global batch. The gradient is that of each rank's copy of the
// loss summed over the ranks, which is Size × the upstream gradient (every
// rank's is the same, computed from the same sums): the training loop
// averages gradients over the ranks, which leaves each rank's own samples'
// part of the one-process gradient. r nil, or of one rank, returns xs.
// A failed all-reduce panics with a *CollectiveError (the training loop
// turns it into its error).
func SumAcross(r Reducer, xs ...*ag.Var) []*ag.Var {
	if r == nil || r.Size() <= 1 {
		return xs
	}
	return ag.Apply(sumAcrossDef(r), nil, xs...)
}

func sumAcrossDef(r Reducer) *op.Def {
	return &op.Def{
		Name: "sum_across_ranks", Arity: -1,
		Infer: func(in []op.Meta, _ op.Attrs) ([]op.Meta, error) {
			for i, m := range in {
				if m.DType != tensor.Float32 && m.DType != tensor.Float64 {
					return nil, fmt.Errorf("input %d is %v, want float32 or float64", i, m.DType)
				}
			}
			return in, nil
		},
		Ref: func(out, in []*op.T, _ op.Attrs) {
			var buf []float64
			for _, t := range in {
				buf = append(buf, t.Float64s()...)
			}
			if err := r.AllreduceF64(buf); err != nil {
				panic(&CollectiveError{What: "sum across ranks", Err: err})
			}
			for _, t := range out {
				n := t.Len()
				if t.DType() == tensor.Float32 {
					for k, v := range buf[:n] {
						t.F32()[k] = float32(v)
					}
				} else {
					copy(t.F64(), buf[:n])
				}
				buf = buf[n:]
			}
		},
		VJP: func(c *op.VJPCtx) []*op.T {
			n := float64(r.Size())
			gs := make([]*op.T, len(c.In))
			for i := range c.In {
				g := c.G(i).Contiguous()
				s := tensor.New(g.DType(), g.Shape()...)
				if g.DType() == tensor.Float32 {
					for k, v := range g.F32() {
						s.F32()[k] = v * float32(n)
					}
				} else {
					for k, v := range g.F64() {
						s.F64()[k] = v * n
					}
				}
				gs[i] = s
			}
			return gs
		},
	}
}
