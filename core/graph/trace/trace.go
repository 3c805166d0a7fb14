// Package trace builds the static IR (core/graph) of a model by running its
// forward pass once, in eval mode, on example inputs: ag.Trace records every
// op application, and the graph is read back from the outputs to the inputs
// with ag's Var.Producer. Parameters and buffers become constant values with
// their dotted names (nn.Module Params / Buffers; parameters are marked
// Param), inputs keep the dynamic dimensions their InputSpec declares.
//
// Dynamic dimensions. Go code reads concrete sizes (x.Shape()[0]), so a
// traced reshape holds the example's batch size. After tracing, the shapes
// are propagated a second time with every dynamic dimension changed
// (dynamic.go): a reshape that copies a dynamic input dimension gets ONNX's
// 0 ("copy") there and -1 where the rest goes, a slice to the end of a
// dynamic axis slices to the end whatever its length, and any other node the
// new sizes do not fit through is an error naming it. Constants a forward
// pass builds from the example's sizes (a zero state of (N, H)) are baked
// in: use example sizes > 1 for dynamic dimensions so such a constant fails
// the check instead of broadcasting.
//
// Composites whose ONNX twin is one op (nn.LSTM, nn.GRU) apply that op while
// tracing (see ag.Trace), so recurrent models keep a dynamic sequence length;
// softmax and layer_norm are primitives already (the twins, onnx_lstm and
// onnx_gru, are core/op primitives like every other op).
package trace

import (
	"fmt"

	"paddle/core/ag"
	"paddle/core/graph"
	"paddle/core/nn"
	"paddle/core/op"
	"paddle/core/tensor"
)

// InputSpec describes one graph input.
type InputSpec struct {
	Name string
	// Shape has -1 for each dynamic dimension; the example fixes the others.
	Shape []int
	// DimNames names the dimensions ("batch", "", "height", "width"); only
	// the names of dynamic ones are kept. Dimensions of several inputs with
	// one name vary together.
	DimNames []string
}

// Layer traces l.Forward(x, false) for the example x and returns a graph
// with one input (in.Name) and one output named "output".
func Layer(l nn.Layer, in InputSpec, example *tensor.Tensor) (*graph.Graph, error) {
	return Func(l, []InputSpec{in}, []*tensor.Tensor{example}, []string{"output"},
		func(xs []*ag.Var) []*ag.Var { return []*ag.Var{l.Forward(xs[0], false)} })
}

// Func traces f, a forward computation of m over the inputs (in eval mode:
// f must not train), for the given examples, and returns the graph with the
// named outputs. m's parameters and buffers are found by identity among the
// values f reads; other leaves become constants.
func Func(m nn.Module, inputs []InputSpec, examples []*tensor.Tensor, outputs []string, f func([]*ag.Var) []*ag.Var) (g *graph.Graph, err error) {
	if len(inputs) != len(examples) {
		return nil, fmt.Errorf("trace: %d input specs for %d examples", len(inputs), len(examples))
	}
	for i, s := range inputs {
		if err := checkExample(s, examples[i]); err != nil {
			return nil, err
		}
	}
	xs := make([]*ag.Var, len(examples))
	for i, e := range examples {
		xs[i] = ag.Const(e)
	}
	var ys []*ag.Var
	if err := run(func() { ys = f(xs) }); err != nil {
		return nil, err
	}
	if len(ys) != len(outputs) {
		return nil, fmt.Errorf("trace: the forward pass returned %d outputs for %d names", len(ys), len(outputs))
	}
	b := newBuilder(m, inputs, xs)
	g = &graph.Graph{Name: "paddle", Inputs: b.inputs, OutputNames: append([]string(nil), outputs...)}
	for _, y := range ys {
		v, err := b.value(y)
		if err != nil {
			return nil, err
		}
		g.Outputs = append(g.Outputs, v)
	}
	g.Nodes = b.nodes
	if err := g.Sort(); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if err := makeDynamic(g, inputs); err != nil {
		return nil, err
	}
	return g, nil
}

// run calls f under ag.Trace and turns a shape error into an error.
func run(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			se, ok := r.(*op.ShapeError)
			if !ok {
				panic(r)
			}
			err = fmt.Errorf("trace: %w", se)
		}
	}()
	ag.Trace(f)
	return nil
}

