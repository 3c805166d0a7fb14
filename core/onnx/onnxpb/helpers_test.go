package onnxpb

import (
	"encoding/json"
	"math"
)

// dump renders a value as indented JSON for failure messages.
func dump(v any) string {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// sampleModel returns a model that uses every modelled field at least once,
// with a subgraph, several tensor storage forms and unknown fields.
func sampleModel() *Model {
	sub := &Graph{
		Name: "then",
		Node: []*Node{{OpType: "Identity", Input: []string{"w"}, Output: []string{"t"}}},
		Output: []*ValueInfo{{Name: "t", Type: &TypeProto{TensorType: &TensorType{
			ElemType: Float, Shape: &Shape{Dim: []Dim{{Param: "N", Denotation: "DATA_BATCH"}}}}}}},
	}
	return &Model{
		IRVersion:       8,
		OpsetImport:     []OpsetID{{"", 17}, {"com.example", 1}},
		ProducerName:    "paddle",
		ProducerVersion: "0.1",
		Domain:          "org.example",
		ModelVersion:    3,
		DocString:       "a sample",
		MetadataProps:   []StringStringEntry{{"k", "v"}, {"empty", ""}},
		Unknown:         []byte{0xa2, 0x01, 0x00}, // training_info {}
		Graph: &Graph{
			Name:      "main",
			DocString: "graph doc",
			Node: []*Node{
				{Name: "c", OpType: "Constant", Output: []string{"k"}, Attribute: []*Attribute{
					{Name: "value", Type: AttrTensor, T: &Tensor{DataType: Int64, Dims: []int64{2}, Int64Data: []int64{-1, 1 << 40}}},
				}},
				{Name: "if", OpType: "If", Domain: "", Input: []string{"cond"}, Output: []string{"y"}, DocString: "node doc",
					Attribute: []*Attribute{
						{Name: "then_branch", Type: AttrGraph, G: sub},
						{Name: "else_branch", Type: AttrGraph, G: &Graph{Name: "else"}},
					}},
				{Name: "all", OpType: "Custom", Domain: "com.example", Input: []string{"x", "", "k"}, Output: []string{"z"},
					Unknown: []byte{0x42, 0x01, 0x6f}, // overload "o"
					Attribute: []*Attribute{
						{Name: "f", Type: AttrFloat, F: -0.25},
						{Name: "zero", Type: AttrFloat},
						{Name: "i", Type: AttrInt, I: -7},
						{Name: "s", Type: AttrString, S: []byte("hello")},
						{Name: "empty", Type: AttrString, S: []byte{}},
						{Name: "fs", Type: AttrFloats, Floats: []float32{1, float32(math.Inf(-1)), 3.5}},
						{Name: "is", Type: AttrInts, Ints: []int64{0, -1, math.MaxInt64}},
						{Name: "ss", Type: AttrStrings, Strings: [][]byte{[]byte("a"), {}, []byte("ccc")}},
						{Name: "ts", Type: AttrTensors, Tensors: []*Tensor{
							{DataType: Double, Dims: []int64{1}, DoubleData: []float64{math.Pi}},
							{DataType: String, Dims: []int64{2}, StringData: [][]byte{[]byte("x"), []byte("yz")}},
						}},
						{Name: "gs", Type: AttrGraphs, Graphs: []*Graph{{Name: "g0"}, {Name: "g1"}}},
						{Name: "ref", Type: AttrInt, RefAttrName: "outer", DocString: "attr doc"},
					}},
			},
			Initializer: []*Tensor{
				FromFloat32s("w", []int64{2, 2}, []float32{1, 2, 3, 4}),
				{Name: "u", DataType: Uint64, Dims: []int64{2}, Uint64Data: []uint64{1, math.MaxUint64}},
				{Name: "h", DataType: Float16, Dims: []int64{3}, Int32Data: []int32{0x3c00, 0xc000, 0x7c00}},
				{Name: "e", DataType: Float, Dims: []int64{0}, RawData: []byte{}},
				{Name: "ext", DataType: Float, Dims: []int64{4}, DataLocation: LocationExternal,
					ExternalData: []StringStringEntry{{"location", "w.bin"}, {"offset", "0"}, {"length", "16"}},
					DocString:    "external", Unknown: []byte{0x1a, 0x04, 0x08, 0x00, 0x10, 0x04}}, // segment {begin 0, end 4}
			},
			Input: []*ValueInfo{
				{Name: "x", Type: &TypeProto{TensorType: &TensorType{ElemType: Float, Shape: &Shape{Dim: []Dim{
					{Param: "N"}, {Value: 3, HasValue: true}, {Value: 0, HasValue: true}, {}}}}}, DocString: "input"},
				{Name: "cond", Type: &TypeProto{TensorType: &TensorType{ElemType: Bool, Shape: &Shape{}}}},
				{Name: "seq", Type: &TypeProto{SequenceType: &TypeProto{TensorType: &TensorType{ElemType: Int32}}}},
				{Name: "map", Type: &TypeProto{MapType: &MapType{KeyType: String, ValueType: &TypeProto{
					TensorType: &TensorType{ElemType: Float}}}}},
				{Name: "opt", Type: &TypeProto{OptionalType: &TypeProto{SequenceType: &TypeProto{}}, Denotation: "TENSOR"}},
				{Name: "sp", Type: &TypeProto{SparseTensorType: &TensorType{ElemType: Float, Shape: &Shape{Dim: []Dim{{Value: 5, HasValue: true}}}}}},
			},
			Output:    []*ValueInfo{{Name: "z", Type: &TypeProto{TensorType: &TensorType{ElemType: Float}}}, {Name: "y"}},
			ValueInfo: []*ValueInfo{{Name: "k", Type: &TypeProto{TensorType: &TensorType{ElemType: Int64, Shape: &Shape{Dim: []Dim{{Value: 2, HasValue: true}}}}}}},
			Unknown:   []byte{0x82, 0x01, 0x00}, // metadata_props {} (field 16)
		},
	}
}
