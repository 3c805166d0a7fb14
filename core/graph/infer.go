package graph

import (
	"fmt"

	"paddle/core/op"
	"paddle/core/tensor"
)

// FoldLimit is the largest number of elements Infer computes for a value
// whose inputs are all known (shape arithmetic is far smaller).
const FoldLimit = 1 << 16

// Shapes is what Infer learned for one set of input shapes.
type Shapes struct {
	// Meta holds each value's dtype and shape (dims -1 where still unknown).
	Meta map[*Value]op.Meta
	// Known holds the values Infer computed: outputs of nodes whose inputs
	// were all constants or known (Shape of a known shape, and what follows).
	Known map[*Value]*tensor.Tensor
	// Attrs holds the resolved attributes of nodes with AttrIn, where all were known.
	Attrs map[*Node]op.Attrs
	// Folded marks the nodes whose outputs are all in Known.
	Folded map[*Node]bool
	// Complete reports that every value's shape is fully known and every
	// AttrIn resolved, so the shapes hold for any inputs of these shapes.
	Complete bool
}

// ConstMeta is the meta of a known tensor, with a rank-0 shape non-nil
// (a nil Shape in a Meta means an unknown rank).
func ConstMeta(t *tensor.Tensor) op.Meta {
	m := op.MetaOf(t)
	if m.Shape == nil {
		m.Shape = tensor.Shape{}
	}
	return m
}

// KnownShape reports whether s is a shape with every dimension known.
func KnownShape(s tensor.Shape) bool {
	if s == nil {
		return false
	}
	for _, d := range s {
		if d < 0 {
			return false
		}
	}
	return true
}

// Value returns the constant or computed value of v, or nil.
func (s *Shapes) Value(v *Value) *tensor.Tensor {
	if v.Const != nil && !v.Param {
		return v.Const
	}
	return s.Known[v]
}

// Infer propagates dtypes and shapes through g (sorted) from the given input
// metas (by input name; inputs not given keep their static Meta), using each
// op's Infer. Small values computed only from shapes and constants are
// evaluated on the way, so Shape → Gather → Concat → Reshape chains resolve.
// An op that rejects its input shapes is an error naming the node.
func Infer(g *Graph, inputs map[string]op.Meta) (*Shapes, error) {
	s := &Shapes{Meta: map[*Value]op.Meta{}, Known: map[*Value]*tensor.Tensor{},
		Attrs: map[*Node]op.Attrs{}, Folded: map[*Node]bool{}, Complete: true}
	for _, v := range g.Inputs {
		m := v.Meta
		if im, ok := inputs[v.Name]; ok {
			if m.Shape != nil && len(im.Shape) != len(m.Shape) {
				return nil, fmt.Errorf("graph: input %q has rank %d, got shape %v", v.Name, len(m.Shape), im.Shape)
			}
			for i, d := range m.Shape {
				if d >= 0 && im.Shape[i] != d {
					return nil, fmt.Errorf("graph: input %q wants shape %v, got %v", v.Name, m.Shape, im.Shape)
				}
			}
			m = im
			if m.Shape == nil {
				m.Shape = tensor.Shape{}
			}
		}
		s.Meta[v] = m
	}
	meta := func(v *Value) op.Meta {
		if v.Const != nil {
			return ConstMeta(v.Const)
		}
		if m, ok := s.Meta[v]; ok {
			return m
		}
		return v.Meta
	}
	for _, n := range g.Nodes {
		if n.Op == IfOp {
			if err := s.inferIf(n, meta); err != nil {
				return nil, err
			}
			continue
		}
		in := make([]op.Meta, len(n.In))
		known := true
		for i, v := range n.In {
			in[i] = meta(v)
			if !KnownShape(in[i].Shape) {
				known = false
			}
		}
		attrs := n.Attrs
		if n.Dynamic() {
			vals := make([]*tensor.Tensor, len(n.AttrIn))
			for i, ai := range n.AttrIn {
				if vals[i] = s.Value(ai.V); vals[i] == nil {
					known = false
				}
			}
			if known {
				a, err := ResolveAttrs(n, vals, in)
				if err != nil {
					return nil, err
				}
				attrs = a
				s.Attrs[n] = a
			}
		}
		if !known {
			s.Complete = false
			for _, v := range n.Out {
				s.Meta[v] = v.Meta
			}
			continue
		}
		out, err := n.Op.InferMeta(in, attrs)
		if err != nil {
			return nil, fmt.Errorf("graph: node %s: %w", n.Label(), err)
		}
		if len(out) < len(n.Out) {
			return nil, fmt.Errorf("graph: node %s has %d outputs, op gives %d", n.Label(), len(n.Out), len(out))
		}
		for i, v := range n.Out {
			if out[i].Shape == nil { // a scalar: known, rank 0
				out[i].Shape = tensor.Shape{}
			}
			s.Meta[v] = out[i]
		}
		if err := s.fold(n, in, out, attrs); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// inferIf infers the branch an If node takes when its condition is known;
// otherwise its outputs stay unknown.
func (s *Shapes) inferIf(n *Node, meta func(*Value) op.Meta) error {
	cond := s.Value(n.In[0])
	if cond == nil || cond.Len() != 1 {
		s.Complete = false
		for _, v := range n.Out {
			s.Meta[v] = v.Meta
		}
		return nil
	}
	b := n.Branches[1]
	if cond.Float64s()[0] != 0 {
		b = n.Branches[0]
	}
	in := map[string]op.Meta{}
	for i, v := range b.Inputs {
		in[v.Name] = meta(n.In[1+i])
	}
	bs, err := Infer(b, in)
	if err != nil {
		return fmt.Errorf("graph: node %s: %w", n.Label(), err)
	}
	s.Complete = s.Complete && bs.Complete
	for i, v := range n.Out {
		o := b.Outputs[i]
		if o.Const != nil {
			s.Meta[v] = ConstMeta(o.Const)
		} else if m, ok := bs.Meta[o]; ok {
			s.Meta[v] = m
		} else {
			s.Meta[v] = v.Meta
		}
	}
	return nil
}

// fold evaluates n when its inputs are known (or it is a Shape) and its outputs small.
func (s *Shapes) fold(n *Node, in, out []op.Meta, attrs op.Attrs) (err error) {
	total := 0
	for _, m := range out {
		total += m.Shape.NumElements()
	}
	if total > FoldLimit {
		return nil
	}
	args := make([]*tensor.Tensor, len(n.In))
	for i, v := range n.In {
		if n.Op.Name == "shape" {
			// only the shape is read: a broadcast view costs nothing
			args[i] = tensor.New(in[i].DType, 1).Reshape(onesOfRank(len(in[i].Shape))...).BroadcastTo(in[i].Shape...)
			continue
		}
		if args[i] = s.Value(v); args[i] == nil {
			return nil
		}
		args[i] = args[i].Contiguous()
	}
	outs := make([]*tensor.Tensor, len(out))
	for i, m := range out {
		outs[i] = tensor.New(m.DType, m.Shape...)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("graph: node %s: %v", n.Label(), r)
		}
	}()
	op.Run(n.Op, outs, args, attrs)
	for i, v := range n.Out {
		s.Known[v] = outs[i]
	}
	s.Folded[n] = true
	return nil
}

func onesOfRank(r int) []int {
	o := make([]int, r)
	for i := range o {
		o[i] = 1
	}
	return o
}
