package io

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"fmt"
	stdio "io"
	"maps"
	"os"
	"slices"
	"strings"

	"paddle/core/tensor"
)

// Named is a tensor with its name; slices of Named keep an order that maps lose.
type Named struct {
	Name string
	T    *tensor.Tensor
}

// TensorInfo describes one entry of a safetensors header.
type TensorInfo struct {
	Name  string
	DType string // as written in the file: "F32", "BF16", ...
	Shape tensor.Shape
	Begin int64 // byte offsets into the data region (after the header)
	End   int64
}

// MaxSafetensorsHeader is the largest header accepted, as in the reference
// implementation (100 MB); a larger length means a corrupt or foreign file.
const MaxSafetensorsHeader = 100_000_000

const metadataKey = "__metadata__"

// safetensors dtype names ↔ our dtypes. F16 and BF16 are read (widened to
// float32) but never written.
var stDTypes = map[string]rawKind{
	"F32":  {dtype: tensor.Float32, size: 4},
	"F64":  {dtype: tensor.Float64, size: 8},
	"I64":  {dtype: tensor.Int64, size: 8},
	"I32":  {dtype: tensor.Int32, size: 4},
	"U8":   {dtype: tensor.Uint8, size: 1},
	"I8":   {dtype: tensor.Int8, size: 1},
	"BOOL": {dtype: tensor.Bool, size: 1},
	"F16":  {dtype: tensor.Float32, size: 2, half: halfIEEE},
	"BF16": {dtype: tensor.Float32, size: 2, half: halfBF16},
}

var stNames = map[tensor.DType]string{
	tensor.Float32: "F32", tensor.Float64: "F64", tensor.Int64: "I64", tensor.Int32: "I32",
	tensor.Uint8: "U8", tensor.Int8: "I8", tensor.Bool: "BOOL",
}

// WriteSafetensors writes tensors (and optional string metadata) to path
// atomically. The data region is ordered by element size (largest first) and
// then by name, as the reference implementation does, so every tensor is
// aligned to its element size.
func WriteSafetensors(path string, tensors map[string]*tensor.Tensor, meta map[string]string) error {
	named := make([]Named, 0, len(tensors))
	for _, k := range slices.Sorted(maps.Keys(tensors)) {
		named = append(named, Named{k, tensors[k]})
	}
	slices.SortStableFunc(named, func(a, b Named) int {
		return cmp.Compare(b.T.DType().Size(), a.T.DType().Size())
	})
	return WriteSafetensorsNamed(path, named, meta)
}

// WriteSafetensorsNamed writes tensors in the given order to path atomically.
func WriteSafetensorsNamed(path string, tensors []Named, meta map[string]string) error {
	return writeAtomic(path, 0o644, func(w stdio.Writer) error {
		return EncodeSafetensors(w, tensors, meta)
	})
}

