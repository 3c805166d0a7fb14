package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"paddle/core/graph"
	"paddle/core/onnx/onnxpb"
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
		f := exporters[n.Op.Name]
		if n.Op == graph.IfOp {
			f = exportIf
		}
		if f == nil {
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
		if err := f(e, n, in, out); err != nil {
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

// attrInput is the ONNX input carrying attribute attr of n: an initializer
// made by conv from the attribute value, the shape-valued input itself, or
// "" when neither is present.
func (e *exporter) attrInput(n *graph.Node, attr string, conv func(v any) *tensor.Tensor) string {
	for _, a := range n.AttrIn {
		if a.Attr == attr {
			return e.name(a.V)
		}
	}
	if v, ok := n.Attrs[attr]; ok && v != nil {
		return e.konst(n.Out[0].Name+"/"+attr, conv(v))
	}
	return ""
}

func aInt(name string, v int) *onnxpb.Attribute {
	return &onnxpb.Attribute{Name: name, Type: onnxpb.AttrInt, I: int64(v)}
}

func aBool(name string, v bool) *onnxpb.Attribute {
	if v {
		return aInt(name, 1)
	}
	return aInt(name, 0)
}

func aInts(name string, v []int) *onnxpb.Attribute {
	a := &onnxpb.Attribute{Name: name, Type: onnxpb.AttrInts, Ints: make([]int64, len(v))}
	for i, x := range v {
		a.Ints[i] = int64(x)
	}
	return a
}

func aFloat(name string, v float64) *onnxpb.Attribute {
	return &onnxpb.Attribute{Name: name, Type: onnxpb.AttrFloat, F: float32(v)}
}

func aString(name, v string) *onnxpb.Attribute {
	return &onnxpb.Attribute{Name: name, Type: onnxpb.AttrString, S: []byte(v)}
}

// int64s makes a 1-D int64 tensor of an []int attribute value.
func int64s(v any) *tensor.Tensor {
	iv, _ := v.([]int)
	out := make([]int64, len(iv))
	for i, x := range iv {
		out[i] = int64(x)
	}
	return tensor.FromSlice(out, len(out))
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
