package nn

import "paddle/core/ag"

// Small helpers over the core/ag movement ops.

// narrow returns x[..., start:end, ...] along axis.
func narrow(x *ag.Var, axis, start, end int) *ag.Var {
	return ag.Slice(x, []int{start}, []int{end}, []int{axis}, []int{1})
}

// concat joins xs along axis (one input is returned as is).
func concat(axis int, xs ...*ag.Var) *ag.Var {
	if len(xs) == 1 {
		return xs[0]
	}
	return ag.Concat(axis, xs...)
}

// chunk splits x into n equal parts along axis.
func chunk(x *ag.Var, axis, n int) []*ag.Var {
	sizes := make([]int, n)
	for i := range sizes {
		sizes[i] = x.Shape()[axis] / n
	}
	return ag.Split(x, axis, sizes...)
}
