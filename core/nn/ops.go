package nn

import (
	"paddle/core/ag"
	"paddle/core/op"
)

// call applies a primitive by op name, for the conv/pool/norm/resize ops
// whose core/ag wrappers were being written alongside this package.
// TODO(nn): use the core/ag wrappers (ops_conv.go) once they have landed.
func call(name string, attrs op.Attrs, in ...*ag.Var) *ag.Var { return callN(name, attrs, in...)[0] }

func callN(name string, attrs op.Attrs, in ...*ag.Var) []*ag.Var {
	d := op.Lookup(name)
	if d == nil {
		panic("nn: no op named " + name) // a programmer error: names are fixed in code
	}
	return ag.Apply(d, attrs, in...)
}

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
