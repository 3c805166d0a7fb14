package tensor

import "fmt"

// DType is the element type of a tensor. Dtypes never promote silently:
// ops state what they accept and Cast is explicit.
type DType uint8

// The element types a tensor can hold.
const (
	Invalid DType = iota
	Float32
	Float64
	Int64
	Int32
	Uint8
	Int8
	Bool
)

var dtypeNames = [...]string{"invalid", "float32", "float64", "int64", "int32", "uint8", "int8", "bool"}
var dtypeSizes = [...]int{0, 4, 8, 8, 4, 1, 1, 1}

// String returns the NumPy-style name ("float32").
func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// Size is the size of one element in bytes.
func (d DType) Size() int { return dtypeSizes[d] }

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool { return d == Float32 || d == Float64 }

// IsInt reports whether d is a (signed or unsigned) integer type.
func (d DType) IsInt() bool { return d == Int64 || d == Int32 || d == Uint8 || d == Int8 }

// ParseDType maps a NumPy-style name to a DType.
func ParseDType(s string) (DType, error) {
	for i, n := range dtypeNames {
		if n == s && i != 0 {
			return DType(i), nil
		}
	}
	return Invalid, fmt.Errorf("unknown dtype %q", s)
}

// Elem is the set of Go types a tensor can store.
type Elem interface {
	~float32 | ~float64 | ~int64 | ~int32 | ~uint8 | ~int8 | ~bool
}

// Num is the set of Go numeric element types.
type Num interface {
	~float32 | ~float64 | ~int64 | ~int32 | ~uint8 | ~int8
}

// DTypeOf returns the DType that stores Go type T.
func DTypeOf[T Elem]() DType {
	var z T
	switch any(z).(type) {
	case float32:
		return Float32
	case float64:
		return Float64
	case int64:
		return Int64
	case int32:
		return Int32
	case uint8:
		return Uint8
	case int8:
		return Int8
	case bool:
		return Bool
	}
	return Invalid
}

func makeSlice(d DType, n int) any {
	switch d {
	case Float32:
		return make([]float32, n)
	case Float64:
		return make([]float64, n)
	case Int64:
		return make([]int64, n)
	case Int32:
		return make([]int32, n)
	case Uint8:
		return make([]uint8, n)
	case Int8:
		return make([]int8, n)
	case Bool:
		return make([]bool, n)
	}
	panic(fmt.Sprintf("tensor: cannot allocate dtype %v", d))
}
