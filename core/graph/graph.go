// Package graph is the static IR: nodes of registry ops (core/op) over typed
// values, built by ONNX import (core/onnx) or by tracing, optimised by the
// passes in graph/pass and executed by core/runtime.
//
// Shape-valued inputs. Some ONNX ops take tensors where the registry takes
// attributes (Reshape's shape, Slice's starts, Resize's scales...). A Node
// keeps such inputs in AttrIn: each names the attribute its value supplies
// and how to read it (AttrKind). When the value is a constant, the importer
// folds it into Attrs; when it is computed at run time (Shape → Gather →
// Concat chains), Infer folds it once the input shapes are known, and the
// runtime reads it from the computed tensor otherwise.
//
// Where things are:
//
//	graph.go   Graph, Node, Value, AttrIn; validation, topological order
//	attrs.go   ResolveAttrs: attribute values from shape-valued inputs
//	infer.go   Infer: shapes, dtypes and small constant values for given input shapes
//	dump.go    String: the readable text form
package graph

import (
	"fmt"

	"paddle/core/op"
	"paddle/core/tensor"
)

// Value is one tensor of the graph: a graph input, a constant, or the output
// of exactly one node.
type Value struct {
	Name string
	// Meta is what is known statically: DType is always set; Shape is nil
	// when even the rank is unknown and holds -1 for unknown dimensions.
	Meta op.Meta
	// DimNames names the dynamic dimensions of graph inputs ("batch"), "" elsewhere.
	DimNames []string
	// Const holds the value of a constant (initializer, Constant node), else nil.
	Const *tensor.Tensor
	// Param marks a constant that is a trainable weight (DESIGN §10).
	Param bool
}

// IsConst reports whether v holds a constant value.
func (v *Value) IsConst() bool { return v.Const != nil }

// AttrKind says how a shape-valued input becomes an attribute value (op.AttrKind).
type AttrKind = op.AttrKind

// The ways a shape-valued input is read (see op.AttrKind).
const (
	AttrInts          = op.AttrInts
	AttrInt           = op.AttrInt
	AttrFloat         = op.AttrFloat
	AttrFloats        = op.AttrFloats
	AttrReshape       = op.AttrReshape
	AttrIntsKeepEmpty = op.AttrIntsKeepEmpty
	AttrResizeScales  = op.AttrResizeScales
	AttrResizeSizes   = op.AttrResizeSizes
)

// AttrIn is a tensor input whose value supplies attribute Attr at run time.
type AttrIn struct {
	Attr string
	Kind AttrKind
	V    *Value
}

// Node is one application of a registry op.
type Node struct {
	Op      *op.Def
	Attrs   op.Attrs
	In, Out []*Value
	// AttrIn are the shape-valued inputs not yet folded into Attrs.
	AttrIn []AttrIn
	// ShapeAttrs, if set, computes attributes that depend on the input
	// shapes (ONNX ConvTranspose's output_shape, say) once they are known;
	// it returns a new map and must not modify a.
	ShapeAttrs func(in []op.Meta, a op.Attrs) (op.Attrs, error)
	// Name is the node's name in the source model (for error messages).
	Name string
	// Branches are the then and else graphs of an If node (Op == IfOp):
	// In[0] is the condition, In[1:] the outer values the branches read,
	// matched by position with each branch's Inputs; each branch's Outputs
	// match Out.
	Branches []*Graph
}

// IfOp marks control-flow If nodes (see Node.Branches). It is not in the op
// registry: graph.Infer, the runtime and the passes handle it themselves.
var IfOp = &op.Def{Name: "if", Arity: -1}

// Inputs returns every value n reads: In, then the AttrIn values.
func (n *Node) Inputs() []*Value {
	if len(n.AttrIn) == 0 {
		return n.In
	}
	out := append([]*Value(nil), n.In...)
	for _, a := range n.AttrIn {
		out = append(out, a.V)
	}
	return out
}

// Dynamic reports whether n's attributes depend on its inputs' values or
// shapes (AttrIn or ShapeAttrs), so ResolveAttrs must run before the op.
func (n *Node) Dynamic() bool { return len(n.AttrIn) > 0 || n.ShapeAttrs != nil }

// Label is the node's name and op for messages: `"Conv_12" (conv2d)`.
func (n *Node) Label() string { return fmt.Sprintf("%q (%s)", n.Name, n.Op.Name) }

// Graph is a static computation: named inputs and outputs and the nodes
// between them, in topological order once Sort has run.
type Graph struct {
	Name            string
	Inputs, Outputs []*Value
	// OutputNames are the outputs' names in the source model, where they
	// differ from the values' names (an output that is an Identity of another
	// value); nil means the values' names.
	OutputNames []string
	Nodes       []*Node
}

// OutputName returns the name of output i.
func (g *Graph) OutputName(i int) string {
	if i < len(g.OutputNames) && g.OutputNames[i] != "" {
		return g.OutputNames[i]
	}
	return g.Outputs[i].Name
}

