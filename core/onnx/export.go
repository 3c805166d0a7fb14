package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"paddle/core/graph"
	"paddle/core/onnx/onnxpb"
	"paddle/core/op"
	"paddle/core/tensor"
)

// ExportOpset is the default-domain opset exported graphs declare.
const ExportOpset = 17

// Export converts g to an ONNX model (opset ExportOpset): each registry op
// becomes its ONNX twin with the attributes ONNX expects (attributes the
// ONNX op takes as inputs become initializers, shape-valued inputs stay
// inputs), composites without a twin (relu6, silu, rsqrt, gelu) become small
// ONNX subgraphs, and constants become initializers. An op with no ONNX
// form is an error naming the node.
func Export(g *graph.Graph) (*onnxpb.Model, error) {
	e := &exporter{g: &onnxpb.Graph{Name: g.Name}, names: map[*graph.Value]string{}, used: map[string]bool{}}
	if e.g.Name == "" {
		e.g.Name = "paddle"
	}
	for _, v := range g.Inputs {
		e.g.Input = append(e.g.Input, valueInfo(e.name(v), v))
	}
	if err := e.body(g); err != nil {
		return nil, err
	}
	return &onnxpb.Model{IRVersion: 8, ProducerName: "paddle", OpsetImport: []onnxpb.OpsetID{{Version: ExportOpset}},
		Graph: e.g}, nil
}

// body writes g's nodes and outputs.
func (e *exporter) body(g *graph.Graph) error {
	for _, n := range g.Nodes {
		if n.Op != graph.IfOp && n.Op.Export == nil {
			return fmt.Errorf("onnx export: node %s: no ONNX form", n.Label())
		}
		in := make([]string, len(n.In))
		for i, v := range n.In {
			in[i] = e.name(v)
		}
		out := make([]string, len(n.Out))
		for i, v := range n.Out {
			out[i] = e.name(v)
		}
		var err error
		if n.Op == graph.IfOp {
			err = exportIf(e, n, in, out)
		} else {
			err = n.Op.Export(nodeWriter{e: e, n: n, op: n.Op, attrs: n.Attrs, in: inMetas(n)}, in, out)
		}
		if err != nil {
			return fmt.Errorf("onnx export: node %s: %w", n.Label(), err)
		}
	}
	for i, v := range g.Outputs {
		name := e.name(v)
		want := g.OutputName(i)
		if want != name {
			if e.used[want] { // the name is taken by another value: keep the value's own
				want = name
			} else {
				e.used[want] = true
				e.node("Identity", []string{name}, []string{want})
			}
		}
		e.g.Output = append(e.g.Output, valueInfo(want, v))
	}
	return nil
}

// exportIf writes an If node: each branch becomes a subgraph that reads the
// outer values by name (ONNX scoping) instead of through inputs.
func exportIf(e *exporter, n *graph.Node, in, out []string) error {
	var attrs []*onnxpb.Attribute
	for i, b := range n.Branches {
		sub := &exporter{g: &onnxpb.Graph{Name: e.fresh(n.Name + []string{"_then", "_else"}[i])}, names: map[*graph.Value]string{}, used: e.used}
		for j, v := range b.Inputs {
			sub.names[v] = in[1+j]
		}
		if err := sub.body(b); err != nil {
			return err
		}
		// a branch output must be produced inside the branch
		for k, o := range sub.g.Output {
			if !sub.producedHere(o.Name) {
				name := sub.fresh(o.Name + "_out")
				sub.node("Identity", []string{o.Name}, []string{name})
				sub.g.Output[k].Name = name
			}
		}
		attrs = append(attrs, &onnxpb.Attribute{Name: []string{"then_branch", "else_branch"}[i], Type: onnxpb.AttrGraph, G: sub.g})
	}
	e.node("If", in[:1], out, attrs...)
	return nil
}

// producedHere reports whether a node or initializer of this graph makes name.
func (e *exporter) producedHere(name string) bool {
	for _, t := range e.g.Initializer {
		if t.Name == name {
			return true
		}
	}
	for _, n := range e.g.Node {
		for _, o := range n.Output {
			if o == name {
				return true
			}
		}
	}
	return false
}

