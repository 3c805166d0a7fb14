package pdpb

import (
	"encoding/binary"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// field is one field of a message as read from the wire.
type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64 // a varint, fixed32 or fixed64 value
	b   []byte // a length-delimited payload
}

func (f field) key() uint64 { return key(f.num, f.typ) }

// key is the switch key of a field number and wire type.
func key(n protowire.Number, t protowire.Type) uint64 { return protowire.EncodeTag(n, t) }

// fields calls fn for each field of message b in order. Groups are refused;
// a truncated or malformed field is an error naming its number.
func fields(b []byte, fn func(field) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("bad field tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		f := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			f.v = uint64(v)
		case protowire.Fixed64Type:
			f.v, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
		default:
			return fmt.Errorf("field %d: wire type %d is not supported", num, typ)
		}
		if n < 0 {
			return fmt.Errorf("field %d: %v", num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

func wrongType(f field, name string) error {
	return fmt.Errorf("%s (field %d) has wire type %d", name, f.num, f.typ)
}

func scalarVarint(f field, name string, set func(uint64)) error {
	if f.typ != protowire.VarintType {
		return wrongType(f, name)
	}
	set(f.v)
	return nil
}

// appendVarints reads a repeated varint field, packed or not.
func appendVarints(f field, name string, add func(uint64)) error {
	switch f.typ {
	case protowire.VarintType:
		add(f.v)
	case protowire.BytesType:
		for b := f.b; len(b) > 0; {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return fmt.Errorf("%s: %v", name, protowire.ParseError(n))
			}
			add(v)
			b = b[n:]
		}
	default:
		return wrongType(f, name)
	}
	return nil
}

// appendFixed32 reads a repeated 32-bit field, packed or not.
func appendFixed32(f field, name string, add func(uint32)) error {
	switch f.typ {
	case protowire.Fixed32Type:
		add(uint32(f.v))
	case protowire.BytesType:
		if len(f.b)%4 != 0 {
			return fmt.Errorf("%s: packed length %d is not a multiple of 4", name, len(f.b))
		}
		for i := 0; i < len(f.b); i += 4 {
			add(binary.LittleEndian.Uint32(f.b[i:]))
		}
	default:
		return wrongType(f, name)
	}
	return nil
}

// appendFixed64 reads a repeated 64-bit field, packed or not.
func appendFixed64(f field, name string, add func(uint64)) error {
	switch f.typ {
	case protowire.Fixed64Type:
		add(f.v)
	case protowire.BytesType:
		if len(f.b)%8 != 0 {
			return fmt.Errorf("%s: packed length %d is not a multiple of 8", name, len(f.b))
		}
		for i := 0; i < len(f.b); i += 8 {
			add(binary.LittleEndian.Uint64(f.b[i:]))
		}
	default:
		return wrongType(f, name)
	}
	return nil
}
