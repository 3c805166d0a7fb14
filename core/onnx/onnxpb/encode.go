package onnxpb

import (
	"errors"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Fields are written in field-number order, as protobuf's own serializers do,
// with repeated scalars packed exactly where onnx.proto declares them packed
// (the tensor data fields) and unpacked elsewhere (dims, ints, floats). Proto2
// presence is not tracked: a zero scalar is omitted, except the value field
// that an attribute's Type selects. Unknown bytes go last.

var errNil = errors.New("nil element")

// Marshal encodes the model as a serialized ModelProto.
func (m *Model) Marshal() ([]byte, error) {
	return appendModel(nil, m)
}

// Marshal encodes the tensor as a serialized TensorProto.
func (t *Tensor) Marshal() ([]byte, error) {
	return appendTensor(nil, t)
}

// Marshal encodes the graph as a serialized GraphProto.
func (g *Graph) Marshal() ([]byte, error) {
	return appendGraph(nil, g)
}

// appendMsg appends field num holding the message that fn appends. The length
// prefix is reserved as one byte and widened afterwards if needed, which moves
// the payload once per nesting level.
func appendMsg(b []byte, num protowire.Number, fn func([]byte) ([]byte, error)) ([]byte, error) {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	lenAt := len(b)
	b = append(b, 0)
	b, err := fn(b)
	if err != nil {
		return b, err
	}
	n := len(b) - lenAt - 1
	w := protowire.SizeVarint(uint64(n))
	if w > 1 {
		b = append(b, make([]byte, w-1)...)
		copy(b[lenAt+w:], b[lenAt+1:lenAt+1+n])
	}
	protowire.AppendVarint(b[lenAt:lenAt], uint64(n))
	return b, nil
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendInt(b []byte, num protowire.Number, v int64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

// appendRaw appends a bytes field when the value is present (non-nil).
func appendRaw(b []byte, num protowire.Number, v []byte) []byte {
	if v == nil {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

// appendPackedVarints appends a packed repeated varint field.
func appendPackedVarints[T int64 | int32 | uint64](b []byte, num protowire.Number, v []T) []byte {
	if len(v) == 0 {
		return b
	}
	n := 0
	for _, x := range v {
		n += protowire.SizeVarint(uint64(x))
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	for _, x := range v {
		b = protowire.AppendVarint(b, uint64(x))
	}
	return b
}

func appendEntries(b []byte, num protowire.Number, es []StringStringEntry) []byte {
	for _, e := range es {
		b, _ = appendMsg(b, num, func(b []byte) ([]byte, error) {
			b = appendString(b, entryKey, e.Key)
			return appendString(b, entryValue, e.Value), nil
		})
	}
	return b
}

func appendModel(b []byte, m *Model) ([]byte, error) {
	b = appendInt(b, modelIRVersion, m.IRVersion)
	b = appendString(b, modelProducerName, m.ProducerName)
	b = appendString(b, modelProducerVersion, m.ProducerVersion)
	b = appendString(b, modelDomain, m.Domain)
	b = appendInt(b, modelModelVersion, m.ModelVersion)
	b = appendString(b, modelDocString, m.DocString)
	if m.Graph != nil {
		var err error
		b, err = appendMsg(b, modelGraph, func(b []byte) ([]byte, error) { return appendGraph(b, m.Graph) })
		if err != nil {
			return nil, at(err, "graph")
		}
	}
	for _, op := range m.OpsetImport {
		b, _ = appendMsg(b, modelOpsetImport, func(b []byte) ([]byte, error) {
			// Always written, even empty, as the onnx helpers do.
			b = protowire.AppendTag(b, opsetDomain, protowire.BytesType)
			b = protowire.AppendString(b, op.Domain)
			b = protowire.AppendTag(b, opsetVersion, protowire.VarintType)
			return protowire.AppendVarint(b, uint64(op.Version)), nil
		})
	}
	b = appendEntries(b, modelMetadataProps, m.MetadataProps)
	return append(b, m.Unknown...), nil
}

// appendEach appends one message field per element of list, naming the
// element in any error.
func appendEach[T any](b []byte, num protowire.Number, name string, list []*T,
	fn func([]byte, *T) ([]byte, error)) ([]byte, error) {
	for i, x := range list {
		if x == nil {
			return b, atIndex(errNil, name, i)
		}
		var err error
		b, err = appendMsg(b, num, func(b []byte) ([]byte, error) { return fn(b, x) })
		if err != nil {
			return b, atIndex(err, name, i)
		}
	}
	return b, nil
}

func appendGraph(b []byte, g *Graph) ([]byte, error) {
	b, err := appendEach(b, graphNode, "node", g.Node, appendNode)
	if err != nil {
		return b, err
	}
	b = appendString(b, graphName, g.Name)
	if b, err = appendEach(b, graphInitializer, "initializer", g.Initializer, appendTensor); err != nil {
		return b, err
	}
	b = appendString(b, graphDocString, g.DocString)
	if b, err = appendEach(b, graphInput, "input", g.Input, appendValueInfo); err != nil {
		return b, err
	}
	if b, err = appendEach(b, graphOutput, "output", g.Output, appendValueInfo); err != nil {
		return b, err
	}
	if b, err = appendEach(b, graphValueInfo, "value_info", g.ValueInfo, appendValueInfo); err != nil {
		return b, err
	}
	return append(b, g.Unknown...), nil
}

func appendNode(b []byte, n *Node) ([]byte, error) {
	for _, s := range n.Input {
		b = protowire.AppendTag(b, nodeInput, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	for _, s := range n.Output {
		b = protowire.AppendTag(b, nodeOutput, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	b = appendString(b, nodeName, n.Name)
	b = appendString(b, nodeOpType, n.OpType)
	b, err := appendEach(b, nodeAttribute, "attribute", n.Attribute, appendAttribute)
	if err != nil {
		return b, err
	}
	b = appendString(b, nodeDocString, n.DocString)
	b = appendString(b, nodeDomain, n.Domain)
	return append(b, n.Unknown...), nil
}

func appendAttribute(b []byte, a *Attribute) ([]byte, error) {
	b = appendString(b, attrName, a.Name)
	if math.Float32bits(a.F) != 0 || a.Type == AttrFloat {
		b = protowire.AppendTag(b, attrF, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.F))
	}
	if a.I != 0 || a.Type == AttrInt {
		b = protowire.AppendTag(b, attrI, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(a.I))
	}
	if a.S == nil && a.Type == AttrString {
		b = appendRaw(b, attrS, []byte{})
	}
	b = appendRaw(b, attrS, a.S)
	var err error
	if a.T != nil {
		if b, err = appendMsg(b, attrT, func(b []byte) ([]byte, error) { return appendTensor(b, a.T) }); err != nil {
			return b, at(err, "t")
		}
	}
	if a.G != nil {
		if b, err = appendMsg(b, attrG, func(b []byte) ([]byte, error) { return appendGraph(b, a.G) }); err != nil {
			return b, at(err, "g")
		}
	}
	for _, f := range a.Floats {
		b = protowire.AppendTag(b, attrFloats, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(f))
	}
	for _, v := range a.Ints {
		b = protowire.AppendTag(b, attrInts, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(v))
	}
	for _, s := range a.Strings {
		b = protowire.AppendTag(b, attrStrings, protowire.BytesType)
		b = protowire.AppendBytes(b, s)
	}
	if b, err = appendEach(b, attrTensors, "tensors", a.Tensors, appendTensor); err != nil {
		return b, err
	}
	if b, err = appendEach(b, attrGraphs, "graphs", a.Graphs, appendGraph); err != nil {
		return b, err
	}
	b = appendString(b, attrDocString, a.DocString)
	b = appendInt(b, attrType, int64(a.Type))
	b = appendString(b, attrRefAttrName, a.RefAttrName)
	return append(b, a.Unknown...), nil
}

func appendValueInfo(b []byte, v *ValueInfo) ([]byte, error) {
	b = appendString(b, viName, v.Name)
	if v.Type != nil {
		var err error
		if b, err = appendMsg(b, viType, func(b []byte) ([]byte, error) { return appendType(b, v.Type) }); err != nil {
			return b, at(err, "type")
		}
	}
	b = appendString(b, viDocString, v.DocString)
	return append(b, v.Unknown...), nil
}

func appendType(b []byte, t *TypeProto) ([]byte, error) {
	var err error
	if t.TensorType != nil {
		b, _ = appendMsg(b, typeTensor, func(b []byte) ([]byte, error) { return appendTensorType(b, t.TensorType), nil })
	}
	if t.SequenceType != nil {
		if b, err = appendMsg(b, typeSequence, elemTypeFn(t.SequenceType)); err != nil {
			return b, at(err, "sequence_type")
		}
	}
	if t.MapType != nil {
		b, err = appendMsg(b, typeMap, func(b []byte) ([]byte, error) {
			b = appendInt(b, mapKeyType, int64(t.MapType.KeyType))
			if t.MapType.ValueType != nil {
				var err error
				if b, err = appendMsg(b, mapValueType, func(b []byte) ([]byte, error) {
					return appendType(b, t.MapType.ValueType)
				}); err != nil {
					return b, at(err, "value_type")
				}
			}
			return append(b, t.MapType.Unknown...), nil
		})
		if err != nil {
			return b, at(err, "map_type")
		}
	}
	b = appendString(b, typeDenotation, t.Denotation)
	if t.SparseTensorType != nil {
		b, _ = appendMsg(b, typeSparseTensor, func(b []byte) ([]byte, error) {
			return appendTensorType(b, t.SparseTensorType), nil
		})
	}
	if t.OptionalType != nil {
		if b, err = appendMsg(b, typeOptional, elemTypeFn(t.OptionalType)); err != nil {
			return b, at(err, "optional_type")
		}
	}
	return append(b, t.Unknown...), nil
}

// elemTypeFn encodes TypeProto.Sequence / TypeProto.Optional around elem.
func elemTypeFn(elem *TypeProto) func([]byte) ([]byte, error) {
	return func(b []byte) ([]byte, error) {
		return appendMsg(b, elemTypeField, func(b []byte) ([]byte, error) { return appendType(b, elem) })
	}
}

func appendTensorType(b []byte, t *TensorType) []byte {
	b = appendInt(b, tensorTypeElem, int64(t.ElemType))
	if t.Shape != nil {
		b, _ = appendMsg(b, tensorTypeShape, func(b []byte) ([]byte, error) {
			for _, d := range t.Shape.Dim {
				b, _ = appendMsg(b, shapeDim, func(b []byte) ([]byte, error) {
					if d.HasValue {
						b = protowire.AppendTag(b, dimValue, protowire.VarintType)
						b = protowire.AppendVarint(b, uint64(d.Value))
					} else if d.Param != "" {
						b = appendString(b, dimParam, d.Param)
					}
					return appendString(b, dimDenotation, d.Denotation), nil
				})
			}
			return append(b, t.Shape.Unknown...), nil
		})
	}
	return append(b, t.Unknown...)
}

func appendTensor(b []byte, t *Tensor) ([]byte, error) {
	for _, d := range t.Dims {
		b = protowire.AppendTag(b, tensorDims, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(d))
	}
	b = appendInt(b, tensorDataType, int64(t.DataType))
	if len(t.FloatData) > 0 {
		b = protowire.AppendTag(b, tensorFloatData, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(4*len(t.FloatData)))
		for _, f := range t.FloatData {
			b = protowire.AppendFixed32(b, math.Float32bits(f))
		}
	}
	b = appendPackedVarints(b, tensorInt32Data, t.Int32Data)
	for _, s := range t.StringData {
		b = protowire.AppendTag(b, tensorStringData, protowire.BytesType)
		b = protowire.AppendBytes(b, s)
	}
	b = appendPackedVarints(b, tensorInt64Data, t.Int64Data)
	b = appendString(b, tensorName, t.Name)
	b = appendRaw(b, tensorRawData, t.RawData)
	if len(t.DoubleData) > 0 {
		b = protowire.AppendTag(b, tensorDoubleData, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(8*len(t.DoubleData)))
		for _, f := range t.DoubleData {
			b = protowire.AppendFixed64(b, math.Float64bits(f))
		}
	}
	b = appendPackedVarints(b, tensorUint64Data, t.Uint64Data)
	b = appendString(b, tensorDocString, t.DocString)
	b = appendEntries(b, tensorExternalData, t.ExternalData)
	b = appendInt(b, tensorDataLocation, int64(t.DataLocation))
	return append(b, t.Unknown...), nil
}
