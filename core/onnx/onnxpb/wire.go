package onnxpb

import (
	"bytes"
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	"paddle/core/io/protopath"
)

// maxDepth bounds message nesting (graphs inside attributes inside graphs,
// sequences of sequences), as protobuf's own parsers do, so hostile input
// cannot exhaust the stack.
const maxDepth = 100

// Error reports where in the message tree decoding or encoding failed
// (format "onnx").
type Error = protopath.Error

const format = "onnx"

func at(err error, elem string) error             { return protopath.At(format, err, elem) }
func atIndex(err error, name string, i int) error { return protopath.AtIndex(format, err, name, i) }
func topErr(err error) error                      { return protopath.Top(format, err) }

// field is one field of a protobuf message as read from the wire.
type field struct {
	num protowire.Number
	typ protowire.Type
	v   uint64 // the value of a varint, fixed32 or fixed64 field
	b   []byte // the payload of a length-delimited field
	raw []byte // the whole encoded field, tag included
}

// tag is the key a switch over fields matches: field number and wire type.
func (f *field) tag() uint64 { return uint64(protowire.EncodeTag(f.num, f.typ)) }

// Wire-type-qualified keys for field numbers, used as switch cases.
func varintKey(n protowire.Number) uint64 {
	return uint64(protowire.EncodeTag(n, protowire.VarintType))
}
func bytesKey(n protowire.Number) uint64 { return uint64(protowire.EncodeTag(n, protowire.BytesType)) }
func fixed32Key(n protowire.Number) uint64 {
	return uint64(protowire.EncodeTag(n, protowire.Fixed32Type))
}
func fixed64Key(n protowire.Number) uint64 {
	return uint64(protowire.EncodeTag(n, protowire.Fixed64Type))
}

// The failure codes protowire returns, found once by provoking each.
var (
	codeTruncated   = func() int { _, n := protowire.ConsumeVarint([]byte{0x80}); return n }()
	codeFieldNumber = func() int { _, _, n := protowire.ConsumeTag([]byte{0}); return n }()
	codeOverflow    = func() int { _, n := protowire.ConsumeVarint(bytes.Repeat([]byte{0xff}, 11)); return n }()
)

// parseErr turns a protowire failure code n, met while reading what, into a
// short message.
func parseErr(what string, n int) error {
	switch n {
	case codeTruncated:
		return errors.New("truncated " + what)
	case codeFieldNumber:
		return errors.New("invalid field number")
	case codeOverflow:
		return errors.New(what + " overflows 64 bits")
	}
	return fmt.Errorf("bad %s: %w", what, protowire.ParseError(n))
}

// walk calls fn for every field of the message b, in wire order. A field whose
// wire type does not match what fn expects is fn's to keep as unknown, as
// protobuf parsers do.
func walk(b []byte, fn func(f *field) error) error {
	var f field
	for len(b) > 0 {
		start := b
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return parseErr("tag", n)
		}
		b = b[n:]
		f = field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b)
			if n < 0 {
				return fmt.Errorf("field %d: %w", num, parseErr("varint", n))
			}
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			if n < 0 {
				return fmt.Errorf("field %d: %w", num, parseErr("fixed32", n))
			}
			f.v = uint64(v)
		case protowire.Fixed64Type:
			f.v, n = protowire.ConsumeFixed64(b)
			if n < 0 {
				return fmt.Errorf("field %d: %w", num, parseErr("fixed64", n))
			}
		case protowire.BytesType:
			f.b, n = protowire.ConsumeBytes(b)
			if n < 0 {
				return fmt.Errorf("field %d: %w", num, parseErr("length-delimited value", n))
			}
		case protowire.StartGroupType:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return fmt.Errorf("field %d: %w", num, parseErr("group", n))
			}
		default: // EndGroupType outside a group
			return fmt.Errorf("field %d: unexpected wire type %d", num, typ)
		}
		b = b[n:]
		f.raw = start[:len(start)-len(b)]
		if err := fn(&f); err != nil {
			return err
		}
	}
	return nil
}

// Scalar conversions for field values.

func f32(v uint64) float32 { return math.Float32frombits(uint32(v)) }
func f64(v uint64) float64 { return math.Float64frombits(v) }

// appendVarints appends the int64 values of a repeated varint field, packed
// (one length-delimited run) or not (one value per field).
func appendVarints[T int64 | int32 | uint64](dst []T, f *field) ([]T, error) {
	if f.typ == protowire.VarintType {
		return append(dst, T(f.v)), nil
	}
	b := f.b
	if dst == nil {
		// Every varint takes at least one byte; this is an upper bound.
		dst = make([]T, 0, min(len(b), 1<<20))
	}
	for len(b) > 0 {
		v, n := protowire.ConsumeVarint(b)
		if n < 0 {
			return dst, parseErr("varint in packed field", n)
		}
		dst = append(dst, T(v))
		b = b[n:]
	}
	return dst, nil
}

// appendFloats appends the values of a repeated float field, packed or not.
func appendFloats(dst []float32, f *field) ([]float32, error) {
	if f.typ == protowire.Fixed32Type {
		return append(dst, f32(f.v)), nil
	}
	if len(f.b)%4 != 0 {
		return dst, fmt.Errorf("packed float field has %d bytes, not a multiple of 4", len(f.b))
	}
	dst = growTo(dst, len(f.b)/4)
	for b := f.b; len(b) > 0; b = b[4:] {
		v, _ := protowire.ConsumeFixed32(b)
		dst = append(dst, math.Float32frombits(v))
	}
	return dst, nil
}

// appendDoubles appends the values of a repeated double field, packed or not.
func appendDoubles(dst []float64, f *field) ([]float64, error) {
	if f.typ == protowire.Fixed64Type {
		return append(dst, f64(f.v)), nil
	}
	if len(f.b)%8 != 0 {
		return dst, fmt.Errorf("packed double field has %d bytes, not a multiple of 8", len(f.b))
	}
	dst = growTo(dst, len(f.b)/8)
	for b := f.b; len(b) > 0; b = b[8:] {
		v, _ := protowire.ConsumeFixed64(b)
		dst = append(dst, math.Float64frombits(v))
	}
	return dst, nil
}

// growTo makes room for n more elements.
func growTo[T any](s []T, n int) []T {
	if cap(s)-len(s) < n {
		t := make([]T, len(s), len(s)+n)
		copy(t, s)
		return t
	}
	return s
}