// EncodeSafetensors writes the safetensors encoding of tensors, in order, to w.
func EncodeSafetensors(w stdio.Writer, tensors []Named, meta map[string]string) error {
	hdr, err := safetensorsHeader(tensors, meta)
	if err != nil {
		return err
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(hdr)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	for _, nt := range tensors {
		if err := writeRaw(w, nt.T); err != nil {
			return fmt.Errorf("tensor %q: %w", nt.Name, err)
		}
	}
	return nil
}

// safetensorsHeader builds the JSON header, padded with spaces to a multiple of 8 bytes.
func safetensorsHeader(tensors []Named, meta map[string]string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	sep := func() {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
	}
	if len(meta) > 0 {
		m, err := json.Marshal(meta) // encoding/json sorts map keys: deterministic
		if err != nil {
			return nil, err
		}
		b.WriteString(`"` + metadataKey + `":`)
		b.Write(m)
	}
	seen := make(map[string]bool, len(tensors))
	var off int64
	for _, nt := range tensors {
		switch {
		case nt.Name == metadataKey:
			return nil, fmt.Errorf("tensor name %q is reserved", metadataKey)
		case seen[nt.Name]:
			return nil, fmt.Errorf("duplicate tensor name %q", nt.Name)
		case nt.T == nil:
			return nil, fmt.Errorf("tensor %q is nil", nt.Name)
		}
		seen[nt.Name] = true
		dt, ok := stNames[nt.T.DType()]
		if !ok {
			return nil, fmt.Errorf("tensor %q: cannot store dtype %v", nt.Name, nt.T.DType())
		}
		name, _ := json.Marshal(nt.Name)
		shape := nt.T.Shape()
		if shape == nil {
			shape = tensor.Shape{}
		}
		sh, _ := json.Marshal(shape)
		end := off + int64(nt.T.Len()*nt.T.DType().Size())
		sep()
		fmt.Fprintf(&b, `%s:{"dtype":"%s","shape":%s,"data_offsets":[%d,%d]}`, name, dt, sh, off, end)
		off = end
	}
	b.WriteByte('}')
	for b.Len()%8 != 0 {
		b.WriteByte(' ')
	}
	return b.Bytes(), nil
}

// ReadSafetensors reads every tensor and the metadata (nil if absent) of a
// safetensors file. F16 and BF16 tensors are widened to float32. Unused
// bytes between tensors are tolerated (the reference reader rejects them);
// overlapping or out-of-range offsets, sizes that do not match the shape,
// and headers over MaxSafetensorsHeader are errors naming the file and tensor.
func ReadSafetensors(path string) (map[string]*tensor.Tensor, map[string]string, error) {
	named, meta, err := ReadSafetensorsNamed(path)
	if err != nil {
		return nil, nil, err
	}
	out := make(map[string]*tensor.Tensor, len(named))
	for _, nt := range named {
		out[nt.Name] = nt.T
	}
	return out, meta, nil
}

// ReadSafetensorsNamed reads a safetensors file, keeping the tensors in file (data offset) order.
func ReadSafetensorsNamed(path string) ([]Named, map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	return DecodeSafetensors(f, st.Size(), path)
}

// ReadSafetensorsHeader returns the header of a safetensors file (in data
// offset order) and its metadata, without reading tensor data.
func ReadSafetensorsHeader(path string) ([]TensorInfo, map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	infos, meta, _, err := parseSafetensorsHeader(f, st.Size(), path)
	return infos, meta, err
}

// DecodeSafetensors decodes the safetensors content of r (size bytes long).
// name identifies the source in error messages.
func DecodeSafetensors(r stdio.ReaderAt, size int64, name string) ([]Named, map[string]string, error) {
	infos, meta, dataStart, err := parseSafetensorsHeader(r, size, name)
	if err != nil {
		return nil, nil, err
	}
	var buf []byte
	out := make([]Named, 0, len(infos))
	for _, ti := range infos {
		n := ti.End - ti.Begin
		if int64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := r.ReadAt(buf, dataStart+ti.Begin); err != nil {
			return nil, nil, fmt.Errorf("%s: tensor %q: read data: %w", name, ti.Name, err)
		}
		t, err := decodeRaw(buf, stDTypes[ti.DType], ti.Shape, binary.LittleEndian)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: tensor %q: %w", name, ti.Name, err)
		}
		out = append(out, Named{ti.Name, t})
	}
	return out, meta, nil
}

type stEntry struct {
	DType       string  `json:"dtype"`
	Shape       []int64 `json:"shape"`
	DataOffsets []int64 `json:"data_offsets"`
}