// WriteFile exports g to path.
func WriteFile(path string, g *graph.Graph) error {
	m, err := Export(g)
	if err != nil {
		return err
	}
	b, err := m.Marshal()
	if err != nil {
		return fmt.Errorf("onnx export: %w", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("onnx export: %w", err)
	}
	return nil
}

type exporter struct {
	g     *onnxpb.Graph
	names map[*graph.Value]string
	used  map[string]bool
	tmp   int
}

// name returns v's (unique) ONNX name, adding constants as initializers.
func (e *exporter) name(v *graph.Value) string {
	if s, ok := e.names[v]; ok {
		return s
	}
	s := e.fresh(v.Name)
	e.names[v] = s
	if v.Const != nil {
		e.g.Initializer = append(e.g.Initializer, TensorProto(s, v.Const))
	}
	return s
}

func (e *exporter) fresh(base string) string {
	if base == "" {
		base = "v"
	}
	s := base
	for e.used[s] {
		e.tmp++
		s = fmt.Sprintf("%s_%d", base, e.tmp)
	}
	e.used[s] = true
	return s
}

// konst adds an initializer and returns its name.
func (e *exporter) konst(hint string, t *tensor.Tensor) string {
	s := e.fresh(hint)
	e.g.Initializer = append(e.g.Initializer, TensorProto(s, t))
	return s
}

// node appends an ONNX node.
func (e *exporter) node(opType string, in, out []string, attrs ...*onnxpb.Attribute) {
	e.g.Node = append(e.g.Node, &onnxpb.Node{Name: e.fresh("n_" + opType), OpType: opType, Input: in, Output: out, Attribute: attrs})
}

// nodeWriter is the op.ONNXWriter of one node (or, through Sub, of another
// op written in its place): op, attrs and in may differ from n's.
type nodeWriter struct {
	e     *exporter
	n     *graph.Node
	op    *op.Def
	attrs op.Attrs
	in    []op.Meta
	sub   bool // a Sub writer: no attribute comes from a run-time value
}

func inMetas(n *graph.Node) []op.Meta {
	m := make([]op.Meta, len(n.In))
	for i, v := range n.In {
		m[i] = v.Meta
	}
	return m
}

func (w nodeWriter) Op() *op.Def           { return w.op }
func (w nodeWriter) Attrs() op.Attrs       { return w.attrs }
func (w nodeWriter) In(i int) op.Meta      { return w.in[i] }
func (w nodeWriter) Out(i int) op.Meta     { return w.n.Out[i].Meta }
func (w nodeWriter) Fresh(h string) string { return w.e.fresh(h) }

func (w nodeWriter) Const(hint string, t *tensor.Tensor) string { return w.e.konst(hint, t) }

func (w nodeWriter) RuntimeAttrs() []op.RuntimeAttr {
	if w.sub {
		return nil
	}
	var r []op.RuntimeAttr
	for _, a := range w.n.AttrIn {
		r = append(r, op.RuntimeAttr{Attr: a.Attr, Kind: a.Kind})
	}
	return r
}

func (w nodeWriter) Node(opType string, in, out []string, attrs ...op.ONNXAttr) {
	at := make([]*onnxpb.Attribute, len(attrs))
	for i, a := range attrs {
		at[i] = attribute(a)
	}
	w.e.node(opType, in, out, at...)
}

func (w nodeWriter) AttrInput(attr string, conv func(v any) *tensor.Tensor) string {
	if !w.sub {
		for _, a := range w.n.AttrIn {
			if a.Attr == attr {
				return w.e.name(a.V)
			}
		}
	}
	if v, ok := w.attrs[attr]; ok && v != nil {
		return w.e.konst(w.n.Out[0].Name+"/"+attr, conv(v))
	}
	return ""
}

func (w nodeWriter) Sub(d *op.Def, a op.Attrs, in ...op.Meta) op.ONNXWriter {
	return nodeWriter{e: w.e, n: w.n, op: d, attrs: a, in: in, sub: true}
}

// attribute converts an op.ONNXAttr to its protobuf form.
func attribute(a op.ONNXAttr) *onnxpb.Attribute {
	p := &onnxpb.Attribute{Name: a.Name}
	switch v := a.Value.(type) {
	case int64:
		p.Type, p.I = onnxpb.AttrInt, v
	case tensor.DType:
		p.Type, p.I = onnxpb.AttrInt, int64(ONNXType(v))
	case float32:
		p.Type, p.F = onnxpb.AttrFloat, v
	case []int64:
		p.Type, p.Ints = onnxpb.AttrInts, v
	case string:
		p.Type, p.S = onnxpb.AttrString, []byte(v)
	case *tensor.Tensor:
		p.Type, p.T = onnxpb.AttrTensor, TensorProto(a.Name, v)
	default:
		panic(fmt.Sprintf("onnx export: attribute %s of type %T", a.Name, a.Value))
	}
	return p
}

// valueInfo describes a graph input or output.
func valueInfo(name string, v *graph.Value) *onnxpb.ValueInfo {
	tt := &onnxpb.TensorType{ElemType: ONNXType(v.Meta.DType)}
	if v.Meta.Shape != nil {
		tt.Shape = &onnxpb.Shape{}
		for i, d := range v.Meta.Shape {
			dim := onnxpb.Dim{}
			switch {
			case d >= 0:
				dim.Value, dim.HasValue = int64(d), true
			case i < len(v.DimNames):
				dim.Param = v.DimNames[i]
			}
			tt.Shape.Dim = append(tt.Shape.Dim, dim)
		}
	}
	return &onnxpb.ValueInfo{Name: name, Type: &onnxpb.TypeProto{TensorType: tt}}
}

// TensorProto converts t to an ONNX TensorProto (raw little-endian data).
func TensorProto(name string, t *tensor.Tensor) *onnxpb.Tensor {
	t = t.Contiguous()
	p := &onnxpb.Tensor{Name: name, DataType: ONNXType(t.DType())}
	for _, d := range t.Shape() {
		p.Dims = append(p.Dims, int64(d))
	}
	le := binary.LittleEndian
	switch t.DType() {
	case tensor.Float32:
		v := t.F32()
		p.RawData = make([]byte, 4*len(v))
		for i, x := range v {
			le.PutUint32(p.RawData[4*i:], math.Float32bits(x))
		}
	case tensor.Float64:
		v := t.F64()
		p.RawData = make([]byte, 8*len(v))
		for i, x := range v {
			le.PutUint64(p.RawData[8*i:], math.Float64bits(x))
		}
	case tensor.Int64:
		v := t.I64()
		p.RawData = make([]byte, 8*len(v))
		for i, x := range v {
			le.PutUint64(p.RawData[8*i:], uint64(x))
		}
	case tensor.Int32:
		v := t.I32()
		p.RawData = make([]byte, 4*len(v))
		for i, x := range v {
			le.PutUint32(p.RawData[4*i:], uint32(x))
		}
	case tensor.Uint8:
		p.RawData = append([]byte(nil), t.U8()...)
	case tensor.Int8:
		for _, x := range t.I8() {
			p.RawData = append(p.RawData, byte(x))
		}
	case tensor.Bool:
		for _, x := range t.Bools() {
			b := byte(0)
			if x {
				b = 1
			}
			p.RawData = append(p.RawData, b)
		}
	}
	return p
}
