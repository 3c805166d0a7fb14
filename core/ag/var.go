// Package ag is paddle's dynamic-graph autograd over the op registry: a Var
// records the op that produced it; Backward walks the graph in reverse
// topological order and accumulates gradients with each op's VJP.
package ag

import (
	"fmt"
	"sync/atomic"

	"paddle/core/op"
	"paddle/core/tensor"
)

// Var is a tensor value in the autograd graph.
type Var struct {
	T    *tensor.Tensor // the value
	Grad *tensor.Tensor // accumulated gradient after Backward (nil until then)

	requiresGrad bool
	node         *node      // producer; nil for leaves
	idx          int        // which output of node
	onGrad       func(*Var) // SetGradHook's hook (leaves only)
}

type node struct {
	def   *op.Def
	attrs op.Attrs
	in    []*Var
	out   []*Var
}

// Param wraps t as a trainable leaf: Backward fills its Grad.
func Param(t *tensor.Tensor) *Var { return &Var{T: t, requiresGrad: true} }

// Const wraps t as a leaf that needs no gradient (inputs, labels).
func Const(t *tensor.Tensor) *Var { return &Var{T: t} }

// RequiresGrad reports whether gradients flow to v.
func (v *Var) RequiresGrad() bool { return v.requiresGrad }

// SetRequiresGrad marks a leaf as trainable or frozen.
func (v *Var) SetRequiresGrad(b bool) { v.requiresGrad = b }

// SetGradHook makes Backward call f(v) once v's gradient for that pass is
// final: after the last contribution from the graph being differentiated,
// while the rest of the backward pass still runs (a data-parallel run starts
// averaging gradients there). f is called once per Backward that reaches v
// — also when no gradient flowed to it (v.Grad then holds what it held
// before) — and not at all by a Backward whose graph does not use v. It is
// for trainable leaves (Param); nil removes the hook. f runs on Backward's
// goroutine and must not change v.Grad's shape.
func (v *Var) SetGradHook(f func(*Var)) {
	if v.node != nil {
		panic("ag: SetGradHook on a computed value; hooks are for leaves")
	}
	v.onGrad = f
}

// Detach returns v's value as a new leaf with no history.
func (v *Var) Detach() *Var { return Const(v.T) }

// Shape returns the value's shape.
func (v *Var) Shape() tensor.Shape { return v.T.Shape() }

// DType returns the value's dtype.
func (v *Var) DType() tensor.DType { return v.T.DType() }

// Item returns the single element of a one-element value.
func (v *Var) Item() float64 { return v.T.Item() }

// ZeroGrad drops the accumulated gradient.
func (v *Var) ZeroGrad() { v.Grad = nil }

func (v *Var) String() string { return fmt.Sprintf("Var(%v)", v.T) }

var noGrad atomic.Int32

// NoGrad runs f without recording the graph (evaluation, inference).
// It is process-wide: do not train in other goroutines meanwhile.
func NoGrad(f func()) {
	noGrad.Add(1)
	defer noGrad.Add(-1)
	f()
}

// Recording reports whether ops are being recorded for Backward.
func Recording() bool { return noGrad.Load() == 0 }

// Apply runs the primitive d on the inputs and records it for Backward when
// any input requires a gradient.
func Apply(d *op.Def, attrs op.Attrs, in ...*Var) []*Var {
	vals := make([]*tensor.Tensor, len(in))
	needs := false
	for i, v := range in {
		vals[i] = v.T
		needs = needs || v.requiresGrad
	}
	outs := op.Call(d, attrs, vals...)
	res := make([]*Var, len(outs))
	for i, o := range outs {
		res[i] = &Var{T: o}
	}
	grad := needs && Recording() && d.VJP != nil
	if grad || tracing.Load() > 0 {
		n := &node{def: d, attrs: attrs, in: in, out: res}
		for i, r := range res {
			r.requiresGrad, r.node, r.idx = grad, n, i
		}
	}
	return res
}

var tracing atomic.Int32

// Trace runs f recording every op application, also those no gradient flows
// through (inputs that need none, ops without a VJP, inside NoGrad), so that a
// tracer (core/graph/trace) can rebuild the whole computation from its
// outputs with Producer. Composite layers whose ONNX twin is one op (nn.LSTM,
// nn.GRU) apply that op instead of their unrolled primitives while Tracing
// reports true. Like NoGrad it is process-wide.
func Trace(f func()) {
	tracing.Add(1)
	defer tracing.Add(-1)
	f()
}

// Tracing reports whether a Trace is running.
func Tracing() bool { return tracing.Load() > 0 }

