package pdparams

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/nlpodyssey/gopickle/types"

	pio "paddle/core/io"
	"paddle/core/tensor"
)

// The allow-list. A pickle names the Python callables that rebuild its
// objects; paddle.save's files name only these. Each one is reimplemented
// here as plain data construction, so reading a file never runs anything a
// file chooses: every other name is refused by findClass.
var allowed = map[string]func() any{
	"numpy.core.multiarray._reconstruct":  func() any { return reconstructFn{} },
	"numpy._core.multiarray._reconstruct": func() any { return reconstructFn{} }, // NumPy ≥ 2
	"numpy.core.multiarray.scalar":        func() any { return scalarFn{} },
	"numpy._core.multiarray.scalar":       func() any { return scalarFn{} },
	"numpy.ndarray":                       func() any { return ndarrayClass{} },
	"numpy.dtype":                         func() any { return dtypeClass{} },
	"_codecs.encode":                      func() any { return encodeFn{} },    // bytes under protocol 2
	"__builtin__.bytes":                   func() any { return bytesFn{} },     // empty bytes under protocol 2
	"builtins.bytes":                      func() any { return bytesFn{} },     //
	"__builtin__.tuple":                   func() any { return tupleFn{} },     // a Tensor: (tuple, ((name, array),))
	"builtins.tuple":                      func() any { return tupleFn{} },     //
	"__builtin__.eval":                    func() any { return lodTensorFn{} }, // a LoDTensor: (eval, ("data", {"data": array}))
	"builtins.eval":                       func() any { return lodTensorFn{} }, //
}

// AllowedClasses lists the Python names a .pdparams file may use, sorted.
func AllowedClasses() []string {
	out := make([]string, 0, len(allowed))
	for k := range allowed {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func findClass(module, name string) (any, error) {
	if f, ok := allowed[module+"."+name]; ok {
		return f(), nil
	}
	return nil, fmt.Errorf("class %s.%s is not allowed (a paddle.save file uses only NumPy arrays, dicts, lists and scalars)", module, name)
}

// array is a NumPy ndarray being rebuilt: _reconstruct makes it empty and
// BUILD's state (version, shape, dtype, is_fortran, raw data) fills it.
type array struct {
	t *tensor.Tensor
}

// PySetState takes ndarray.__reduce__'s state tuple.
func (a *array) PySetState(state any) error {
	st, ok := state.(*types.Tuple)
	if !ok || st.Len() != 5 {
		return fmt.Errorf("ndarray state: want (version, shape, dtype, is_fortran, data), have %T", state)
	}
	shape, err := intTuple(st.Get(1))
	if err != nil {
		return fmt.Errorf("ndarray shape: %w", err)
	}
	dt, ok := st.Get(2).(*dtype)
	if !ok {
		return fmt.Errorf("ndarray dtype: want numpy.dtype, have %T", st.Get(2))
	}
	fortran, ok := st.Get(3).(bool)
	if !ok {
		return fmt.Errorf("ndarray is_fortran: want bool, have %T", st.Get(3))
	}
	data, err := rawBytes(st.Get(4))
	if err != nil {
		return fmt.Errorf("ndarray data: %w (object arrays are not supported)", err)
	}
	t, err := pio.DecodeArray(dt.descr(), shape, fortran, data)
	if err != nil {
		return fmt.Errorf("ndarray: %w", err)
	}
	a.t = t
	return nil
}

// reconstructFn is numpy.core.multiarray._reconstruct(ndarray, (0,), b"b").
type reconstructFn struct{}

func (reconstructFn) Call(args ...any) (any, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("_reconstruct: want 3 arguments, have %d", len(args))
	}
	if _, ok := args[0].(ndarrayClass); !ok {
		return nil, fmt.Errorf("_reconstruct: want numpy.ndarray, have %T (subclasses are not supported)", args[0])
	}
	return &array{}, nil
}

type ndarrayClass struct{}

// scalarFn is numpy.core.multiarray.scalar(dtype, raw bytes): a NumPy
// scalar such as np.float32(0.5), read as a 0-d tensor.
type scalarFn struct{}

func (scalarFn) Call(args ...any) (any, error) {
	if len(args) != 2 {
		return nil, fmt.Errorf("numpy scalar: want (dtype, data), have %d arguments", len(args))
	}
	dt, ok := args[0].(*dtype)
	if !ok {
		return nil, fmt.Errorf("numpy scalar: want numpy.dtype, have %T", args[0])
	}
	data, err := rawBytes(args[1])
	if err != nil {
		return nil, fmt.Errorf("numpy scalar: %w", err)
	}
	t, err := pio.DecodeArray(dt.descr(), nil, false, data)
	if err != nil {
		return nil, fmt.Errorf("numpy scalar: %w", err)
	}
	return &array{t: t}, nil
}

// dtype is numpy.dtype(kind, align, copy) with __setstate__'s byte order.
type dtype struct {
	kind  string // "f4", "i8", "b1", ...
	order string // "<", ">", "|" or "="
}

func (d *dtype) descr() string {
	if d.order == "" {
		return "<" + d.kind
	}
	return d.order + d.kind
}

type dtypeClass struct{}

func (dtypeClass) Call(args ...any) (any, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("numpy.dtype: no type given")
	}
	kind, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("numpy.dtype: want a type string, have %T", args[0])
	}
	return &dtype{kind: kind}, nil
}

