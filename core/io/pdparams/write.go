package pdparams

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"

	"paddle/core/io"
	"paddle/core/tensor"
)

// Entry is one tensor to write: its structured name ("fc.weight"), the
// parameter name the name table gives it ("" = the structured name) and
// the tensor, in Paddle's layout.
type Entry struct {
	Name      string
	ParamName string
	T         *tensor.Tensor
}

// Write writes entries to path as paddle.save writes a state dict with
// pickle protocol 2 (see Encode); the file appears whole or not at all.
func Write(path string, entries []Entry) error {
	b, err := Encode(entries)
	if err != nil {
		return fmt.Errorf("pdparams: %s: %w", path, err)
	}
	return io.WriteFileAtomic(path, b, 0o644)
}

// Encode lays entries out as paddle.save(state_dict, path, protocol=2)
// does (paddle.framework.io, Paddle 2.0-3.0): a dict of NumPy arrays in
// entry order, then NameTableKey; an array of more than (2^30-1)/itemsize
// elements is flattened and cut into "<name>@@.<i>" pieces listed under
// SplitInfoKey (_unpack_saved_dict). Arrays are pickled as NumPy 1.x's
// ndarray.__reduce__ writes them (numpy.core.multiarray._reconstruct and a
// BUILD state of version, shape, dtype, Fortran flag and raw data), bytes as
// Python 3 writes them under protocol 2 (_codecs.encode of a latin-1 str),
// so Python's pickle with NumPy loads the file as Paddle would.
func Encode(entries []Entry) ([]byte, error) {
	return encode(entries, func(itemsize int) int { return (1<<30 - 1) / itemsize })
}

func encode(entries []Entry, limit func(itemsize int) int) ([]byte, error) {
	w := &pickler{}
	w.b.WriteString("\x80\x02}") // PROTO 2, EMPTY_DICT
	type split struct {
		name  string
		shape []int
		parts []string
	}
	var splits []split
	var items [][2]any // the pieces of split arrays: name, arrayItem
	names := make([][2]string, 0, len(entries))
	seen := map[string]bool{}
	var body []func()
	for _, e := range entries {
		if seen[e.Name] {
			return nil, fmt.Errorf("%q is given twice", e.Name)
		}
		seen[e.Name] = true
		if e.T == nil {
			return nil, fmt.Errorf("%q has no tensor", e.Name)
		}
		raw, descr, err := rawData(e.T)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name, err)
		}
		pn := e.ParamName
		if pn == "" {
			pn = e.Name
		}
		names = append(names, [2]string{e.Name, pn})
		size := e.T.DType().Size()
		if n := e.T.Shape().NumElements(); n > limit(size) {
			s := split{name: e.Name, shape: e.T.Shape()}
			step := limit(size)
			for i := 0; i*step < n; i++ {
				part := fmt.Sprintf("%s@@.%d", e.Name, i)
				s.parts = append(s.parts, part)
				lo, hi := i*step*size, min((i+1)*step, n)*size
				items = append(items, [2]any{part, arrayItem{raw[lo:hi], descr, []int{hi/size - i*step}}})
			}
			splits = append(splits, s)
			continue
		}
		body = append(body, func() {
			w.str(e.Name)
			w.array(raw, descr, e.T.Shape())
		})
	}
	// paddle.save's order: the arrays, the name table (built before the
	// split), then the pieces and the split table.
	w.setItems(len(body)+1+len(items)+boolInt(len(splits) > 0), func(i int) {
		switch {
		case i < len(body):
			body[i]()
		case i == len(body):
			w.str(NameTableKey)
			w.b.WriteByte('}')
			w.setItems(len(names), func(j int) { w.str(names[j][0]); w.str(names[j][1]) })
		case i <= len(body)+len(items):
			it := items[i-len(body)-1]
			a := it[1].(arrayItem)
			w.str(it[0].(string))
			w.array(a.raw, a.descr, a.shape)
		default:
			w.str(SplitInfoKey)
			w.b.WriteByte('}')
			w.setItems(len(splits), func(j int) {
				s := splits[j]
				w.str(s.name)
				w.b.WriteByte('}')
				w.setItems(2, func(k int) {
					if k == 0 {
						w.str("OriginShape")
						w.intTuple(s.shape)
						return
					}
					w.str("slices")
					w.b.WriteString("](") // EMPTY_LIST, MARK
					for _, p := range s.parts {
						w.str(p)
					}
					w.b.WriteByte('e') // APPENDS
				})
			})
		}
	})
	w.b.WriteByte('.') // STOP
	return w.b.Bytes(), nil
}

