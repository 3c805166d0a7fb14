// Package onnx imports ONNX models into the static IR (core/graph) and
// exports graphs back to ONNX. It is driven by the op registry: an ONNX op
// whose twin is a primitive (op.LookupONNX) maps directly; ops that are
// composites here, or whose ONNX signature differs from the primitive's
// (attributes given as inputs, opset-dependent forms), go through the
// builders in ops_*.go.
//
// Shape-like inputs (Reshape's shape, Slice's starts, Resize's scales, ...)
// become attributes: folded right away when they are constants, otherwise
// kept as graph.AttrIn and resolved once input shapes are known (graph.Infer)
// or at run time (core/runtime).
//
// Where things are:
//
//	import.go      Import, ReadFile, the importer and the builder context
//	tensor.go      TensorProto <-> tensor conversion, dtype mapping
//	ops_basic.go   elementwise, variadic, Constant, Cast, Clip, Identity
//	ops_shape.go   Reshape, Squeeze, Slice, Split, Pad, Expand, Tile, ...
//	ops_nn.go      Conv, pools, norms, Gemm, Softmax, Resize, reductions
package onnx

import (
	"fmt"
	"path/filepath"
	"strings"

	"paddle/core/graph"
	"paddle/core/onnx/onnxpb"
	"paddle/core/op"
	"paddle/core/tensor"
)

// MinOpset and MaxOpset bound the default-domain opsets Import accepts.
const (
	MinOpset = 1
	MaxOpset = 21
)

