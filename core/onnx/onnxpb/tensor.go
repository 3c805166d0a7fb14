package onnxpb

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Tensor is a TensorProto. Its elements are stored in exactly one of RawData
// (fixed-width little-endian) or the typed field for DataType; the accessors
// (Float32s, Int64s, ...) read either. ExternalData and DataLocation describe
// data kept in a separate file; ReadFile loads it into RawData.
type Tensor struct {
	Name         string
	DataType     DataType
	Dims         []int64
	RawData      []byte
	FloatData    []float32
	Int32Data    []int32
	Int64Data    []int64
	DoubleData   []float64
	Uint64Data   []uint64
	StringData   [][]byte
	ExternalData []StringStringEntry
	DataLocation int32 // 0 DEFAULT, 1 EXTERNAL
	DocString    string
	// Unknown holds unmodelled fields (segment, metadata_props, ...).
	Unknown []byte
}

// DataLocation values.
const (
	LocationDefault  int32 = 0
	LocationExternal int32 = 1
)

// TensorProto field numbers.
const (
	tensorDims         = 1
	tensorDataType     = 2
	tensorFloatData    = 4
	tensorInt32Data    = 5
	tensorStringData   = 6
	tensorInt64Data    = 7
	tensorName         = 8
	tensorRawData      = 9
	tensorDoubleData   = 10
	tensorUint64Data   = 11
	tensorDocString    = 12
	tensorExternalData = 13
	tensorDataLocation = 14
)

func (d *decoder) tensor(b []byte) (*Tensor, error) {
	t := &Tensor{}
	err := walk(b, func(f *field) error {
		var err error
		switch f.tag() {
		case varintKey(tensorDims), bytesKey(tensorDims):
			if t.Dims, err = appendVarints(t.Dims, f); err != nil {
				return at(err, "dims")
			}
		case varintKey(tensorDataType):
			t.DataType = DataType(int32(f.v))
		case fixed32Key(tensorFloatData), bytesKey(tensorFloatData):
			if t.FloatData, err = appendFloats(t.FloatData, f); err != nil {
				return at(err, "float_data")
			}
		case varintKey(tensorInt32Data), bytesKey(tensorInt32Data):
			if t.Int32Data, err = appendVarints(t.Int32Data, f); err != nil {
				return at(err, "int32_data")
			}
		case bytesKey(tensorStringData):
			t.StringData = append(t.StringData, f.b)
		case varintKey(tensorInt64Data), bytesKey(tensorInt64Data):
			if t.Int64Data, err = appendVarints(t.Int64Data, f); err != nil {
				return at(err, "int64_data")
			}
		case bytesKey(tensorName):
			t.Name = string(f.b)
		case bytesKey(tensorRawData):
			t.RawData = f.b
		case fixed64Key(tensorDoubleData), bytesKey(tensorDoubleData):
			if t.DoubleData, err = appendDoubles(t.DoubleData, f); err != nil {
				return at(err, "double_data")
			}
		case varintKey(tensorUint64Data), bytesKey(tensorUint64Data):
			if t.Uint64Data, err = appendVarints(t.Uint64Data, f); err != nil {
				return at(err, "uint64_data")
			}
		case bytesKey(tensorDocString):
			t.DocString = string(f.b)
		case bytesKey(tensorExternalData):
			e, err := stringEntry(f.b)
			if err != nil {
				return atIndex(err, "external_data", len(t.ExternalData))
			}
			t.ExternalData = append(t.ExternalData, e)
		case varintKey(tensorDataLocation):
			t.DataLocation = int32(f.v)
		default:
			t.Unknown = append(t.Unknown, f.raw...)
		}
		return nil
	})
	return t, err
}

// NumElements returns the product of Dims: 1 for a scalar, and -1 when a
// dimension is negative or the product overflows.
func (t *Tensor) NumElements() int64 {
	n := int64(1)
	for _, d := range t.Dims {
		if d < 0 || (d > 0 && n > math.MaxInt64/d) {
			return -1
		}
		n *= d
	}
	return n
}

// count checks that the tensor holds dtype want and returns its element count.
func (t *Tensor) count(want ...DataType) (int, error) {
	ok := false
	for _, w := range want {
		ok = ok || t.DataType == w
	}
	if !ok {
		names := make([]string, len(want))
		for i, w := range want {
			names[i] = w.String()
		}
		return 0, fmt.Errorf("onnx: tensor %q: data type %v, want %s", t.Name, t.DataType, strings.Join(names, " or "))
	}
	n := t.NumElements()
	if n < 0 || n > math.MaxInt64/16 {
		return 0, fmt.Errorf("onnx: tensor %q: bad dims %v", t.Name, t.Dims)
	}
	if t.DataLocation == LocationExternal && len(t.RawData) == 0 && n > 0 {
		return 0, fmt.Errorf("onnx: tensor %q: data is in an external file not loaded (use ReadFile)", t.Name)
	}
	return int(n), nil
}

