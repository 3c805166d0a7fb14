// Package onnxpb reads and writes the ONNX file format: the protobuf messages
// ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto, ValueInfoProto
// and TypeProto, plus the SequenceProto, MapProto and OptionalProto used by the
// ONNX test data, as plain Go structs.
//
// The wire format is decoded and encoded by hand with protowire; no generated
// code and no .proto file are involved. Field numbers follow onnx.proto and
// onnx-data.proto. Fields this package does not model (sparse tensors, functions,
// training info, newer additions) are kept as raw bytes in each struct's Unknown
// field, so Decode followed by Marshal loses nothing. As in protobuf, both
// packed and unpacked encodings of repeated numbers are accepted, and a field
// whose wire type does not match its declaration is kept as unknown. Unlike
// protobuf, a singular message field that occurs twice keeps its last value
// rather than merging the two; and proto2 presence is not tracked, so Marshal
// omits zero scalars (see encode.go). The PP-OCRv4 models re-encode
// byte-for-byte.
//
// Where things are:
//
//	types.go      Model, Graph, Node, Attribute, ValueInfo, TypeProto, DataType, AttrType
//	tensor.go     Tensor and its typed accessors (Float32s, Int64s, ...)
//	wire.go       the field reader shared by all decoders, Error
//	decode.go     Decode, DecodeTensor and the per-message decoders
//	encode.go     Marshal for Model, Tensor and the rest
//	value.go      Sequence, Map, Optional (test-data values)
//	file.go       ReadFile, external-data loading
package onnxpb
