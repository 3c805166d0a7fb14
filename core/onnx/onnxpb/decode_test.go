package onnxpb

import (
	"bytes"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// h decodes a hex string written with spaces between bytes.
func h(s string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

// The byte strings below are written by hand from onnx.proto: tag = field<<3 | wire type
// (0 varint, 2 length-delimited, 5 fixed32), lengths and varints as protobuf encodes them.
func TestDecodeKnownBytes(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		want      *Model
		canonical bool // Marshal(want) gives back exactly in
	}{
		{
			name: "model header fields",
			// ir_version=8, producer_name="p", graph{name="g"}, opset_import{domain="", version=11},
			// metadata_props{key="k", value="v"}
			in: "08 08  12 01 70  3a 03 12 01 67  42 04 0a 00 10 0b  72 06 0a 01 6b 12 01 76",
			want: &Model{
				IRVersion: 8, ProducerName: "p", Graph: &Graph{Name: "g"},
				OpsetImport:   []OpsetID{{Domain: "", Version: 11}},
				MetadataProps: []StringStringEntry{{Key: "k", Value: "v"}},
			},
			canonical: true,
		},
		{
			name: "unknown and mismatched fields are kept",
			// training_info (field 20, empty message) is not modelled; ir_version sent as a
			// length-delimited field does not match its varint type.
			in:        "a2 01 00  0a 01 00  4d 01 02 03 04",
			want:      &Model{Unknown: h("a2 01 00  0a 01 00  4d 01 02 03 04")},
			canonical: true,
		},
		{
			name: "node with ints unpacked and packed, float and negative int",
			// graph{node{input "a", input "", output "y", op_type "Pad", domain "d",
			//   attribute{name "pads", ints 1, ints 2 (unpacked), ints [3, 4] (packed), type INTS},
			//   attribute{name "f", f 0.5, type FLOAT},
			//   attribute{name "i", i -1, type INT}}}
			in: "3a 45 0a 43" +
				" 0a 01 61  0a 00  12 01 79  22 03 50 61 64  3a 01 64" +
				" 2a 11 0a 04 70 61 64 73  40 01  40 02  42 02 03 04  a0 01 07" +
				" 2a 0b 0a 01 66  15 00 00 00 3f  a0 01 01" +
				" 2a 11 0a 01 69  18 ff ff ff ff ff ff ff ff ff 01  a0 01 02",
			want: &Model{Graph: &Graph{Node: []*Node{{
				Input: []string{"a", ""}, Output: []string{"y"}, OpType: "Pad", Domain: "d",
				Attribute: []*Attribute{
					{Name: "pads", Type: AttrInts, Ints: []int64{1, 2, 3, 4}},
					{Name: "f", Type: AttrFloat, F: 0.5},
					{Name: "i", Type: AttrInt, I: -1},
				},
			}}}},
		},
		{
			name: "value info with symbolic and fixed dims",
			// graph{input{name "x", type{tensor_type{elem_type FLOAT, shape{dim{dim_param "N"}, dim{dim_value 3}, dim{}}}}}}
			in: "3a 1a 5a 18  0a 01 78  12 13 0a 11  08 01  12 0d  0a 03 12 01 4e  0a 02 08 03  0a 00 0a 00",
			want: &Model{Graph: &Graph{Input: []*ValueInfo{{
				Name: "x",
				Type: &TypeProto{TensorType: &TensorType{ElemType: Float, Shape: &Shape{Dim: []Dim{
					{Param: "N"}, {Value: 3, HasValue: true}, {}, {},
				}}}},
			}}}},
			canonical: true,
		},
		{
			name: "scalar shape and unknown rank stay distinct",
			// graph{output{name "s", type{tensor_type{elem_type INT64, shape{}}}},
			//       output{name "u", type{tensor_type{elem_type INT64}}}}
			in: "3a 18  62 0b 0a 01 73 12 06 0a 04 08 07 12 00  62 09 0a 01 75 12 04 0a 02 08 07",
			want: &Model{Graph: &Graph{Output: []*ValueInfo{
				{Name: "s", Type: &TypeProto{TensorType: &TensorType{ElemType: Int64, Shape: &Shape{}}}},
				{Name: "u", Type: &TypeProto{TensorType: &TensorType{ElemType: Int64}}},
			}}},
			canonical: true,
		},
		{
			name: "sequence and optional types",
			// graph{input{name "q", type{sequence_type{elem_type{tensor_type{elem_type FLOAT}}}}},
			//       input{name "o", type{optional_type{elem_type{tensor_type{}}}}}}
			in: "3a 1c  5a 0d 0a 01 71 12 08 22 06 0a 04 0a 02 08 01  5a 0b 0a 01 6f 12 06 4a 04 0a 02 0a 00",
			want: &Model{Graph: &Graph{Input: []*ValueInfo{
				{Name: "q", Type: &TypeProto{SequenceType: &TypeProto{TensorType: &TensorType{ElemType: Float}}}},
				{Name: "o", Type: &TypeProto{OptionalType: &TypeProto{TensorType: &TensorType{}}}},
			}}},
			canonical: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode(h(tt.in))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Decode(%s)\n got %s\nwant %s", tt.in, dump(got), dump(tt.want))
			}
			enc, err := tt.want.Marshal()
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if tt.canonical && !bytes.Equal(enc, h(tt.in)) {
				t.Errorf("Marshal = % x, want %s", enc, tt.in)
			}
			if again, err := Decode(enc); err != nil || !reflect.DeepEqual(again, tt.want) {
				t.Errorf("Decode(Marshal(want)) = %s, %v; want %s", dump(again), err, dump(tt.want))
			}
		})
	}
}

