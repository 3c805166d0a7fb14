package nn

import (
	"paddle/core/ag"
	"paddle/core/op"
)

// Differentiable calls of primitives by op name, for the ops whose core/ag
// wrappers were being written alongside this package.
// TODO(nn): call the core/ag wrappers directly once all of them have landed.

func call(name string, attrs op.Attrs, in ...*ag.Var) *ag.Var {
	d := op.Lookup(name)
	if d == nil {
		panic("nn: no op named " + name) // a programmer error: names are fixed in code
	}
	return ag.Apply(d, attrs, in...)[0]
}

func sigmoid(x *ag.Var) *ag.Var { return call("sigmoid", nil, x) }
func tanh(x *ag.Var) *ag.Var    { return call("tanh", nil, x) }
func abs(x *ag.Var) *ag.Var     { return call("abs", nil, x) }
func sqrt(x *ag.Var) *ag.Var    { return call("sqrt", nil, x) }

func softmax(x *ag.Var, axis int) *ag.Var    { return call("softmax", op.Attrs{"axis": axis}, x) }
func logSoftmax(x *ag.Var, axis int) *ag.Var { return call("log_softmax", op.Attrs{"axis": axis}, x) }

// narrow returns x[..., start:end, ...] along axis.
func narrow(x *ag.Var, axis, start, end int) *ag.Var {
	return call("slice", op.Attrs{"starts": []int{start}, "ends": []int{end}, "axes": []int{axis}, "steps": []int{1}}, x)
}

func concat(axis int, xs ...*ag.Var) *ag.Var {
	if len(xs) == 1 {
		return xs[0]
	}
	return call("concat", op.Attrs{"axis": axis}, xs...)
}

func chunk(x *ag.Var, axis, n int) []*ag.Var {
	size := x.Shape()[axis] / n
	sizes := make([]int, n)
	for i := range sizes {
		sizes[i] = size
	}
	return ag.Apply(op.Lookup("split"), op.Attrs{"axis": axis, "sizes": sizes}, x)
}

func rsqrt(x *ag.Var) *ag.Var { return call("rsqrt", nil, x) }
