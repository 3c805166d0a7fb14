package onnxpb

import "strconv"

// Model is an ONNX ModelProto: the file-level container of one graph.
type Model struct {
	IRVersion       int64
	OpsetImport     []OpsetID
	ProducerName    string
	ProducerVersion string
	Domain          string
	ModelVersion    int64
	DocString       string
	Graph           *Graph
	MetadataProps   []StringStringEntry
	// Unknown holds the encoded fields this package does not model
	// (training_info, functions, ...), written back unchanged by Marshal.
	Unknown []byte
}

// OpsetVersion returns the version of the operator set imported for domain,
// or 0 if none is. The default domain may be written "" or "ai.onnx".
func (m *Model) OpsetVersion(domain string) int64 {
	if domain == "ai.onnx" {
		domain = ""
	}
	for _, op := range m.OpsetImport {
		d := op.Domain
		if d == "ai.onnx" {
			d = ""
		}
		if d == domain {
			return op.Version
		}
	}
	return 0
}

// OpsetID is an OperatorSetIdProto: an operator set the model imports.
// The empty domain means the default "ai.onnx" set.
type OpsetID struct {
	Domain  string
	Version int64
}

// StringStringEntry is a StringStringEntryProto, ONNX's portable map entry.
type StringStringEntry struct {
	Key   string
	Value string
}

// Graph is a GraphProto: nodes in topological order, constant initializers,
// and the typed inputs, outputs and intermediate values.
type Graph struct {
	Name        string
	Node        []*Node
	Initializer []*Tensor
	Input       []*ValueInfo
	Output      []*ValueInfo
	ValueInfo   []*ValueInfo
	DocString   string
	// Unknown holds unmodelled fields (sparse_initializer,
	// quantization_annotation, metadata_props, ...).
	Unknown []byte
}

// Node is a NodeProto: one operator application. An empty input name marks
// an omitted optional input.
type Node struct {
	Name      string
	OpType    string
	Domain    string
	Input     []string
	Output    []string
	Attribute []*Attribute
	DocString string
	// Unknown holds unmodelled fields (overload, metadata_props, ...).
	Unknown []byte
}

