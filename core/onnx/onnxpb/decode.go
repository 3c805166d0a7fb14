package onnxpb

import (
	"bytes"
	"errors"
)

// Field numbers, from onnx.proto.
const (
	// ModelProto
	modelIRVersion       = 1
	modelProducerName    = 2
	modelProducerVersion = 3
	modelDomain          = 4
	modelModelVersion    = 5
	modelDocString       = 6
	modelGraph           = 7
	modelOpsetImport     = 8
	modelMetadataProps   = 14

	// GraphProto
	graphNode        = 1
	graphName        = 2
	graphInitializer = 5
	graphDocString   = 10
	graphInput       = 11
	graphOutput      = 12
	graphValueInfo   = 13

	// NodeProto
	nodeInput     = 1
	nodeOutput    = 2
	nodeName      = 3
	nodeOpType    = 4
	nodeAttribute = 5
	nodeDocString = 6
	nodeDomain    = 7

	// AttributeProto
	attrName        = 1
	attrF           = 2
	attrI           = 3
	attrS           = 4
	attrT           = 5
	attrG           = 6
	attrFloats      = 7
	attrInts        = 8
	attrStrings     = 9
	attrTensors     = 10
	attrGraphs      = 11
	attrDocString   = 13
	attrType        = 20
	attrRefAttrName = 21

	// ValueInfoProto
	viName      = 1
	viType      = 2
	viDocString = 3

	// TypeProto and its nested messages
	typeTensor       = 1
	typeSequence     = 4
	typeMap          = 5
	typeDenotation   = 6
	typeSparseTensor = 8
	typeOptional     = 9
	tensorTypeElem   = 1
	tensorTypeShape  = 2
	elemTypeField    = 1 // Sequence.elem_type and Optional.elem_type
	mapKeyType       = 1
	mapValueType     = 2
	shapeDim         = 1
	dimValue         = 1
	dimParam         = 2
	dimDenotation    = 3

	// OperatorSetIdProto and StringStringEntryProto
	opsetDomain  = 1
	opsetVersion = 2
	entryKey     = 1
	entryValue   = 2
)

// Decode parses a serialized ModelProto. Byte fields of the result share one
// private copy of b, so the caller may reuse b.
func Decode(b []byte) (*Model, error) {
	return decodeModel(bytes.Clone(b))
}

// decodeModel parses b without copying it: the model aliases b.
func decodeModel(b []byte) (*Model, error) {
	var d decoder
	m, err := d.model(b)
	if err != nil {
		return nil, topErr(err)
	}
	return m, nil
}

// DecodeTensor parses a serialized TensorProto, such as an input_0.pb file of
// the ONNX test data. Byte fields share one private copy of b.
func DecodeTensor(b []byte) (*Tensor, error) {
	var d decoder
	t, err := d.tensor(bytes.Clone(b))
	if err != nil {
		return nil, topErr(err)
	}
	return t, nil
}

// decoder carries the nesting depth through the recursive message decoders;
// the recursive messages (Graph, TypeProto, Sequence, Optional) count it.
type decoder struct {
	depth int
}

var errTooDeep = errors.New("messages nested too deeply")

// enter counts one level of nesting; leave must follow.
func (d *decoder) enter() error {
	d.depth++
	if d.depth > maxDepth {
		return errTooDeep
	}
	return nil
}

func (d *decoder) leave() { d.depth-- }

func (d *decoder) model(b []byte) (*Model, error) {
	m := &Model{}
	err := walk(b, func(f *field) error {
		switch f.tag() {
		case varintKey(modelIRVersion):
			m.IRVersion = int64(f.v)
		case bytesKey(modelProducerName):
			m.ProducerName = string(f.b)
		case bytesKey(modelProducerVersion):
			m.ProducerVersion = string(f.b)
		case bytesKey(modelDomain):
			m.Domain = string(f.b)
		case varintKey(modelModelVersion):
			m.ModelVersion = int64(f.v)
		case bytesKey(modelDocString):
			m.DocString = string(f.b)
		case bytesKey(modelGraph):
			g, err := d.graph(f.b)
			if err != nil {
				return at(err, "graph")
			}
			m.Graph = g
		case bytesKey(modelOpsetImport):
			op, err := opsetID(f.b)
			if err != nil {
				return atIndex(err, "opset_import", len(m.OpsetImport))
			}
			m.OpsetImport = append(m.OpsetImport, op)
		case bytesKey(modelMetadataProps):
			e, err := stringEntry(f.b)
			if err != nil {
				return atIndex(err, "metadata_props", len(m.MetadataProps))
			}
			m.MetadataProps = append(m.MetadataProps, e)
		default:
			m.Unknown = append(m.Unknown, f.raw...)
		}
		return nil
	})
	return m, err
}