// fromRaw decodes n little-endian elements of size bytes from RawData.
func fromRaw[T any](t *Tensor, n, size int, conv func([]byte) T) ([]T, error) {
	if err := t.rawSize(n, size); err != nil {
		return nil, err
	}
	out := make([]T, n)
	for i := range out {
		out[i] = conv(t.RawData[i*size:])
	}
	return out, nil
}

// rawSize checks that RawData holds n elements of size bytes.
func (t *Tensor) rawSize(n, size int) error {
	if len(t.RawData) != n*size {
		return fmt.Errorf("onnx: tensor %q: raw_data has %d bytes, want %d (%d %v elements)",
			t.Name, len(t.RawData), n*size, n, t.DataType)
	}
	return nil
}

// rawFloat32s is fromRaw for FLOAT in a loop the compiler reduces to
// loads (most of a model's bytes: the generic one calls a func per element).
func rawFloat32s(t *Tensor, n int) ([]float32, error) {
	if err := t.rawSize(n, 4); err != nil {
		return nil, err
	}
	out, b := make([]float32, n), t.RawData
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}

// fromTyped converts the n values of a typed field.
func fromTyped[S, T any](t *Tensor, name string, src []S, n int, conv func(S) T) ([]T, error) {
	if len(src) != n {
		return nil, fmt.Errorf("onnx: tensor %q: %s has %d values, want %d", t.Name, name, len(src), n)
	}
	out := make([]T, n)
	for i, v := range src {
		out[i] = conv(v)
	}
	return out, nil
}

func le16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }
func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }
func same[T any](v T) T    { return v }

// Float32s returns the elements of a FLOAT, FLOAT16 or BFLOAT16 tensor as
// float32 (the 16-bit types are widened exactly).
func (t *Tensor) Float32s() ([]float32, error) {
	n, err := t.count(Float, Float16, BFloat16)
	if err != nil {
		return nil, err
	}
	half := HalfToFloat32
	if t.DataType == BFloat16 {
		half = BFloat16ToFloat32
	}
	switch {
	case len(t.RawData) > 0 && t.DataType == Float:
		return rawFloat32s(t, n)
	case len(t.RawData) > 0:
		return fromRaw(t, n, 2, func(b []byte) float32 { return half(le16(b)) })
	case t.DataType == Float:
		return fromTyped(t, "float_data", t.FloatData, n, same[float32])
	}
	return fromTyped(t, "int32_data", t.Int32Data, n, func(v int32) float32 { return half(uint16(v)) })
}

// Float64s returns the elements of a DOUBLE tensor.
func (t *Tensor) Float64s() ([]float64, error) {
	n, err := t.count(Double)
	if err != nil {
		return nil, err
	}
	if len(t.RawData) > 0 {
		return fromRaw(t, n, 8, func(b []byte) float64 { return math.Float64frombits(le64(b)) })
	}
	return fromTyped(t, "double_data", t.DoubleData, n, same[float64])
}

// Int64s returns the elements of an INT64 tensor.
func (t *Tensor) Int64s() ([]int64, error) {
	n, err := t.count(Int64)
	if err != nil {
		return nil, err
	}
	if len(t.RawData) > 0 {
		return fromRaw(t, n, 8, func(b []byte) int64 { return int64(le64(b)) })
	}
	return fromTyped(t, "int64_data", t.Int64Data, n, same[int64])
}

// Int32s returns the elements of an INT32 tensor.
func (t *Tensor) Int32s() ([]int32, error) {
	n, err := t.count(Int32)
	if err != nil {
		return nil, err
	}
	if len(t.RawData) > 0 {
		return fromRaw(t, n, 4, func(b []byte) int32 { return int32(le32(b)) })
	}
	return fromTyped(t, "int32_data", t.Int32Data, n, same[int32])
}

// small reads a type stored one element per byte in raw_data or one per
// int32 in int32_data (UINT8, INT8, BOOL).
func small[T any](t *Tensor, dt DataType, conv func(uint8) T) ([]T, error) {
	n, err := t.count(dt)
	if err != nil {
		return nil, err
	}
	if len(t.RawData) > 0 {
		return fromRaw(t, n, 1, func(b []byte) T { return conv(b[0]) })
	}
	return fromTyped(t, "int32_data", t.Int32Data, n, func(v int32) T { return conv(uint8(v)) })
}

