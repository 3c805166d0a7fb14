package pdpb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"

	"paddle/core/io/protopath"
)

// Tensor is one tensor of a .pdiparams stream: its TensorDesc and raw
// little-endian data (LoD offsets are read and dropped: inference weights
// have none that matter).
type Tensor struct {
	Name  string
	DType Type
	Dims  []int64
	Data  []byte
}

// ElemSize is the size in bytes of one element of data type t, or 0 when t
// is not a data type.
func ElemSize(t Type) int {
	switch t {
	case Bool, Uint8, Int8:
		return 1
	case Int16, FP16, BF16:
		return 2
	case Int32, FP32:
		return 4
	case Int64, FP64:
		return 8
	}
	return 0
}

// ReadParams reads the tensors of an inference.pdiparams written by
// save_combine: one per name, in that order (the program's persistable
// variables sorted by name, see Program.Persistables).
func ReadParams(path string, names []string) ([]Tensor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	ts, err := DecodeParams(b, names)
	if err != nil {
		var de *Error
		if errors.As(err, &de) {
			de.File = path
		}
		return nil, err
	}
	return ts, nil
}

// DecodeParams decodes len(names) tensors from b; the stream must end with
// the last one. Per tensor (Paddle's SerializeToStream of a DenseTensor):
// uint32 version 0; uint64 LoD level count, each level a uint64 byte size
// and that many bytes; uint32 version 0; int32 TensorDesc size and the
// TensorDesc; the data, numel × element size bytes.
func DecodeParams(b []byte, names []string) ([]Tensor, error) {
	out := make([]Tensor, 0, len(names))
	off := 0
	for _, name := range names {
		t, n, err := decodeTensor(b[off:], name)
		if err != nil {
			return nil, protopath.At(format, err, "variable "+strconv.Quote(name)+" at byte "+strconv.Itoa(off))
		}
		out = append(out, t)
		off += n
	}
	if off != len(b) {
		return nil, protopath.Top(format, fmt.Errorf("%d bytes left after the %d tensors of the program's persistable variables: the file does not belong to this program", len(b)-off, len(names)))
	}
	return out, nil
}

// reader reads little-endian numbers, checking each against what is left.
type reader struct {
	b   []byte
	off int
}

func (r *reader) need(n uint64, what string) error {
	if n > uint64(len(r.b)-r.off) {
		return fmt.Errorf("%s: want %d bytes, only %d left in the file", what, n, len(r.b)-r.off)
	}
	return nil
}

func (r *reader) u32(what string) (uint32, error) {
	if err := r.need(4, what); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v, nil
}

func (r *reader) u64(what string) (uint64, error) {
	if err := r.need(8, what); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v, nil
}

func (r *reader) bytes(n uint64, what string) ([]byte, error) {
	if err := r.need(n, what); err != nil {
		return nil, err
	}
	s := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return s, nil
}

func decodeTensor(b []byte, name string) (Tensor, int, error) {
	r := &reader{b: b}
	t := Tensor{Name: name}
	if v, err := r.u32("version"); err != nil {
		return t, 0, err
	} else if v != 0 {
		return t, 0, fmt.Errorf("version: %d, want 0", v)
	}
	levels, err := r.u64("lod level count")
	if err != nil {
		return t, 0, err
	}
	if levels > uint64(len(b))/8 {
		return t, 0, fmt.Errorf("lod level count: %d levels cannot fit in the %d bytes left", levels, len(b)-r.off)
	}
	for i := range levels {
		what := "lod level " + strconv.FormatUint(i, 10)
		n, err := r.u64(what + " size")
		if err != nil {
			return t, 0, err
		}
		if _, err := r.bytes(n, what); err != nil {
			return t, 0, err
		}
	}
	if v, err := r.u32("tensor version"); err != nil {
		return t, 0, err
	} else if v != 0 {
		return t, 0, fmt.Errorf("tensor version: %d, want 0", v)
	}
	ds, err := r.u32("TensorDesc size")
	if err != nil {
		return t, 0, err
	}
	if int32(ds) < 0 {
		return t, 0, fmt.Errorf("TensorDesc size: %d is negative", int32(ds))
	}
	desc, err := r.bytes(uint64(ds), "TensorDesc")
	if err != nil {
		return t, 0, err
	}
	if t.DType, t.Dims, err = DecodeTensorDesc(desc); err != nil {
		return t, 0, fmt.Errorf("TensorDesc: %w", err)
	}
	size := uint64(ElemSize(t.DType))
	if size == 0 {
		return t, 0, fmt.Errorf("TensorDesc: data type %v is not a tensor data type", t.DType)
	}
	numel := uint64(1)
	for _, d := range t.Dims {
		if d < 0 {
			return t, 0, fmt.Errorf("TensorDesc: dims %v has a negative dimension", t.Dims)
		}
		if d != 0 && numel > math.MaxInt64/size/uint64(d) {
			return t, 0, fmt.Errorf("TensorDesc: dims %v overflow", t.Dims)
		}
		numel *= uint64(d)
	}
	if t.Data, err = r.bytes(numel*size, fmt.Sprintf("data of %v %v", t.DType, t.Dims)); err != nil {
		return t, 0, err
	}
	return t, r.off, nil
}