func opsetID(b []byte) (OpsetID, error) {
	var op OpsetID
	err := walk(b, func(f *field) error {
		switch f.tag() {
		case bytesKey(opsetDomain):
			op.Domain = string(f.b)
		case varintKey(opsetVersion):
			op.Version = int64(f.v)
		}
		return nil
	})
	return op, err
}

func stringEntry(b []byte) (StringStringEntry, error) {
	var e StringStringEntry
	err := walk(b, func(f *field) error {
		switch f.tag() {
		case bytesKey(entryKey):
			e.Key = string(f.b)
		case bytesKey(entryValue):
			e.Value = string(f.b)
		}
		return nil
	})
	return e, err
}

func (d *decoder) graph(b []byte) (*Graph, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	g := &Graph{}
	err := walk(b, func(f *field) error {
		switch f.tag() {
		case bytesKey(graphNode):
			n, err := d.node(f.b)
			if err != nil {
				return atIndex(err, "node", len(g.Node))
			}
			g.Node = append(g.Node, n)
		case bytesKey(graphName):
			g.Name = string(f.b)
		case bytesKey(graphInitializer):
			t, err := d.tensor(f.b)
			if err != nil {
				return atIndex(err, "initializer", len(g.Initializer))
			}
			g.Initializer = append(g.Initializer, t)
		case bytesKey(graphDocString):
			g.DocString = string(f.b)
		case bytesKey(graphInput):
			v, err := d.valueInfo(f.b)
			if err != nil {
				return atIndex(err, "input", len(g.Input))
			}
			g.Input = append(g.Input, v)
		case bytesKey(graphOutput):
			v, err := d.valueInfo(f.b)
			if err != nil {
				return atIndex(err, "output", len(g.Output))
			}
			g.Output = append(g.Output, v)
		case bytesKey(graphValueInfo):
			v, err := d.valueInfo(f.b)
			if err != nil {
				return atIndex(err, "value_info", len(g.ValueInfo))
			}
			g.ValueInfo = append(g.ValueInfo, v)
		default:
			g.Unknown = append(g.Unknown, f.raw...)
		}
		return nil
	})
	return g, err
}

func (d *decoder) node(b []byte) (*Node, error) {
	n := &Node{}
	err := walk(b, func(f *field) error {
		switch f.tag() {
		case bytesKey(nodeInput):
			n.Input = append(n.Input, string(f.b))
		case bytesKey(nodeOutput):
			n.Output = append(n.Output, string(f.b))
		case bytesKey(nodeName):
			n.Name = string(f.b)
		case bytesKey(nodeOpType):
			n.OpType = string(f.b)
		case bytesKey(nodeAttribute):
			a, err := d.attribute(f.b)
			if err != nil {
				return atIndex(err, "attribute", len(n.Attribute))
			}
			n.Attribute = append(n.Attribute, a)
		case bytesKey(nodeDocString):
			n.DocString = string(f.b)
		case bytesKey(nodeDomain):
			n.Domain = string(f.b)
		default:
			n.Unknown = append(n.Unknown, f.raw...)
		}
		return nil
	})
	return n, err
}

func (d *decoder) attribute(b []byte) (*Attribute, error) {
	a := &Attribute{}
	err := walk(b, func(f *field) error {
		var err error
		switch f.tag() {
		case bytesKey(attrName):
			a.Name = string(f.b)
		case fixed32Key(attrF):
			a.F = f32(f.v)
		case varintKey(attrI):
			a.I = int64(f.v)
		case bytesKey(attrS):
			a.S = f.b
		case bytesKey(attrT):
			if a.T, err = d.tensor(f.b); err != nil {
				return at(err, "t")
			}
		case bytesKey(attrG):
			if a.G, err = d.graph(f.b); err != nil {
				return at(err, "g")
			}
		case fixed32Key(attrFloats), bytesKey(attrFloats):
			if a.Floats, err = appendFloats(a.Floats, f); err != nil {
				return at(err, "floats")
			}
		case varintKey(attrInts), bytesKey(attrInts):
			if a.Ints, err = appendVarints(a.Ints, f); err != nil {
				return at(err, "ints")
			}
		case bytesKey(attrStrings):
			a.Strings = append(a.Strings, f.b)
		case bytesKey(attrTensors):
			t, err := d.tensor(f.b)
			if err != nil {
				return atIndex(err, "tensors", len(a.Tensors))
			}
			a.Tensors = append(a.Tensors, t)
		case bytesKey(attrGraphs):
			g, err := d.graph(f.b)
			if err != nil {
				return atIndex(err, "graphs", len(a.Graphs))
			}
			a.Graphs = append(a.Graphs, g)
		case bytesKey(attrDocString):
			a.DocString = string(f.b)
		case varintKey(attrType):
			a.Type = AttrType(int32(f.v))
		case bytesKey(attrRefAttrName):
			a.RefAttrName = string(f.b)
		default:
			a.Unknown = append(a.Unknown, f.raw...)
		}
		return nil
	})
	return a, err
}