// ReadFile reads an .onnx file (external data from its folder) and imports it.
func ReadFile(path string) (*graph.Graph, error) {
	m, err := onnxpb.ReadFile(path)
	if err != nil {
		return nil, err
	}
	g, err := Import(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return g, nil
}

// Import converts m's main graph into the IR. Float constants feeding the
// weight or bias inputs of Conv, ConvTranspose, Gemm, MatMul,
// BatchNormalization and LayerNormalization become parameters (Param).
func Import(m *onnxpb.Model) (*graph.Graph, error) {
	if m.Graph == nil {
		return nil, fmt.Errorf("onnx: model has no graph")
	}
	opset := int(m.OpsetVersion(""))
	if opset == 0 {
		opset = MaxOpset
	}
	if opset < MinOpset || opset > MaxOpset {
		return nil, fmt.Errorf("onnx: opset %d is not supported (want %d to %d)", opset, MinOpset, MaxOpset)
	}
	im := &importer{opset: opset, vals: map[string]*graph.Value{}, g: &graph.Graph{Name: m.Graph.Name}, params: map[string]bool{}}
	if err := im.graph(m.Graph); err != nil {
		return nil, err
	}
	if err := im.g.Sort(); err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	return im.g, nil
}

type importer struct {
	opset  int
	g      *graph.Graph
	vals   map[string]*graph.Value
	params map[string]bool // names of values that feed weight/bias inputs
	tmp    int
	// parent is the importer of the enclosing graph, for If branches; the
	// outer values a branch reads are captured: captured[i] is the outer
	// value that the branch's g.Inputs[i] stands for.
	parent   *importer
	captured []*graph.Value
}

// lookup finds the value named name here or, capturing it, in an enclosing graph.
func (im *importer) lookup(name string) *graph.Value {
	if v := im.vals[name]; v != nil {
		return v
	}
	if im.parent == nil {
		return nil
	}
	pv := im.parent.lookup(name)
	if pv == nil || pv.Const != nil {
		return pv
	}
	v := &graph.Value{Name: name, Meta: pv.Meta, DimNames: pv.DimNames}
	im.vals[name] = v
	im.g.Inputs = append(im.g.Inputs, v)
	im.captured = append(im.captured, pv)
	return v
}

// paramInputs lists, per ONNX op, the input positions holding trainable weights.
var paramInputs = map[string][]int{
	"Conv": {1, 2}, "ConvTranspose": {1, 2}, "Gemm": {1, 2}, "MatMul": {0, 1},
	"BatchNormalization": {1, 2}, "LayerNormalization": {1, 2},
	"LSTM": {1, 2, 3}, "GRU": {1, 2, 3},
}

func (im *importer) graph(gp *onnxpb.Graph) error {
	for _, n := range gp.Node {
		for _, i := range paramInputs[n.OpType] {
			if i < len(n.Input) && n.Input[i] != "" {
				im.params[n.Input[i]] = true
			}
		}
	}
	for _, t := range gp.Initializer {
		v, err := Tensor(t)
		if err != nil {
			return fmt.Errorf("onnx: initializer: %w", err)
		}
		im.vals[t.Name] = im.constValue(t.Name, v)
	}
	for _, vi := range gp.Input {
		if _, isInit := im.vals[vi.Name]; isInit {
			continue // an initializer listed as an input (old exporters): a constant
		}
		v, err := valueOf(vi)
		if err != nil {
			return fmt.Errorf("onnx: graph input %q: %w", vi.Name, err)
		}
		im.vals[vi.Name] = v
		im.g.Inputs = append(im.g.Inputs, v)
	}
	for _, n := range gp.Node {
		if err := im.node(n); err != nil {
			return err
		}
	}
	for _, vi := range gp.Output {
		v := im.lookup(vi.Name)
		if v == nil {
			return fmt.Errorf("onnx: graph output %q is not produced by any node", vi.Name)
		}
		im.g.Outputs = append(im.g.Outputs, v)
		im.g.OutputNames = append(im.g.OutputNames, vi.Name)
	}
	return nil
}

func (im *importer) constValue(name string, t *tensor.Tensor) *graph.Value {
	v := &graph.Value{Name: name, Meta: graph.ConstMeta(t), Const: t}
	v.Param = im.params[name] && t.DType().IsFloat()
	return v
}

// valueOf makes a graph input from its ValueInfo (unknown dims are -1 and keep their names).
func valueOf(vi *onnxpb.ValueInfo) (*graph.Value, error) {
	if vi.Type == nil || vi.Type.TensorType == nil {
		return nil, fmt.Errorf("not a tensor")
	}
	d, err := DType(vi.Type.TensorType.ElemType)
	if err != nil {
		return nil, err
	}
	v := &graph.Value{Name: vi.Name, Meta: op.Meta{DType: d}}
	if s := vi.Type.TensorType.Shape; s != nil {
		v.Meta.Shape = make(tensor.Shape, len(s.Dim))
		v.DimNames = make([]string, len(s.Dim))
		for i, dim := range s.Dim {
			v.Meta.Shape[i] = -1
			if dim.HasValue {
				v.Meta.Shape[i] = int(dim.Value)
			} else {
				v.DimNames[i] = dim.Param
			}
		}
	}
	return v, nil
}

// nodeError formats the importer's error for node n.
func (im *importer) nodeError(n *onnxpb.Node, format string, args ...any) error {
	return fmt.Errorf("onnx: node %q (%s, opset %d): %s", n.Name, n.OpType, im.opset, fmt.Sprintf(format, args...))
}

func (im *importer) node(n *onnxpb.Node) error {
	if n.Domain != "" && n.Domain != "ai.onnx" {
		return im.nodeError(n, "unsupported op (domain %q)", n.Domain)
	}
	c := &ctx{im: im, n: n, opset: im.opset}
	for i, name := range n.Input {
		if name != "" && im.lookup(name) == nil {
			return im.nodeError(n, "input %d %q is not defined before the node", i, name)
		}
	}
	var err error
	if b, ok := builders[n.OpType]; ok {
		err = b(c)
	} else if def := op.LookupONNX(n.OpType); def != nil {
		err = c.direct(def)
	} else {
		return im.nodeError(n, "unsupported op")
	}
	if err != nil {
		if strings.HasPrefix(err.Error(), "onnx: node ") {
			return err
		}
		return im.nodeError(n, "%v", err)
	}
	for i, name := range n.Output {
		if name != "" && im.vals[name] == nil {
			return im.nodeError(n, "output %d %q was not built", i, name)
		}
	}
	return nil
}

// ctx is what a builder sees: the ONNX node and ways to emit IR nodes.
type ctx struct {
	im    *importer
	n     *onnxpb.Node
	opset int
}

// builders maps an ONNX op_type to the function that emits its IR.
var builders map[string]func(c *ctx) error

func init() {
	builders = map[string]func(c *ctx) error{}
	registerBasic()
	registerShape()
	registerNN()
	registerQuant()
}

// in returns ONNX input i, or nil when it is absent or empty.
func (c *ctx) in(i int) *graph.Value {
	if i >= len(c.n.Input) || c.n.Input[i] == "" {
		return nil
	}
	return c.im.lookup(c.n.Input[i])
}

// nout is the number of outputs the node declares (trailing empty ones dropped).
func (c *ctx) nout() int {
	k := len(c.n.Output)
	for k > 0 && c.n.Output[k-1] == "" {
		k--
	}
	return k
}

// out makes the value for ONNX output i with dtype d.
func (c *ctx) out(i int, d tensor.DType) *graph.Value {
	if i >= len(c.n.Output) || c.n.Output[i] == "" {
		return c.tmp(d)
	}
	v := &graph.Value{Name: c.n.Output[i], Meta: op.Meta{DType: d}}
	c.im.vals[v.Name] = v
	return v
}

// alias makes ONNX output i another name of v (Identity, Dropout).
func (c *ctx) alias(i int, v *graph.Value) { c.im.vals[c.n.Output[i]] = v }

// tmp makes a fresh intermediate value.
func (c *ctx) tmp(d tensor.DType) *graph.Value {
	c.im.tmp++
	return &graph.Value{Name: fmt.Sprintf("%s/t%d", c.n.Name, c.im.tmp), Meta: op.Meta{DType: d}}
}

// konst makes a constant value.
func (c *ctx) konst(t *tensor.Tensor) *graph.Value {
	c.im.tmp++
	return &graph.Value{Name: fmt.Sprintf("%s/c%d", c.n.Name, c.im.tmp), Meta: graph.ConstMeta(t), Const: t}
}

// emit adds a node of the named registry op.
func (c *ctx) emit(name string, a op.Attrs, in []*graph.Value, out ...*graph.Value) *graph.Node {
	def := op.Lookup(name)
	if def == nil {
		panic("onnx: no registry op " + name)
	}
	if a == nil {
		a = op.Attrs{}
	}
	nd := &graph.Node{Op: def, Attrs: a, In: in, Out: out, Name: c.n.Name}
	c.im.g.Nodes = append(c.im.g.Nodes, nd)
	return nd
}

// emit1 adds a node with one new intermediate output of dtype d and returns it.
func (c *ctx) emit1(name string, a op.Attrs, d tensor.DType, in ...*graph.Value) *graph.Value {
	v := c.tmp(d)
	c.emit(name, a, in, v)
	return v
}

// attrIn makes ONNX input i (if present) supply attribute attr of nd: folded
// into nd.Attrs when it is a constant, kept as an AttrIn otherwise.
func (c *ctx) attrIn(nd *graph.Node, i int, attr string, kind graph.AttrKind) error {
	v := c.in(i)
	if v == nil {
		return nil
	}
	if v.Const != nil && kind != graph.AttrReshape {
		a, err := graph.ResolveAttrs(&graph.Node{Op: nd.Op, Name: nd.Name, AttrIn: []graph.AttrIn{{Attr: attr, Kind: kind, V: v}}},
			[]*tensor.Tensor{v.Const}, nil)
		if err != nil {
			return err
		}
		if x, ok := a[attr]; ok {
			nd.Attrs[attr] = x
		}
		return nil
	}
	if v.Const != nil { // Reshape: fold unless a 0 must copy an input dimension
		hasZero := false
		for _, d := range v.Const.Float64s() {
			hasZero = hasZero || d == 0
		}
		if !hasZero {
			nd.Attrs[attr] = intsOf(v.Const)
			return nil
		}
	}
	nd.AttrIn = append(nd.AttrIn, graph.AttrIn{Attr: attr, Kind: kind, V: v})
	return nil
}

func intsOf(t *tensor.Tensor) []int {
	f := t.Float64s()
	out := make([]int, len(f))
	for i, x := range f {
		out[i] = int(x)
	}
	return out
}

// boolAttrs are ONNX int attributes that the registry reads as bools.
var boolAttrs = map[string]bool{"keepdims": true, "select_last_index": true, "largest": true, "sorted": true,
	"exclusive": true, "reverse": true, "noop_with_empty_axes": true, "allowzero": true}

// attrs converts the node's ONNX attributes: INT → int (bool for the flags
// above), INTS → []int, FLOAT(S) → float64(s), STRING → string, TENSOR → *tensor.Tensor.
func (c *ctx) attrs() (op.Attrs, error) {
	a := op.Attrs{}
	for _, at := range c.n.Attribute {
		switch at.Type {
		case onnxpb.AttrInt:
			if boolAttrs[at.Name] {
				a[at.Name] = at.I != 0
			} else {
				a[at.Name] = int(at.I)
			}
		case onnxpb.AttrInts:
			v := make([]int, len(at.Ints))
			for i, x := range at.Ints {
				v[i] = int(x)
			}
			a[at.Name] = v
		case onnxpb.AttrFloat:
			a[at.Name] = float64(at.F)
		case onnxpb.AttrFloats:
			v := make([]float64, len(at.Floats))
			for i, x := range at.Floats {
				v[i] = float64(x)
			}
			a[at.Name] = v
		case onnxpb.AttrString:
			a[at.Name] = string(at.S)
		case onnxpb.AttrTensor:
			t, err := Tensor(at.T)
			if err != nil {
				return nil, fmt.Errorf("attribute %s: %w", at.Name, err)
			}
			a[at.Name] = t
		case onnxpb.AttrStrings:
			v := make([]string, len(at.Strings))
			for i, s := range at.Strings {
				v[i] = string(s)
			}
			a[at.Name] = v
		default:
			return nil, fmt.Errorf("attribute %s of type %v is not supported", at.Name, at.Type)
		}
	}
	return a, nil
}

// outDTypes gives the dtypes of def's outputs for inputs of dtypes in.
func outDTypes(def *op.Def, a op.Attrs, in []tensor.DType, n int) []tensor.DType {
	out := make([]tensor.DType, n)
	for i := range out {
		if len(in) > 0 {
			out[i] = in[0]
		}
	}
	switch def.Name {
	case "equal", "greater", "less", "greater_equal", "less_equal", "logical_and", "logical_or", "logical_not":
		out[0] = tensor.Bool
	case "shape", "argmax", "argmin":
		out[0] = tensor.Int64
	case "topk":
		if n > 1 {
			out[1] = tensor.Int64
		}
	case "cast":
		if d, err := tensor.ParseDType(a.Str("dtype", "")); err == nil {
			out[0] = d
		}
	}
	return out
}

// direct maps the node onto its registry twin: all inputs, attributes as is.
func (c *ctx) direct(def *op.Def) error {
	a, err := c.attrs()
	if err != nil {
		return err
	}
	var in []*graph.Value
	var dts []tensor.DType
	for i := range c.n.Input {
		v := c.in(i)
		if v == nil {
			return fmt.Errorf("optional input %d left empty is not supported", i)
		}
		in = append(in, v)
		dts = append(dts, v.Meta.DType)
	}
	if def.Arity >= 0 && len(in) != def.Arity {
		return fmt.Errorf("%d inputs given, %s takes %d", len(in), def.Name, def.Arity)
	}
	nout := c.nout()
	out := make([]*graph.Value, nout)
	for i, d := range outDTypes(def, a, dts, nout) {
		out[i] = c.out(i, d)
	}
	c.emit(def.Name, a, in, out...)
	return nil
}