// parseSafetensorsHeader reads and validates the header. It returns the
// entries sorted by offset and the absolute offset of the data region.
func parseSafetensorsHeader(r stdio.ReaderAt, size int64, name string) ([]TensorInfo, map[string]string, int64, error) {
	fail := func(format string, a ...any) ([]TensorInfo, map[string]string, int64, error) {
		return nil, nil, 0, fmt.Errorf("%s: not a valid safetensors file: "+format, append([]any{name}, a...)...)
	}
	var lenBuf [8]byte
	if size < 8 {
		return fail("%d bytes is shorter than the 8-byte header length", size)
	}
	if _, err := r.ReadAt(lenBuf[:], 0); err != nil {
		return nil, nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	hlen := binary.LittleEndian.Uint64(lenBuf[:])
	if hlen > MaxSafetensorsHeader {
		return fail("header length %d exceeds the %d-byte limit", hlen, MaxSafetensorsHeader)
	}
	if int64(hlen) > size-8 {
		return fail("header length %d exceeds the file size %d (truncated?)", hlen, size)
	}
	hdr := make([]byte, hlen)
	if _, err := r.ReadAt(hdr, 8); err != nil {
		return nil, nil, 0, fmt.Errorf("%s: read header: %w", name, err)
	}
	if len(bytes.TrimLeft(hdr, " ")) == 0 || bytes.TrimLeft(hdr, " ")[0] != '{' {
		return fail("header does not start with '{'")
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &raw); err != nil {
		return fail("header JSON: %v", err)
	}
	var meta map[string]string
	if m, ok := raw[metadataKey]; ok {
		if err := json.Unmarshal(m, &meta); err != nil {
			return fail("%s must map strings to strings: %v", metadataKey, err)
		}
		delete(raw, metadataKey)
	}
	dataLen := size - 8 - int64(hlen)
	infos := make([]TensorInfo, 0, len(raw))
	for k, v := range raw {
		ti, err := parseEntry(k, v, dataLen)
		if err != nil {
			return fail("tensor %q: %v", k, err)
		}
		infos = append(infos, ti)
	}
	slices.SortFunc(infos, func(a, b TensorInfo) int {
		return cmp.Or(cmp.Compare(a.Begin, b.Begin), cmp.Compare(a.End, b.End), strings.Compare(a.Name, b.Name))
	})
	var prev *TensorInfo
	for i := range infos {
		ti := &infos[i]
		if ti.Begin == ti.End {
			continue // empty tensors take no room and cannot overlap
		}
		if prev != nil && ti.Begin < prev.End {
			return fail("tensors %q [%d,%d) and %q [%d,%d) overlap", prev.Name, prev.Begin, prev.End, ti.Name, ti.Begin, ti.End)
		}
		prev = ti
	}
	return infos, meta, 8 + int64(hlen), nil
}

func parseEntry(name string, v json.RawMessage, dataLen int64) (TensorInfo, error) {
	var e stEntry
	if err := json.Unmarshal(v, &e); err != nil {
		return TensorInfo{}, fmt.Errorf("bad entry: %v", err)
	}
	k, ok := stDTypes[e.DType]
	if !ok {
		return TensorInfo{}, fmt.Errorf("unsupported dtype %q (supported: BOOL, BF16, F16, F32, F64, I32, I64, I8, U8)", e.DType)
	}
	if e.Shape == nil {
		return TensorInfo{}, fmt.Errorf("missing shape")
	}
	if len(e.DataOffsets) != 2 {
		return TensorInfo{}, fmt.Errorf("data_offsets %v: want [begin, end]", e.DataOffsets)
	}
	shape, n, err := checkedNumElements(e.Shape)
	if err != nil {
		return TensorInfo{}, err
	}
	b, en := e.DataOffsets[0], e.DataOffsets[1]
	switch {
	case b < 0 || en < b:
		return TensorInfo{}, fmt.Errorf("bad data_offsets [%d, %d]", b, en)
	case en > dataLen:
		return TensorInfo{}, fmt.Errorf("data_offsets [%d, %d] run past the %d-byte data region (truncated?)", b, en, dataLen)
	case en-b != n*int64(k.size):
		return TensorInfo{}, fmt.Errorf("shape %v of %s needs %d bytes, data_offsets [%d, %d] hold %d", shape, e.DType, n*int64(k.size), b, en, en-b)
	}
	return TensorInfo{Name: name, DType: e.DType, Shape: shape, Begin: b, End: en}, nil
}
