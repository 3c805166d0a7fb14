package io

import (
	"encoding/binary"
	"fmt"
	stdio "io"
	"math"

	"paddle/core/tensor"
)

// writeRaw writes the elements of t in row-major order, little-endian, in
// chunks so that a large tensor needs no second full-size buffer.
func writeRaw(w stdio.Writer, t *tensor.Tensor) error {
	t = t.Contiguous()
	const chunk = 1 << 16 // elements per write
	le := binary.LittleEndian
	buf := make([]byte, 0, chunk*8)
	flush := func() error {
		_, err := w.Write(buf)
		buf = buf[:0]
		return err
	}
	var err error
	switch t.DType() {
	case tensor.Float32:
		err = eachChunk(t.F32(), chunk, func(v float32) { buf = le.AppendUint32(buf, math.Float32bits(v)) }, flush)
	case tensor.Float64:
		err = eachChunk(t.F64(), chunk, func(v float64) { buf = le.AppendUint64(buf, math.Float64bits(v)) }, flush)
	case tensor.Int64:
		err = eachChunk(t.I64(), chunk, func(v int64) { buf = le.AppendUint64(buf, uint64(v)) }, flush)
	case tensor.Int32:
		err = eachChunk(t.I32(), chunk, func(v int32) { buf = le.AppendUint32(buf, uint32(v)) }, flush)
	case tensor.Uint8:
		_, err = w.Write(t.U8())
	case tensor.Int8:
		err = eachChunk(t.I8(), chunk, func(v int8) { buf = append(buf, byte(v)) }, flush)
	case tensor.Bool:
		err = eachChunk(t.Bools(), chunk, func(v bool) {
			b := byte(0)
			if v {
				b = 1
			}
			buf = append(buf, b)
		}, flush)
	default:
		return fmt.Errorf("cannot encode dtype %v", t.DType())
	}
	return err
}

func eachChunk[T any](s []T, chunk int, put func(T), flush func() error) error {
	for i, v := range s {
		put(v)
		if (i+1)%chunk == 0 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// rawKind is the on-disk element type, which may differ from the tensor
// dtype it decodes into (float16 and bfloat16 widen to float32).
type rawKind struct {
	dtype tensor.DType // decoded dtype
	size  int          // bytes per element on disk
	half  int          // 0, or 16 for IEEE float16, or 'b' for bfloat16
}

const (
	halfIEEE = 16
	halfBF16 = 'b'
)

// decodeRaw turns n = shape.NumElements() elements of b into a tensor.
// len(b) must be n*k.size; bool bytes other than 0 and 1 are an error.
func decodeRaw(b []byte, k rawKind, shape tensor.Shape, order binary.ByteOrder) (*tensor.Tensor, error) {
	n := shape.NumElements()
	if len(b) != n*k.size {
		return nil, fmt.Errorf("have %d bytes, want %d for %d elements of %d bytes", len(b), n*k.size, n, k.size)
	}
	t := tensor.New(k.dtype, shape...)
	switch {
	case k.half == halfIEEE:
		dst := t.F32()
		for i := range dst {
			dst[i] = f16ToF32(order.Uint16(b[2*i:]))
		}
	case k.half == halfBF16:
		dst := t.F32()
		for i := range dst {
			dst[i] = math.Float32frombits(uint32(order.Uint16(b[2*i:])) << 16)
		}
	case k.dtype == tensor.Float32:
		dst := t.F32()
		for i := range dst {
			dst[i] = math.Float32frombits(order.Uint32(b[4*i:]))
		}
	case k.dtype == tensor.Float64:
		dst := t.F64()
		for i := range dst {
			dst[i] = math.Float64frombits(order.Uint64(b[8*i:]))
		}
	case k.dtype == tensor.Int64:
		dst := t.I64()
		for i := range dst {
			dst[i] = int64(order.Uint64(b[8*i:]))
		}
	case k.dtype == tensor.Int32:
		dst := t.I32()
		for i := range dst {
			dst[i] = int32(order.Uint32(b[4*i:]))
		}
	case k.dtype == tensor.Uint8:
		copy(t.U8(), b)
	case k.dtype == tensor.Int8:
		dst := t.I8()
		for i := range dst {
			dst[i] = int8(b[i])
		}
	case k.dtype == tensor.Bool:
		dst := t.Bools()
		for i := range dst {
			switch b[i] {
			case 0:
			case 1:
				dst[i] = true
			default:
				return nil, fmt.Errorf("bool element %d has byte value %d (want 0 or 1)", i, b[i])
			}
		}
	default:
		return nil, fmt.Errorf("cannot decode dtype %v", k.dtype)
	}
	return t, nil
}

// f16ToF32 converts an IEEE 754 half-precision value to float32 exactly.
func f16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // inf or NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: value = frac * 2^-24
		v := float32(frac) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}

// checkedNumElements multiplies the dims, failing on negatives or overflow
// (a corrupt header must not make us allocate petabytes or panic).
func checkedNumElements(shape []int64) (tensor.Shape, int64, error) {
	s := make(tensor.Shape, len(shape))
	n := int64(1)
	for i, d := range shape {
		if d < 0 {
			return nil, 0, fmt.Errorf("negative dimension in shape %v", shape)
		}
		if d != 0 && n > math.MaxInt64/8/d {
			return nil, 0, fmt.Errorf("shape %v is too large", shape)
		}
		n *= d
		s[i] = int(d)
	}
	return s, n, nil
}