// Attr returns the node's attribute with the given name, or nil.
func (n *Node) Attr(name string) *Attribute {
	for _, a := range n.Attribute {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Attribute is an AttributeProto. Type says which value field is in use.
type Attribute struct {
	Name        string
	Type        AttrType
	F           float32
	I           int64
	S           []byte
	T           *Tensor
	G           *Graph
	Floats      []float32
	Ints        []int64
	Strings     [][]byte
	Tensors     []*Tensor
	Graphs      []*Graph
	RefAttrName string
	DocString   string
	// Unknown holds unmodelled fields (sparse_tensor(s), tp, type_protos).
	Unknown []byte
}

// ValueInfo is a ValueInfoProto: a named value and its type.
type ValueInfo struct {
	Name      string
	Type      *TypeProto
	DocString string
	// Unknown holds unmodelled fields (metadata_props).
	Unknown []byte
}

// TypeProto is an ONNX TypeProto. At most one of the kind fields is set.
type TypeProto struct {
	TensorType       *TensorType
	SequenceType     *TypeProto // element type of a sequence
	MapType          *MapType
	OptionalType     *TypeProto // element type of an optional
	SparseTensorType *TensorType
	Denotation       string
	// Unknown holds unmodelled fields (opaque_type, ...).
	Unknown []byte
}

// TensorType is TypeProto.Tensor: an element type and an optional shape.
// A nil Shape means the rank is unknown; a Shape with no Dim is a scalar.
type TensorType struct {
	ElemType DataType
	Shape    *Shape
	Unknown  []byte
}

// MapType is TypeProto.Map.
type MapType struct {
	KeyType   DataType
	ValueType *TypeProto
	Unknown   []byte
}

// Shape is a TensorShapeProto.
type Shape struct {
	Dim     []Dim
	Unknown []byte
}

// Dim is one TensorShapeProto.Dimension: a fixed size (HasValue), a symbolic
// name (Param), or neither (unknown).
type Dim struct {
	Value      int64
	Param      string
	HasValue   bool
	Denotation string
}

// String returns the size, the parameter name, or "?".
func (d Dim) String() string {
	switch {
	case d.HasValue:
		return strconv.FormatInt(d.Value, 10)
	case d.Param != "":
		return d.Param
	}
	return "?"
}

// DataType is TensorProto.DataType, the element type of a tensor.
type DataType int32

// The ONNX element types.
const (
	Undefined      DataType = 0
	Float          DataType = 1
	Uint8          DataType = 2
	Int8           DataType = 3
	Uint16         DataType = 4
	Int16          DataType = 5
	Int32          DataType = 6
	Int64          DataType = 7
	String         DataType = 8
	Bool           DataType = 9
	Float16        DataType = 10
	Double         DataType = 11
	Uint32         DataType = 12
	Uint64         DataType = 13
	Complex64      DataType = 14
	Complex128     DataType = 15
	BFloat16       DataType = 16
	Float8E4M3FN   DataType = 17
	Float8E4M3FNUZ DataType = 18
	Float8E5M2     DataType = 19
	Float8E5M2FNUZ DataType = 20
	Uint4          DataType = 21
	Int4           DataType = 22
	Float4E2M1     DataType = 23
	Float8E8M0     DataType = 24
)

var dataTypeNames = [...]string{
	"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64",
	"STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64",
	"COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
	"FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1", "FLOAT8E8M0",
}

// String returns the ONNX name of the type, e.g. "FLOAT", or "DataType(99)".
func (t DataType) String() string {
	if t >= 0 && int(t) < len(dataTypeNames) {
		return dataTypeNames[t]
	}
	return "DataType(" + strconv.Itoa(int(t)) + ")"
}

// Size returns the bytes per element in raw_data, or 0 for STRING, UNDEFINED,
// the packed sub-byte types (INT4, UINT4, FLOAT4E2M1) and unknown types.
func (t DataType) Size() int {
	switch t {
	case Uint8, Int8, Bool, Float8E4M3FN, Float8E4M3FNUZ, Float8E5M2, Float8E5M2FNUZ, Float8E8M0:
		return 1
	case Uint16, Int16, Float16, BFloat16:
		return 2
	case Float, Int32, Uint32:
		return 4
	case Int64, Double, Uint64, Complex64:
		return 8
	case Complex128:
		return 16
	}
	return 0
}

// AttrType is AttributeProto.AttributeType.
type AttrType int32

// The attribute kinds.
const (
	AttrUndefined     AttrType = 0
	AttrFloat         AttrType = 1
	AttrInt           AttrType = 2
	AttrString        AttrType = 3
	AttrTensor        AttrType = 4
	AttrGraph         AttrType = 5
	AttrFloats        AttrType = 6
	AttrInts          AttrType = 7
	AttrStrings       AttrType = 8
	AttrTensors       AttrType = 9
	AttrGraphs        AttrType = 10
	AttrSparseTensor  AttrType = 11
	AttrSparseTensors AttrType = 12
	AttrTypeProto     AttrType = 13
	AttrTypeProtos    AttrType = 14
)

var attrTypeNames = [...]string{
	"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH", "FLOATS", "INTS",
	"STRINGS", "TENSORS", "GRAPHS", "SPARSE_TENSOR", "SPARSE_TENSORS",
	"TYPE_PROTO", "TYPE_PROTOS",
}

// String returns the ONNX name of the kind, e.g. "INTS", or "AttrType(99)".
func (t AttrType) String() string {
	if t >= 0 && int(t) < len(attrTypeNames) {
		return attrTypeNames[t]
	}
	return "AttrType(" + strconv.Itoa(int(t)) + ")"
}