func checkExample(s InputSpec, t *tensor.Tensor) error {
	if t == nil {
		return fmt.Errorf("trace: input %q has no example", s.Name)
	}
	if s.Name == "" {
		return fmt.Errorf("trace: an input has no name")
	}
	if len(s.Shape) != len(t.Shape()) {
		return fmt.Errorf("trace: input %q: example %v, want rank %d (%v)", s.Name, t.Shape(), len(s.Shape), s.Shape)
	}
	for i, d := range s.Shape {
		if d >= 0 && d != t.Shape()[i] {
			return fmt.Errorf("trace: input %q: example %v does not fit %v", s.Name, t.Shape(), s.Shape)
		}
	}
	return nil
}

// builder turns the recorded tape into graph values and nodes.
type builder struct {
	inputs []*graph.Value
	vals   map[*ag.Var]*graph.Value
	names  map[*tensor.Tensor]string // parameter and buffer tensors
	params map[*tensor.Tensor]bool
	byT    map[*tensor.Tensor]*graph.Value // one value per constant tensor
	nodes  []*graph.Node
	used   map[string]bool
	n      int
}

func newBuilder(m nn.Module, specs []InputSpec, xs []*ag.Var) *builder {
	b := &builder{vals: map[*ag.Var]*graph.Value{}, names: map[*tensor.Tensor]string{},
		params: map[*tensor.Tensor]bool{}, byT: map[*tensor.Tensor]*graph.Value{}, used: map[string]bool{}}
	for i, s := range specs {
		v := &graph.Value{Name: s.Name, Meta: op.Meta{DType: xs[i].DType(), Shape: append(tensor.Shape(nil), xs[i].Shape()...)}}
		b.used[s.Name] = true
		b.vals[xs[i]] = v
		b.byT[xs[i].T] = v // a Const the forward makes of the input's tensor is the input
		b.inputs = append(b.inputs, v)
	}
	if m != nil {
		for _, p := range m.Params() {
			b.names[p.V.T], b.params[p.V.T] = p.Name, true
		}
		for _, p := range nn.Buffers(m) {
			b.names[p.V.T] = p.Name
		}
	}
	return b
}

func (b *builder) fresh(base string) string {
	s := base
	for b.used[s] {
		b.n++
		s = fmt.Sprintf("%s_%d", base, b.n)
	}
	b.used[s] = true
	return s
}

// value returns y's graph value, building its producers first (an
// iterative post-order walk: deep recurrences must not overflow the stack).
func (b *builder) value(y *ag.Var) (*graph.Value, error) {
	type frame struct {
		v    *ag.Var
		next int
	}
	stack := []frame{{v: y}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if _, done := b.vals[f.v]; done {
			stack = stack[:len(stack)-1]
			continue
		}
		_, _, in, _, _, ok := f.v.Producer()
		if !ok {
			b.leaf(f.v)
			stack = stack[:len(stack)-1]
			continue
		}
		if f.next < len(in) {
			x := in[f.next]
			f.next++
			if _, done := b.vals[x]; !done {
				stack = append(stack, frame{v: x})
			}
			continue
		}
		b.node(f.v)
		stack = stack[:len(stack)-1]
	}
	return b.vals[y], nil
}

// leaf makes a constant of a parameter, buffer or other leaf value.
func (b *builder) leaf(v *ag.Var) {
	if c, ok := b.byT[v.T]; ok {
		b.vals[v] = c
		return
	}
	name, ok := b.names[v.T]
	if !ok {
		name = "const"
	}
	c := &graph.Value{Name: b.fresh(name), Meta: graph.ConstMeta(v.T), Const: v.T.Contiguous().Clone(), Param: b.params[v.T]}
	b.vals[v], b.byT[v.T] = c, c
}

// node adds the application that produced v (all its outputs at once).
func (b *builder) node(v *ag.Var) {
	d, attrs, in, out, _, _ := v.Producer()
	n := &graph.Node{Op: d, Attrs: copyAttrs(attrs), Name: b.fresh(d.Name)}
	for _, x := range in {
		n.In = append(n.In, b.vals[x])
	}
	for _, o := range out {
		gv := &graph.Value{Name: b.fresh(d.Name + "_out"), Meta: op.Meta{DType: o.DType(), Shape: append(tensor.Shape(nil), o.Shape()...)}}
		b.vals[o] = gv
		n.Out = append(n.Out, gv)
	}
	b.nodes = append(b.nodes, n)
}

// copyAttrs copies the map and its list values, so rewriting a graph's
// attributes never changes the tape's.
func copyAttrs(a op.Attrs) op.Attrs {
	out := make(op.Attrs, len(a))
	for k, v := range a {
		switch x := v.(type) {
		case []int:
			out[k] = append([]int(nil), x...)
		case []float64:
			out[k] = append([]float64(nil), x...)
		default:
			out[k] = v
		}
	}
	return out
}