// Uint8s returns the elements of a UINT8 tensor.
func (t *Tensor) Uint8s() ([]uint8, error) { return small(t, Uint8, same[uint8]) }

// Int8s returns the elements of an INT8 tensor.
func (t *Tensor) Int8s() ([]int8, error) {
	return small(t, Int8, func(v uint8) int8 { return int8(v) })
}

// Bools returns the elements of a BOOL tensor; any non-zero byte is true.
func (t *Tensor) Bools() ([]bool, error) {
	return small(t, Bool, func(v uint8) bool { return v != 0 })
}

// Int16s returns the elements of an INT16 tensor.
func (t *Tensor) Int16s() ([]int16, error) {
	n, err := t.count(Int16)
	if err != nil {
		return nil, err
	}
	if len(t.RawData) > 0 {
		return fromRaw(t, n, 2, func(b []byte) int16 { return int16(le16(b)) })
	}
	return fromTyped(t, "int32_data", t.Int32Data, n, func(v int32) int16 { return int16(v) })
}

// Uint16s returns the elements of a UINT16 tensor.
func (t *Tensor) Uint16s() ([]uint16, error) {
	n, err := t.count(Uint16)
	if err != nil {
		return nil, err
	}
	if len(t.RawData) > 0 {
		return fromRaw(t, n, 2, le16)
	}
	return fromTyped(t, "int32_data", t.Int32Data, n, func(v int32) uint16 { return uint16(v) })
}

// Uint64s returns the elements of a UINT32 or UINT64 tensor as uint64.
func (t *Tensor) Uint64s() ([]uint64, error) {
	n, err := t.count(Uint64, Uint32)
	if err != nil {
		return nil, err
	}
	switch {
	case len(t.RawData) > 0 && t.DataType == Uint32:
		return fromRaw(t, n, 4, func(b []byte) uint64 { return uint64(le32(b)) })
	case len(t.RawData) > 0:
		return fromRaw(t, n, 8, le64)
	}
	return fromTyped(t, "uint64_data", t.Uint64Data, n, same[uint64])
}

// Strings returns the elements of a STRING tensor.
func (t *Tensor) Strings() ([][]byte, error) {
	n, err := t.count(String)
	if err != nil {
		return nil, err
	}
	return fromTyped(t, "string_data", t.StringData, n, same[[]byte])
}

// HalfToFloat32 converts IEEE 754 binary16 bits to float32 exactly.
func HalfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0: // normal
		return math.Float32frombits(sign | (exp+112)<<23 | frac<<13)
	case frac == 0: // ±0
		return math.Float32frombits(sign)
	}
	// subnormal: frac × 2^-24
	v := float32(frac) * (1.0 / (1 << 24))
	if sign != 0 {
		v = -v
	}
	return v
}

// Float32ToHalf converts f to IEEE 754 binary16 bits, rounding to nearest
// (ties to even); what is too large for a half becomes ±Inf, NaN stays NaN.
func Float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	frac := b & 0x7fffff
	if exp == 0xff { // Inf or NaN
		if frac != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	if e := exp - 112; e > 0 { // a normal half, or too large for one
		if e >= 0x1f {
			return sign | 0x7c00
		}
		h := uint32(e)<<10 | frac>>13
		if rem := frac & 0x1fff; rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
			h++ // a carry into the exponent is right, up to Inf
		}
		return sign | uint16(h)
	}
	shift := uint32(126 - exp) // a subnormal half: (1.frac × 2^23) >> shift units of 2^-24
	if shift > 24 {
		return sign
	}
	m := (frac | 0x800000) >> shift
	rem, half := (frac|0x800000)&(1<<shift-1), uint32(1)<<(shift-1)
	if rem > half || rem == half && m&1 == 1 {
		m++
	}
	return sign | uint16(m)
}

// BFloat16ToFloat32 converts bfloat16 bits (the top half of a float32) to float32.
func BFloat16ToFloat32(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// FromFloat32s returns a FLOAT tensor holding v in raw_data.
func FromFloat32s(name string, dims []int64, v []float32) *Tensor {
	raw := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(x))
	}
	return &Tensor{Name: name, DataType: Float, Dims: dims, RawData: raw}
}

// FromInt64s returns an INT64 tensor holding v in raw_data.
func FromInt64s(name string, dims []int64, v []int64) *Tensor {
	raw := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(x))
	}
	return &Tensor{Name: name, DataType: Int64, Dims: dims, RawData: raw}
}