func TestDecodeTensorKnownBytes(t *testing.T) {
	want := &Tensor{Name: "w", DataType: Float, Dims: []int64{2, 1}, FloatData: []float32{1, 2}}
	tests := []struct {
		name string
		in   string
		want *Tensor
	}{
		// dims 2, dims 1 (unpacked), data_type FLOAT, float_data packed [1, 2], name "w"
		{"packed floats", "08 02 08 01 10 01 22 08 00 00 80 3f 00 00 00 40 42 01 77", want},
		// dims packed [2, 1], float_data unpacked
		{"unpacked floats", "0a 02 02 01 10 01 25 00 00 80 3f 25 00 00 00 40 42 01 77", want},
		// raw_data, int64_data packed, int32_data packed with -2 (10-byte varint)
		{"raw and ints", "10 07 4a 02 01 02 3a 03 05 80 01 2a 0a fe ff ff ff ff ff ff ff ff 01",
			&Tensor{DataType: Int64, RawData: []byte{1, 2}, Int64Data: []int64{5, 128}, Int32Data: []int32{-2}}},
		// double_data packed [0.5], uint64_data unpacked 7, string_data "ab", ""
		{"doubles, uint64, strings", "52 08 00 00 00 00 00 00 e0 3f 58 07 32 02 61 62 32 00",
			&Tensor{DoubleData: []float64{0.5}, Uint64Data: []uint64{7}, StringData: [][]byte{[]byte("ab"), {}}}},
		// external_data {location "w.bin"}, data_location EXTERNAL
		{"external", "6a 11 0a 08 6c 6f 63 61 74 69 6f 6e 12 05 77 2e 62 69 6e 70 01",
			&Tensor{ExternalData: []StringStringEntry{{"location", "w.bin"}}, DataLocation: LocationExternal}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeTensor(h(tt.in))
			if err != nil {
				t.Fatalf("DecodeTensor: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DecodeTensor(%s)\n got %s\nwant %s", tt.in, dump(got), dump(tt.want))
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	// msg builds a length-delimited field around the concatenated parts.
	msg := func(num protowire.Number, parts ...[]byte) []byte {
		b := protowire.AppendTag(nil, num, protowire.BytesType)
		return protowire.AppendBytes(b, bytes.Join(parts, nil))
	}
	emptyNode := msg(graphNode)
	badAttr := msg(nodeAttribute, h("0a 01 61"), h("18 ff")) // i = truncated varint
	tests := []struct {
		name string
		in   []byte
		want string
	}{
		{"truncated varint", h("08"), "onnx: field 1: truncated varint"},
		{"truncated tag", h("a2"), "onnx: truncated tag"},
		{"field number 0", h("00 01"), "onnx: invalid field number"},
		{"varint overflow", h("08 ff ff ff ff ff ff ff ff ff ff 01"), "onnx: field 1: varint overflows 64 bits"},
		{"length past end", h("3a 05 00"), "onnx: field 7: truncated length-delimited value"},
		{"truncated fixed32", h("3a 05 2a 03 15 00 00"), "onnx: graph.initializer[0]: field 2: truncated fixed32"},
		// optional_type{elem_type{0a}}: a tag with its length missing, three levels down.
		{"optional elem", h("3a 0c 5a 0a 0a 01 6f 12 05 4a 03 0a 01 0a"),
			"onnx: graph.input[0].type.optional_type.elem_type: field 1: truncated length-delimited value"},
		{"end group", h("0c"), "onnx: field 1: unexpected wire type 4"},
		{"nested attribute",
			msg(modelGraph, emptyNode, emptyNode, msg(graphNode, badAttr)),
			"onnx: graph.node[2].attribute[0]: field 3: truncated varint"},
		{"packed ints",
			msg(modelGraph, msg(graphNode, msg(nodeAttribute, h("42 02 01 ff")))),
			"onnx: graph.node[0].attribute[0].ints: truncated varint in packed field"},
		{"packed floats",
			msg(modelGraph, msg(graphInitializer, h("22 03 00 00 00"))),
			"onnx: graph.initializer[0].float_data: packed float field has 3 bytes, not a multiple of 4"},
		{"dim",
			msg(modelGraph, msg(graphOutput, msg(viType, msg(typeTensor, msg(tensorTypeShape, msg(shapeDim, h("08 80"))))))),
			"onnx: graph.output[0].type.tensor_type.shape.dim[0]: field 1: truncated varint"},
		{"too deep", deepGraph(maxDepth + 1), "nested too deeply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Decode(tt.in)
			if err == nil {
				t.Fatalf("Decode(% x) = %s, want error %q", tt.in, dump(m), tt.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("Decode error %T is not *Error", err)
			}
			if !strings.Contains(err.Error(), tt.want) || (tt.name != "too deep" && err.Error() != tt.want) {
				t.Errorf("Decode error = %q, want %q", err, tt.want)
			}
		})
	}
	if _, err := Decode(deepGraph(maxDepth)); err != nil {
		t.Errorf("Decode(graphs nested %d deep): %v", maxDepth, err)
	}
}

// deepGraph returns a model whose graph nests n-1 subgraphs through attributes.
func deepGraph(n int) []byte {
	g := &Graph{Name: "leaf"}
	for range n - 1 {
		g = &Graph{Node: []*Node{{OpType: "If", Attribute: []*Attribute{{Name: "then_branch", Type: AttrGraph, G: g}}}}}
	}
	b, err := (&Model{Graph: g}).Marshal()
	if err != nil {
		panic(err)
	}
	return b
}

// TestDecodeTruncated decodes every prefix of a model that uses every message
// type: no prefix may panic, and each cut inside a field must fail.
func TestDecodeTruncated(t *testing.T) {
	full, err := sampleModel().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(full); err != nil {
		t.Fatalf("Decode(full): %v", err)
	}
	fails := 0
	for i := range len(full) {
		if _, err := Decode(full[:i]); err != nil {
			fails++
		}
	}
	// The model is one top-level graph field followed by a few short fields;
	// every cut inside the graph field (most of the bytes) must fail.
	if fails < len(full)*8/10 {
		t.Errorf("only %d of %d truncations failed", fails, len(full))
	}
}

func TestDecodeDoesNotAliasInput(t *testing.T) {
	in := h("3a 0b 2a 09 4a 02 01 02 42 01 77 10 02")
	m, err := Decode(in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		in[i] = 0xff
	}
	if got := m.Graph.Initializer[0].RawData; !bytes.Equal(got, []byte{1, 2}) {
		t.Errorf("RawData after overwriting the input = %v, want [1 2]", got)
	}
}