// Producer returns the recorded op application that computed v: its op,
// attributes, inputs and outputs (v is out[index]); ok is false for a leaf
// (Param, Const) and for a value computed while nothing was recorded. The
// slices are the tape's own and must not be modified.
func (v *Var) Producer() (d *op.Def, attrs op.Attrs, in, out []*Var, index int, ok bool) {
	if v.node == nil {
		return nil, nil, nil, nil, 0, false
	}
	n := v.node
	return n.def, n.attrs, n.in, n.out, v.idx, true
}

func apply1(name string, attrs op.Attrs, in ...*Var) *Var {
	d := op.Lookup(name)
	if d == nil {
		panic("ag: no op named " + name)
	}
	return Apply(d, attrs, in...)[0]
}

// Backward computes d(y)/d(v) for every v that y depends on and that requires
// a gradient, adding into v.Grad. y must hold a single element.
func (y *Var) Backward() {
	if y.T.Len() != 1 {
		panic(fmt.Sprintf("ag: Backward of a non-scalar %v", y.T.Shape()))
	}
	y.BackwardWith(tensor.OnesLike(y.T))
}

// BackwardWith is Backward with an explicit upstream gradient of y's shape.
func (y *Var) BackwardWith(g *tensor.Tensor) {
	y.accumulate(g)
	order := topo(y)
	if y.node == nil && y.onGrad != nil {
		y.onGrad(y)
	}
	pending := hooked(order)
	for i := len(order) - 1; i >= 0; i-- {
		n := order[i]
		n.backward(y)
		for _, v := range n.in { // a hooked leaf's last consumer is done: its gradient is final
			if k, ok := pending[v]; ok {
				if pending[v] = k - 1; k == 1 {
					v.onGrad(v)
				}
			}
		}
	}
}

// hooked counts, for every leaf with a gradient hook, the inputs of the
// graph's nodes that it is (one per use).
func hooked(order []*node) map[*Var]int {
	var pending map[*Var]int
	for _, n := range order {
		for _, v := range n.in {
			if v.onGrad != nil && v.node == nil && v.requiresGrad {
				if pending == nil {
					pending = map[*Var]int{}
				}
				pending[v]++
			}
		}
	}
	return pending
}

// backward runs n's VJP on its outputs' gradients (y is the value Backward
// started from) and adds the results to its inputs' gradients.
func (n *node) backward(y *Var) {
	gout := make([]*tensor.Tensor, len(n.out))
	any := false
	for j, o := range n.out {
		gout[j] = o.Grad
		any = any || o.Grad != nil
	}
	if !any || n.def.VJP == nil { // nodes a Trace recorded carry no gradient
		return
	}
	ins := make([]*tensor.Tensor, len(n.in))
	for j, v := range n.in {
		ins[j] = v.T
	}
	outs := make([]*tensor.Tensor, len(n.out))
	for j, o := range n.out {
		outs[j] = o.T
	}
	grads := n.def.VJP(&op.VJPCtx{In: ins, Out: outs, GradOut: gout, Attrs: n.attrs})
	for j, g := range grads {
		if g != nil && n.in[j].requiresGrad {
			n.in[j].accumulate(g) // always +=: a Var can feed many nodes
		}
	}
	// intermediate gradients are not needed after their node ran
	for _, o := range n.out {
		if o != y {
			o.Grad = nil
		}
	}
}

func (v *Var) accumulate(g *tensor.Tensor) {
	if !g.Shape().Equal(v.T.Shape()) {
		panic(fmt.Sprintf("ag: gradient shape %v for value %v", g.Shape(), v.T.Shape()))
	}
	if v.Grad == nil {
		v.Grad = g.Contiguous()
		if v.Grad == g && v.node == nil {
			v.Grad = g.Clone() // leaves own their gradient buffer
		}
		return
	}
	v.Grad = op.Add(v.Grad, g)
}

// topo returns the nodes y depends on, producers before consumers, found by
// an iterative DFS (deep graphs must not overflow the stack).
func topo(y *Var) []*node {
	if y.node == nil {
		return nil
	}
	var order []*node
	seen := map[*node]bool{}
	type frame struct {
		n    *node
		next int
	}
	stack := []frame{{n: y.node}}
	seen[y.node] = true
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next < len(f.n.in) {
			p := f.n.in[f.next].node
			f.next++
			if p != nil && !seen[p] {
				seen[p] = true
				stack = append(stack, frame{n: p})
			}
			continue
		}
		order = append(order, f.n)
		stack = stack[:len(stack)-1]
	}
	return order
}
