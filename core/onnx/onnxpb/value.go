package onnxpb

import (
	"bytes"
	"errors"
)

// Element kinds of SequenceProto.elem_type and OptionalProto.elem_type.
const (
	ElemUndefined    int32 = 0
	ElemTensor       int32 = 1
	ElemSparseTensor int32 = 2
	ElemSequence     int32 = 3
	ElemMap          int32 = 4
	ElemOptional     int32 = 5
)

// Sequence is a SequenceProto (onnx-data.proto): an ordered list of values
// of one kind, as found in the ONNX test data of sequence operators.
type Sequence struct {
	Name      string
	ElemType  int32
	Tensors   []*Tensor
	Sequences []*Sequence
	Maps      []*Map
	Optionals []*Optional
	// Unknown holds unmodelled fields (sparse_tensor_values).
	Unknown []byte
}

// Map is a MapProto: integer or string keys and a Sequence of values.
type Map struct {
	Name       string
	KeyType    DataType
	Keys       []int64
	StringKeys [][]byte
	Values     *Sequence
	Unknown    []byte
}

// Optional is an OptionalProto: zero or one value. All value fields nil
// means the optional is empty.
type Optional struct {
	Name     string
	ElemType int32
	Tensor   *Tensor
	Sequence *Sequence
	Map      *Map
	Optional *Optional
	// Unknown holds unmodelled fields (sparse_tensor_value).
	Unknown []byte
}

// DecodeSequence parses a serialized SequenceProto.
func DecodeSequence(b []byte) (*Sequence, error) {
	var d decoder
	s, err := d.sequence(bytes.Clone(b))
	if err != nil {
		return nil, topErr(err)
	}
	return s, nil
}

// DecodeMap parses a serialized MapProto.
func DecodeMap(b []byte) (*Map, error) {
	var d decoder
	m, err := d.mapValue(bytes.Clone(b))
	if err != nil {
		return nil, topErr(err)
	}
	return m, nil
}

// DecodeOptional parses a serialized OptionalProto.
func DecodeOptional(b []byte) (*Optional, error) {
	var d decoder
	o, err := d.optional(bytes.Clone(b))
	if err != nil {
		return nil, topErr(err)
	}
	return o, nil
}

// DecodeValue parses a serialized value of type typ, as the ONNX test runner
// does with input_N.pb / output_N.pb: the result is a *Tensor (for tensor and
// sparse-tensor types, or a nil typ), *Sequence, *Map or *Optional.
func DecodeValue(b []byte, typ *TypeProto) (any, error) {
	switch {
	case typ == nil || typ.TensorType != nil:
		return DecodeTensor(b)
	case typ.SequenceType != nil:
		return DecodeSequence(b)
	case typ.MapType != nil:
		return DecodeMap(b)
	case typ.OptionalType != nil:
		return DecodeOptional(b)
	}
	return nil, topErr(errors.New("value type is none of tensor, sequence, map or optional"))
}

func (d *decoder) sequence(b []byte) (*Sequence, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	s := &Sequence{}
	err := walk(b, func(f *field) error {
		switch f.tag() {
		case bytesKey(1):
			s.Name = string(f.b)
		case varintKey(2):
			s.ElemType = int32(f.v)
		case bytesKey(3):
			t, err := d.tensor(f.b)
			if err != nil {
				return atIndex(err, "tensor_values", len(s.Tensors))
			}
			s.Tensors = append(s.Tensors, t)
		case bytesKey(5):
			v, err := d.sequence(f.b)
			if err != nil {
				return atIndex(err, "sequence_values", len(s.Sequences))
			}
			s.Sequences = append(s.Sequences, v)
		case bytesKey(6):
			v, err := d.mapValue(f.b)
			if err != nil {
				return atIndex(err, "map_values", len(s.Maps))
			}
			s.Maps = append(s.Maps, v)
		case bytesKey(7):
			v, err := d.optional(f.b)
			if err != nil {
				return atIndex(err, "optional_values", len(s.Optionals))
			}
			s.Optionals = append(s.Optionals, v)
		default:
			s.Unknown = append(s.Unknown, f.raw...)
		}
		return nil
	})
	return s, err
}

func (d *decoder) mapValue(b []byte) (*Map, error) {
	m := &Map{}
	err := walk(b, func(f *field) error {
		var err error
		switch f.tag() {
		case bytesKey(1):
			m.Name = string(f.b)
		case varintKey(2):
			m.KeyType = DataType(int32(f.v))
		case varintKey(3), bytesKey(3):
			if m.Keys, err = appendVarints(m.Keys, f); err != nil {
				return at(err, "keys")
			}
		case bytesKey(4):
			m.StringKeys = append(m.StringKeys, f.b)
		case bytesKey(5):
			if m.Values, err = d.sequence(f.b); err != nil {
				return at(err, "values")
			}
		default:
			m.Unknown = append(m.Unknown, f.raw...)
		}
		return nil
	})
	return m, err
}

func (d *decoder) optional(b []byte) (*Optional, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	defer d.leave()
	o := &Optional{}
	err := walk(b, func(f *field) error {
		var err error
		switch f.tag() {
		case bytesKey(1):
			o.Name = string(f.b)
		case varintKey(2):
			o.ElemType = int32(f.v)
		case bytesKey(3):
			if o.Tensor, err = d.tensor(f.b); err != nil {
				return at(err, "tensor_value")
			}
		case bytesKey(5):
			if o.Sequence, err = d.sequence(f.b); err != nil {
				return at(err, "sequence_value")
			}
		case bytesKey(6):
			if o.Map, err = d.mapValue(f.b); err != nil {
				return at(err, "map_value")
			}
		case bytesKey(7):
			if o.Optional, err = d.optional(f.b); err != nil {
				return at(err, "optional_value")
			}
		default:
			o.Unknown = append(o.Unknown, f.raw...)
		}
		return nil
	})
	return o, err
}