// PySetState takes (version, byteorder, subarray, names, fields, elsize,
// alignment, flags); only plain (unstructured) dtypes are supported.
func (d *dtype) PySetState(state any) error {
	st, ok := state.(*types.Tuple)
	if !ok || st.Len() < 2 {
		return fmt.Errorf("numpy.dtype state: want a tuple, have %T", state)
	}
	order, ok := st.Get(1).(string)
	if !ok {
		return fmt.Errorf("numpy.dtype state: byte order %T", st.Get(1))
	}
	for i := 2; i < 5 && i < st.Len(); i++ {
		if st.Get(i) != nil {
			return fmt.Errorf("numpy.dtype %q: structured and sub-array dtypes are not supported", d.kind)
		}
	}
	d.order = order
	return nil
}

// encodeFn is _codecs.encode(text, "latin1"): how Python 3 writes bytes
// under protocol 2 (each character is one byte).
type encodeFn struct{}

func (encodeFn) Call(args ...any) (any, error) {
	if len(args) != 2 || args[1] != "latin1" && args[1] != "latin-1" {
		return nil, fmt.Errorf("_codecs.encode: only (text, \"latin1\") is supported")
	}
	s, ok := args[0].(string)
	if !ok {
		return nil, fmt.Errorf("_codecs.encode: want text, have %T", args[0])
	}
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xff {
			return nil, fmt.Errorf("_codecs.encode: character %U is not latin1", r)
		}
		out = append(out, byte(r))
	}
	return out, nil
}

// bytesFn is bytes(): protocol 2's empty bytes.
type bytesFn struct{}

func (bytesFn) Call(args ...any) (any, error) {
	if len(args) != 0 {
		return nil, fmt.Errorf("bytes: only bytes() is supported")
	}
	return []byte{}, nil
}

// tupleFn is tuple(seq): how paddle.save writes a Tensor found inside a
// non-state-dict object, as (name, array).
type tupleFn struct{}

func (tupleFn) Call(args ...any) (any, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("tuple: want one argument, have %d", len(args))
	}
	switch s := args[0].(type) {
	case *types.Tuple:
		return s, nil
	case *types.List:
		t := types.NewTupleFromSlice(*s)
		return t, nil
	}
	return nil, fmt.Errorf("tuple: want a tuple or list, have %T", args[0])
}

// lodTensorFn is eval("data", {"data": array}): paddle.save's form of a
// LoDTensor. Only that exact expression is accepted; nothing is evaluated.
type lodTensorFn struct{}

func (lodTensorFn) Call(args ...any) (any, error) {
	if len(args) == 2 && args[0] == "data" {
		if d, ok := args[1].(*types.Dict); ok && d.Len() == 1 {
			if v, ok := d.Get("data"); ok {
				if a, ok := v.(*array); ok {
					return a, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("eval: only paddle.save's LoDTensor form eval(\"data\", {\"data\": array}) is supported")
}

func intTuple(v any) ([]int64, error) {
	var items []any
	switch s := v.(type) {
	case *types.Tuple:
		items = *s
	case *types.List:
		items = *s
	default:
		return nil, fmt.Errorf("want a tuple of ints, have %T", v)
	}
	out := make([]int64, len(items))
	for i, x := range items {
		n, ok := toInt(x)
		if !ok {
			return nil, fmt.Errorf("want a tuple of ints, have %T at %d", x, i)
		}
		out[i] = n
	}
	return out, nil
}

func toInt(v any) (int64, bool) {
	switch n := v.(type) {
	case int:
		return int64(n), true
	case int64:
		return n, true
	case *big.Int:
		if n.IsInt64() {
			return n.Int64(), true
		}
	}
	return 0, false
}

func rawBytes(v any) ([]byte, error) {
	switch b := v.(type) {
	case []byte:
		return b, nil
	case string: // Python 2 str from a protocol 2 file written by Python 2
		return []byte(b), nil
	case *types.ByteArray:
		return *b, nil
	}
	return nil, fmt.Errorf("want bytes, have %T", v)
}

// pyName prints a value's Python type for error messages.
func pyName(v any) string {
	s := fmt.Sprintf("%T", v)
	return strings.TrimPrefix(strings.TrimPrefix(s, "*"), "types.")
}
