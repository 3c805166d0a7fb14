package onnx

import (
	"fmt"

	"paddle/core/onnx/onnxpb"
	"paddle/core/tensor"
)

// DType maps an ONNX element type to a tensor dtype.
func DType(t onnxpb.DataType) (tensor.DType, error) {
	switch t {
	case onnxpb.Float:
		return tensor.Float32, nil
	case onnxpb.Double:
		return tensor.Float64, nil
	case onnxpb.Int64:
		return tensor.Int64, nil
	case onnxpb.Int32:
		return tensor.Int32, nil
	case onnxpb.Uint8:
		return tensor.Uint8, nil
	case onnxpb.Int8:
		return tensor.Int8, nil
	case onnxpb.Bool:
		return tensor.Bool, nil
	}
	return tensor.Invalid, fmt.Errorf("element type %v is not supported (want FLOAT, DOUBLE, INT64, INT32, UINT8, INT8 or BOOL)", t)
}

// ONNXType maps a tensor dtype to its ONNX element type.
func ONNXType(d tensor.DType) onnxpb.DataType {
	switch d {
	case tensor.Float32:
		return onnxpb.Float
	case tensor.Float64:
		return onnxpb.Double
	case tensor.Int64:
		return onnxpb.Int64
	case tensor.Int32:
		return onnxpb.Int32
	case tensor.Uint8:
		return onnxpb.Uint8
	case tensor.Int8:
		return onnxpb.Int8
	case tensor.Bool:
		return onnxpb.Bool
	}
	return onnxpb.Undefined
}

// Tensor converts an ONNX TensorProto to a tensor.
func Tensor(p *onnxpb.Tensor) (*tensor.Tensor, error) {
	d, err := DType(p.DataType)
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", p.Name, err)
	}
	shape := make([]int, len(p.Dims))
	for i, v := range p.Dims {
		shape[i] = int(v)
	}
	var t *tensor.Tensor
	switch d {
	case tensor.Float32:
		var v []float32
		if v, err = p.Float32s(); err == nil {
			t = tensor.FromSlice(v, shape...)
		}
	case tensor.Float64:
		var v []float64
		if v, err = p.Float64s(); err == nil {
			t = tensor.FromSlice(v, shape...)
		}
	case tensor.Int64:
		var v []int64
		if v, err = p.Int64s(); err == nil {
			t = tensor.FromSlice(v, shape...)
		}
	case tensor.Int32:
		var v []int32
		if v, err = p.Int32s(); err == nil {
			t = tensor.FromSlice(v, shape...)
		}
	case tensor.Uint8:
		var v []uint8
		if v, err = p.Uint8s(); err == nil {
			t = tensor.FromSlice(v, shape...)
		}
	case tensor.Int8:
		var v []int8
		if v, err = p.Int8s(); err == nil {
			t = tensor.FromSlice(v, shape...)
		}
	case tensor.Bool:
		var v []bool
		if v, err = p.Bools(); err == nil {
			t = tensor.FromSlice(v, shape...)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", p.Name, err)
	}
	return t, nil
}

// onnxDataType converts a Cast "to" attribute value.
func onnxDataType(to int) onnxpb.DataType { return onnxpb.DataType(to) }