// Consts returns the constant values the nodes read, in first-use order.
func (g *Graph) Consts() []*Value {
	seen := map[*Value]bool{}
	var out []*Value
	add := func(v *Value) {
		if v.Const != nil && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, n := range g.Nodes {
		for _, v := range n.Inputs() {
			add(v)
		}
	}
	for _, v := range g.Outputs {
		add(v)
	}
	return out
}

// Params returns the trainable constants (Param set), in first-use order.
func (g *Graph) Params() []*Value {
	var out []*Value
	for _, v := range g.Consts() {
		if v.Param {
			out = append(out, v)
		}
	}
	return out
}

// Producers maps each node output to its node.
func (g *Graph) Producers() map[*Value]*Node {
	p := make(map[*Value]*Node, len(g.Nodes))
	for _, n := range g.Nodes {
		for _, v := range n.Out {
			p[v] = n
		}
	}
	return p
}

// Validate checks that every value a node or the graph output reads is a
// graph input, a constant or the output of exactly one node, that nothing
// writes a graph input or constant, and that the nodes form no cycle. It
// does not reorder the nodes (see Sort).
func (g *Graph) Validate() error {
	_, err := g.order()
	return err
}

// Sort reorders the nodes topologically, keeping the given order where it
// already is one, and validates the graph.
func (g *Graph) Sort() error {
	order, err := g.order()
	if err != nil {
		return err
	}
	g.Nodes = order
	return nil
}

func (g *Graph) order() ([]*Node, error) {
	isInput := map[*Value]bool{}
	for _, v := range g.Inputs {
		if v.Const != nil {
			return nil, fmt.Errorf("graph: input %q is a constant", v.Name)
		}
		isInput[v] = true
	}
	prod := map[*Value]*Node{}
	for _, n := range g.Nodes {
		if n.Op == nil {
			return nil, fmt.Errorf("graph: node %q has no op", n.Name)
		}
		for _, v := range n.Out {
			if v.Const != nil || isInput[v] {
				return nil, fmt.Errorf("graph: node %s writes %q, a graph input or constant", n.Label(), v.Name)
			}
			if p, dup := prod[v]; dup {
				return nil, fmt.Errorf("graph: value %q is produced by both %s and %s", v.Name, p.Label(), n.Label())
			}
			prod[v] = n
		}
	}
	// check names its user (a node, or the graph's outputs when n is nil)
	// only on error: labels cost a Sprintf each.
	check := func(v *Value, n *Node) error {
		if v != nil && (v.Const != nil || isInput[v] || prod[v] != nil) {
			return nil
		}
		user := "graph output"
		if n != nil {
			user = "node " + n.Label()
		}
		if v == nil {
			return fmt.Errorf("graph: %s reads a nil value", user)
		}
		return fmt.Errorf("graph: %s reads %q, which no node produces", user, v.Name)
	}
	// Kahn's algorithm; the ready list is kept in original order.
	pending := make(map[*Node]int, len(g.Nodes))
	users := map[*Value][]*Node{}
	for _, n := range g.Nodes {
		for _, v := range n.Inputs() {
			if err := check(v, n); err != nil {
				return nil, err
			}
			if prod[v] != nil {
				pending[n]++
				users[v] = append(users[v], n)
			}
		}
	}
	for _, v := range g.Outputs {
		if err := check(v, nil); err != nil {
			return nil, err
		}
	}
	index := make(map[*Node]int, len(g.Nodes))
	for i, n := range g.Nodes {
		index[n] = i
	}
	done := make([]bool, len(g.Nodes))
	out := make([]*Node, 0, len(g.Nodes))
	// Each step takes the lowest ready index, so the original order is kept
	// wherever it is already topological.
	ready := make([]bool, len(g.Nodes))
	for i, n := range g.Nodes {
		ready[i] = pending[n] == 0
	}
	for lo := 0; len(out) < len(g.Nodes); {
		i := lo
		for i < len(g.Nodes) && (done[i] || !ready[i]) {
			i++
		}
		if i == len(g.Nodes) {
			for j, n := range g.Nodes {
				if !done[j] {
					return nil, fmt.Errorf("graph: cycle through node %s", n.Label())
				}
			}
		}
		n := g.Nodes[i]
		done[i] = true
		out = append(out, n)
		lo = i
		for _, v := range n.Out {
			for _, u := range users[v] {
				if pending[u]--; pending[u] == 0 {
					j := index[u]
					ready[j] = true
					lo = min(lo, j)
				}
			}
		}
	}
	return out, nil
}

// Uses counts, for each value, the nodes (and graph outputs) that read it.
func (g *Graph) Uses() map[*Value]int {
	u := map[*Value]int{}
	for _, n := range g.Nodes {
		for _, v := range n.Inputs() {
			u[v]++
		}
	}
	for _, v := range g.Outputs {
		u[v]++
	}
	return u
}