func (d *decoder) valueInfo(b []byte) (*ValueInfo, error) {
	v := &ValueInfo{}
	err := walk(b, func(f *field) error {
		var err error
		switch f.tag() {
		case bytesKey(viName):
			v.Name = string(f.b)
		case bytesKey(viType):
			if v.Type, err = d.typeProto(f.b); err != nil {
				return at(err, "type")
			}
		case bytesKey(viDocString):
			v.DocString = string(f.b)
		default:
			v.Unknown = append(v.Unknown, f.raw...)
		}
		return nil
	})
	return v, err
}

func (d *decoder) typeProto(b []byte) (*TypeProto, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	t := &TypeProto{}
	err := walk(b, func(f *field) error {
		var err error
		switch f.tag() {
		case bytesKey(typeTensor):
			if t.TensorType, err = tensorType(f.b); err != nil {
				return at(err, "tensor_type")
			}
		case bytesKey(typeSequence):
			if t.SequenceType, err = d.elemType(f.b); err != nil {
				return at(err, "sequence_type")
			}
		case bytesKey(typeMap):
			if t.MapType, err = d.mapType(f.b); err != nil {
				return at(err, "map_type")
			}
		case bytesKey(typeDenotation):
			t.Denotation = string(f.b)
		case bytesKey(typeSparseTensor):
			if t.SparseTensorType, err = tensorType(f.b); err != nil {
				return at(err, "sparse_tensor_type")
			}
		case bytesKey(typeOptional):
			if t.OptionalType, err = d.elemType(f.b); err != nil {
				return at(err, "optional_type")
			}
		default:
			t.Unknown = append(t.Unknown, f.raw...)
		}
		return nil
	})
	return t, err
}

// elemType decodes TypeProto.Sequence or TypeProto.Optional, whose only field
// is the element TypeProto. A present but empty message yields an empty type.
func (d *decoder) elemType(b []byte) (*TypeProto, error) {
	elem := &TypeProto{}
	err := walk(b, func(f *field) error {
		if f.tag() == bytesKey(elemTypeField) {
			t, err := d.typeProto(f.b)
			if err != nil {
				return at(err, "elem_type")
			}
			elem = t
		}
		return nil
	})
	return elem, err
}

func (d *decoder) mapType(b []byte) (*MapType, error) {
	m := &MapType{}
	err := walk(b, func(f *field) error {
		var err error
		switch f.tag() {
		case varintKey(mapKeyType):
			m.KeyType = DataType(int32(f.v))
		case bytesKey(mapValueType):
			if m.ValueType, err = d.typeProto(f.b); err != nil {
				return at(err, "value_type")
			}
		default:
			m.Unknown = append(m.Unknown, f.raw...)
		}
		return nil
	})
	return m, err
}

func tensorType(b []byte) (*TensorType, error) {
	t := &TensorType{}
	err := walk(b, func(f *field) error {
		var err error
		switch f.tag() {
		case varintKey(tensorTypeElem):
			t.ElemType = DataType(int32(f.v))
		case bytesKey(tensorTypeShape):
			if t.Shape, err = shape(f.b); err != nil {
				return at(err, "shape")
			}
		default:
			t.Unknown = append(t.Unknown, f.raw...)
		}
		return nil
	})
	return t, err
}

func shape(b []byte) (*Shape, error) {
	s := &Shape{}
	err := walk(b, func(f *field) error {
		if f.tag() != bytesKey(shapeDim) {
			s.Unknown = append(s.Unknown, f.raw...)
			return nil
		}
		var dim Dim
		err := walk(f.b, func(f *field) error {
			switch f.tag() {
			case varintKey(dimValue):
				dim.Value, dim.HasValue, dim.Param = int64(f.v), true, ""
			case bytesKey(dimParam):
				dim.Param, dim.HasValue, dim.Value = string(f.b), false, 0
			case bytesKey(dimDenotation):
				dim.Denotation = string(f.b)
			}
			return nil
		})
		if err != nil {
			return atIndex(err, "dim", len(s.Dim))
		}
		s.Dim = append(s.Dim, dim)
		return nil
	})
	return s, err
}
