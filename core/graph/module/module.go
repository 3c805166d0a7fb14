// Package module runs a static graph (an imported ONNX model) on autograd,
// so it can be trained: its Param constants become trainable ag parameters
// (DESIGN §10), batch_norm statistics become buffers, and every node is an
// ag.Apply of its registry op. It implements nn.Module, nn.Bufferer and,
// for one-input one-output graphs, nn.Layer. core/runtime stays the
// inference path; this package is what fine-tuning uses.
package module

import (
	"fmt"

	"paddle/core/ag"
	"paddle/core/graph"
	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/tensor"
)

// Module is a graph bound to autograd variables.
type Module struct {
	g       *graph.Graph
	vars    map[*graph.Value]*ag.Var // constants: parameters, buffers, fixed constants
	params  []nn.Param
	buffers []nn.Param
}

// New binds g's constants: Param values become trainable parameters (copies,
// so training does not touch g), the running mean and variance inputs of
// batch_norm become buffers (copies), other constants stay shared constants.
func New(g *graph.Graph) (*Module, error) {
	if err := g.Sort(); err != nil {
		return nil, err
	}
	m := &Module{g: g, vars: map[*graph.Value]*ag.Var{}}
	stats := map[*graph.Value]bool{}
	for _, n := range g.Nodes {
		if n.Op.Name == "batch_norm" {
			stats[n.In[3]], stats[n.In[4]] = true, true
		}
	}
	for _, v := range g.Consts() {
		switch {
		case v.Param:
			p := ag.Param(v.Const.Clone())
			m.vars[v] = p
			m.params = append(m.params, nn.Param{Name: v.Name, V: p})
		case stats[v]:
			b := ag.Const(v.Const.Clone())
			m.vars[v] = b
			m.buffers = append(m.buffers, nn.Param{Name: v.Name, V: b})
		default:
			m.vars[v] = ag.Const(v.Const)
		}
	}
	return m, nil
}

// Params returns the trainable parameters, named by their graph values.
func (m *Module) Params() []nn.Param { return m.params }

// Buffers returns the batch-norm running statistics.
func (m *Module) Buffers() []nn.Param { return m.buffers }

// Forward runs a one-input one-output graph (nn.Layer). It panics with the
// error Run returns: a wrong input shape is a programmer error here.
func (m *Module) Forward(x *ag.Var, training bool) *ag.Var {
	if len(m.g.Inputs) != 1 || len(m.g.Outputs) != 1 {
		panic(fmt.Sprintf("module: Forward needs one input and one output, the graph has %d and %d", len(m.g.Inputs), len(m.g.Outputs)))
	}
	out, err := m.Run(map[string]*ag.Var{m.g.Inputs[0].Name: x}, training)
	if err != nil {
		panic(err)
	}
	return out[m.g.OutputName(0)]
}

// Run evaluates the graph on the named inputs. In training mode batch_norm
// normalises with the batch statistics and updates its running buffers
// (running = momentum·running + (1-momentum)·batch, ONNX's momentum,
// default 0.9; the variance is the biased one).
func (m *Module) Run(inputs map[string]*ag.Var, training bool) (out map[string]*ag.Var, err error) {
	vals := make(map[*graph.Value]*ag.Var, len(m.vars)+len(m.g.Nodes))
	for k, v := range m.vars {
		vals[k] = v
	}
	for _, v := range m.g.Inputs {
		x, ok := inputs[v.Name]
		if !ok {
			return nil, fmt.Errorf("module: missing input %q", v.Name)
		}
		vals[v] = x
	}
	for _, n := range m.g.Nodes {
		if err := m.node(n, vals, training); err != nil {
			return nil, err
		}
	}
	out = map[string]*ag.Var{}
	for i, v := range m.g.Outputs {
		out[m.g.OutputName(i)] = vals[v]
	}
	return out, nil
}

func (m *Module) node(n *graph.Node, vals map[*graph.Value]*ag.Var, training bool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("module: node %s: %v", n.Label(), r)
		}
	}()
	in := make([]*ag.Var, len(n.In))
	metas := make([]op.Meta, len(n.In))
	for i, v := range n.In {
		in[i] = vals[v]
		metas[i] = op.MetaOf(in[i].T)
	}
	av := make([]*tensor.Tensor, len(n.AttrIn))
	for i, a := range n.AttrIn {
		av[i] = vals[a.V].T
	}
	attrs, err := graph.ResolveAttrs(n, av, metas)
	if err != nil {
		return err
	}
	var outs []*ag.Var
	if training && n.Op.Name == "batch_norm" {
		outs = ag.Apply(op.Lookup("batch_norm_train"), op.Attrs{"epsilon": attrs.Float("epsilon", 1e-5)}, in[0], in[1], in[2])
		mom := attrs.Float("momentum", 0.9)
		for k, stat := range []*ag.Var{in[3], in[4]} {
			batch := outs[1+k].T
			stat.T = op.Add(op.Mul(stat.T, tensor.Full(stat.T.DType(), mom)), op.Mul(batch, tensor.Full(batch.DType(), 1-mom)))
		}
		outs = outs[:1]
	} else {
		outs = ag.Apply(n.Op, attrs, in...)
	}
	for i, v := range n.Out {
		vals[v] = outs[i]
	}
	return nil
}