type arrayItem struct {
	raw   []byte
	descr string
	shape []int
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rawData returns t's elements as little-endian bytes in row-major order
// and NumPy's dtype string for them.
func rawData(t *tensor.Tensor) ([]byte, string, error) {
	t = t.Contiguous()
	var b []byte
	switch t.DType() {
	case tensor.Float32:
		for _, v := range t.F32() {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
		}
		return b, "<f4", nil
	case tensor.Float64:
		for _, v := range t.F64() {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return b, "<f8", nil
	case tensor.Int64:
		for _, v := range t.I64() {
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
		return b, "<i8", nil
	case tensor.Int32:
		for _, v := range t.I32() {
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		}
		return b, "<i4", nil
	case tensor.Uint8:
		return append(b, t.U8()...), "|u1", nil
	case tensor.Int8:
		for _, v := range t.I8() {
			b = append(b, byte(v))
		}
		return b, "|i1", nil
	case tensor.Bool:
		for _, v := range t.Bools() {
			b = append(b, byte(boolInt(v)))
		}
		return b, "|b1", nil
	}
	return nil, "", fmt.Errorf("dtype %s cannot be written", t.DType())
}

// pickler writes the protocol 2 opcodes the encoder needs.
type pickler struct{ b bytes.Buffer }

// setItems writes MARK, n key/value pairs by item, SETITEMS, in batches of
// 1000 as Python's pickle does (an empty dict gets none).
func (w *pickler) setItems(n int, item func(i int)) {
	for lo := 0; lo < n; lo += 1000 {
		w.b.WriteByte('(')
		for i := lo; i < min(lo+1000, n); i++ {
			item(i)
		}
		w.b.WriteByte('u')
	}
}

func (w *pickler) str(s string) {
	w.b.WriteByte('X') // BINUNICODE
	w.b.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(s))))
	w.b.WriteString(s)
}

func (w *pickler) int(v int) {
	switch {
	case v >= 0 && v < 1<<8:
		w.b.Write([]byte{'K', byte(v)})
	case v >= 0 && v < 1<<16:
		w.b.Write([]byte{'M', byte(v), byte(v >> 8)})
	case v >= math.MinInt32 && v <= math.MaxInt32:
		w.b.WriteByte('J')
		w.b.Write(binary.LittleEndian.AppendUint32(nil, uint32(int32(v))))
	default: // LONG1: 8 bytes of two's complement
		w.b.Write([]byte{0x8a, 8})
		w.b.Write(binary.LittleEndian.AppendUint64(nil, uint64(v)))
	}
}

// tuple writes n items by item as a tuple.
func (w *pickler) tuple(n int, item func(i int)) {
	switch n {
	case 0:
		w.b.WriteByte(')')
		return
	case 1, 2, 3:
		for i := range n {
			item(i)
		}
		w.b.WriteByte(byte(0x84 + n)) // TUPLE1..TUPLE3
		return
	}
	w.b.WriteByte('(')
	for i := range n {
		item(i)
	}
	w.b.WriteByte('t')
}

func (w *pickler) intTuple(v []int) { w.tuple(len(v), func(i int) { w.int(v[i]) }) }

func (w *pickler) global(module, name string) {
	w.b.WriteString("c" + module + "\n" + name + "\n")
}

// bytes writes a bytes object as Python 3 does under protocol 2.
func (w *pickler) bytes(p []byte) {
	if len(p) == 0 {
		w.global("__builtin__", "bytes")
		w.b.WriteString(")R")
		return
	}
	w.global("_codecs", "encode")
	s := make([]byte, 0, len(p)*3/2)
	for _, c := range p {
		s = utf8.AppendRune(s, rune(c))
	}
	w.tuple(2, func(i int) {
		if i == 0 {
			w.str(string(s))
		} else {
			w.str("latin1")
		}
	})
	w.b.WriteByte('R')
}

// array writes a C-order NumPy array of the given raw data and dtype.
func (w *pickler) array(raw []byte, descr string, shape []int) {
	w.global("numpy.core.multiarray", "_reconstruct")
	w.tuple(3, func(i int) {
		switch i {
		case 0:
			w.global("numpy", "ndarray")
		case 1:
			w.intTuple([]int{0})
		case 2:
			w.bytes([]byte("b"))
		}
	})
	w.b.WriteByte('R')
	// state: (1, shape, dtype, is_fortran, raw data)
	w.b.WriteByte('(')
	w.int(1)
	w.intTuple(shape)
	w.dtype(descr)
	w.b.WriteByte(0x89) // NEWFALSE
	w.bytes(raw)
	w.b.WriteString("tb") // TUPLE, BUILD
}

// dtype writes numpy.dtype(descr[1:], False, True) with its BUILD state
// (3, byte order, None, None, None, -1, -1, 0), as NumPy pickles a dtype.
func (w *pickler) dtype(descr string) {
	w.global("numpy", "dtype")
	w.tuple(3, func(i int) {
		switch i {
		case 0:
			w.str(descr[1:])
		case 1:
			w.b.WriteByte(0x89)
		case 2:
			w.b.WriteByte(0x88)
		}
	})
	w.b.WriteByte('R')
	w.b.WriteByte('(')
	w.int(3)
	w.str(descr[:1])
	w.b.WriteString("NNN")
	w.int(-1)
	w.int(-1)
	w.int(0)
	w.b.WriteString("tb")
}
