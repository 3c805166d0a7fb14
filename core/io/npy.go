package io

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	stdio "io"
	"os"
	"strconv"
	"strings"

	"paddle/core/tensor"
)

// NumPy .npy support: read format versions 1.0, 2.0 and 3.0, write 1.0
// (2.0 only when the header does not fit 1.0's 64 KiB). Dtypes: <f4 <f8 <i8
// <i4 |u1 |i1 |b1 in either byte order, plus <f2 read as float32. Arrays
// stored in Fortran order are read and returned as C-order (row-major)
// tensors with the same shape and element values, so callers never see the
// difference.

var npyMagic = []byte("\x93NUMPY")

// maxNpyHeader bounds the header a reader accepts (NumPy's own reader
// refuses more than 10 000 bytes by default).
const maxNpyHeader = 1 << 20

var npyDescr = map[tensor.DType]string{
	tensor.Float32: "<f4", tensor.Float64: "<f8", tensor.Int64: "<i8", tensor.Int32: "<i4",
	tensor.Uint8: "|u1", tensor.Int8: "|i1", tensor.Bool: "|b1",
}

// WriteNpy writes t to path as a .npy file (format 1.0, C order) atomically.
func WriteNpy(path string, t *tensor.Tensor) error {
	return writeAtomic(path, 0o644, func(w stdio.Writer) error { return EncodeNpy(w, t) })
}

// EncodeNpy writes t in .npy format to w.
func EncodeNpy(w stdio.Writer, t *tensor.Tensor) error {
	descr, ok := npyDescr[t.DType()]
	if !ok {
		return fmt.Errorf("npy: cannot store dtype %v", t.DType())
	}
	var shape strings.Builder
	shape.WriteByte('(')
	for i, d := range t.Shape() {
		if i > 0 {
			shape.WriteString(", ")
		}
		shape.WriteString(strconv.Itoa(d))
	}
	if t.Rank() == 1 {
		shape.WriteByte(',')
	}
	shape.WriteByte(')')
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shape.String())
	// Pad with spaces and a final newline so the data starts 64-byte aligned, as NumPy does.
	major, pre := byte(1), 10
	if len(dict)+1+pre+64 > 0xffff {
		major, pre = 2, 12
	}
	total := (pre + len(dict) + 1 + 63) / 64 * 64
	hdr := dict + strings.Repeat(" ", total-pre-len(dict)-1) + "\n"
	var head bytes.Buffer
	head.Write(npyMagic)
	head.Write([]byte{major, 0})
	if major == 1 {
		binary.Write(&head, binary.LittleEndian, uint16(len(hdr)))
	} else {
		binary.Write(&head, binary.LittleEndian, uint32(len(hdr)))
	}
	head.WriteString(hdr)
	if _, err := w.Write(head.Bytes()); err != nil {
		return err
	}
	return writeRaw(w, t)
}

// ReadNpy reads a .npy file.
func ReadNpy(path string) (*tensor.Tensor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := DecodeNpy(bufio.NewReaderSize(f, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// DecodeNpy reads one array in .npy format from r. It reads exactly the
// array's bytes, so several arrays written back to back decode in turn.
func DecodeNpy(r stdio.Reader) (*tensor.Tensor, error) {
	var pre [8]byte
	if _, err := stdio.ReadFull(r, pre[:]); err != nil {
		return nil, fmt.Errorf("npy: read magic: %w", noEOF(err))
	}
	if !bytes.Equal(pre[:6], npyMagic) {
		return nil, fmt.Errorf("npy: bad magic %q (not a .npy file)", pre[:6])
	}
	var hlen uint32
	switch pre[6] {
	case 1:
		var n uint16
		if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
			return nil, fmt.Errorf("npy: read header length: %w", noEOF(err))
		}
		hlen = uint32(n)
	case 2, 3:
		if err := binary.Read(r, binary.LittleEndian, &hlen); err != nil {
			return nil, fmt.Errorf("npy: read header length: %w", noEOF(err))
		}
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d.%d (supported: 1.0, 2.0, 3.0)", pre[6], pre[7])
	}
	if hlen > maxNpyHeader {
		return nil, fmt.Errorf("npy: header length %d exceeds %d bytes", hlen, maxNpyHeader)
	}
	hdr := make([]byte, hlen)
	if _, err := stdio.ReadFull(r, hdr); err != nil {
		return nil, fmt.Errorf("npy: read header: %w", noEOF(err))
	}
	h, err := parseNpyHeader(string(hdr))
	if err != nil {
		return nil, fmt.Errorf("npy: header %q: %w", strings.TrimSpace(string(hdr)), err)
	}
	shape, n, err := checkedNumElements(h.shape)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	data, err := readN(r, n*int64(h.kind.size))
	if err != nil {
		return nil, fmt.Errorf("npy: read %d elements of %s: %w", n, h.descr, err)
	}
	t, err := h.decode(shape, data)
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	return t, nil
}

// decode turns the array's bytes into a C-order tensor of shape.
func (h *npyHeader) decode(shape tensor.Shape, data []byte) (*tensor.Tensor, error) {
	disk := shape
	if h.fortran {
		disk = reversed(shape)
	}
	t, err := decodeRaw(data, h.kind, disk, h.order)
	if err != nil {
		return nil, err
	}
	if h.fortran && len(shape) > 1 {
		t = t.Transpose().Clone() // Fortran order is C order of the reversed axes
	}
	return t, nil
}

func reversed(s tensor.Shape) tensor.Shape {
	out := make(tensor.Shape, len(s))
	for i, d := range s {
		out[len(s)-1-i] = d
	}
	return out
}

// readN reads exactly n bytes, growing the buffer as data arrives so that a
// corrupt header cannot trigger a huge allocation for a short stream.
func readN(r stdio.Reader, n int64) ([]byte, error) {
	const direct = 64 << 20
	if n <= direct {
		b := make([]byte, n)
		_, err := stdio.ReadFull(r, b)
		return b, noEOF(err)
	}
	var buf bytes.Buffer
	got, err := stdio.CopyN(&buf, r, n)
	if got < n {
		return nil, fmt.Errorf("truncated: have %d of %d bytes: %w", got, n, noEOF(err))
	}
	return buf.Bytes(), nil
}

// noEOF turns a clean EOF in the middle of a structure into ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == stdio.EOF {
		return stdio.ErrUnexpectedEOF
	}
	return err
}

type npyHeader struct {
	descr   string
	kind    rawKind
	order   binary.ByteOrder
	fortran bool
	shape   []int64
}

// parseNpyHeader parses the Python dict literal of a .npy header, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
func parseNpyHeader(s string) (npyHeader, error) {
	var h npyHeader
	p := &pyLexer{s: s}
	if err := p.expect('{'); err != nil {
		return h, err
	}
	seen := map[string]bool{}
	for {
		if p.peek() == '}' {
			p.pos++
			break
		}
		key, err := p.str()
		if err != nil {
			return h, err
		}
		if err := p.expect(':'); err != nil {
			return h, err
		}
		switch key {
		case "descr":
			if h.descr, err = p.str(); err != nil {
				return h, fmt.Errorf("descr: %w (structured dtypes are not supported)", err)
			}
		case "fortran_order":
			if h.fortran, err = p.boolean(); err != nil {
				return h, err
			}
		case "shape":
			if h.shape, err = p.tuple(); err != nil {
				return h, err
			}
		default:
			return h, fmt.Errorf("unexpected key %q", key)
		}
		seen[key] = true
		if p.peek() == ',' {
			p.pos++
		} else if p.peek() != '}' {
			return h, fmt.Errorf("expected ',' or '}' at offset %d", p.pos)
		}
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, fmt.Errorf("missing key %q", k)
		}
	}
	return h, h.resolveDescr()
}

func (h *npyHeader) resolveDescr() error {
	d := h.descr
	if len(d) < 2 {
		return fmt.Errorf("unsupported dtype %q", d)
	}
	h.order = binary.LittleEndian
	switch d[0] {
	case '<', '|', '=': // '=' is native, little-endian on every platform we build for
		d = d[1:]
	case '>':
		h.order = binary.BigEndian
		d = d[1:]
	}
	kinds := map[string]rawKind{
		"f4": {dtype: tensor.Float32, size: 4}, "f8": {dtype: tensor.Float64, size: 8},
		"i8": {dtype: tensor.Int64, size: 8}, "i4": {dtype: tensor.Int32, size: 4},
		"u1": {dtype: tensor.Uint8, size: 1}, "i1": {dtype: tensor.Int8, size: 1},
		"b1": {dtype: tensor.Bool, size: 1}, "f2": {dtype: tensor.Float32, size: 2, half: halfIEEE},
	}
	k, ok := kinds[d]
	if !ok {
		return fmt.Errorf("unsupported dtype %q (supported: f4 f8 i8 i4 u1 i1 b1, f2 read as float32)", h.descr)
	}
	h.kind = k
	return nil
}

// pyLexer reads the small subset of Python literals .npy headers use.
type pyLexer struct {
	s   string
	pos int
}

func (p *pyLexer) skip() {
	for p.pos < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *pyLexer) peek() byte {
	p.skip()
	if p.pos >= len(p.s) {
		return 0
	}
	return p.s[p.pos]
}

func (p *pyLexer) expect(c byte) error {
	if p.peek() != c {
		return fmt.Errorf("expected %q at offset %d", c, p.pos)
	}
	p.pos++
	return nil
}

func (p *pyLexer) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", fmt.Errorf("expected a string at offset %d", p.pos)
	}
	end := strings.IndexByte(p.s[p.pos+1:], q)
	if end < 0 {
		return "", fmt.Errorf("unterminated string at offset %d", p.pos)
	}
	v := p.s[p.pos+1 : p.pos+1+end]
	p.pos += end + 2
	return v, nil
}

func (p *pyLexer) boolean() (bool, error) {
	p.skip()
	for _, w := range []string{"True", "False"} {
		if strings.HasPrefix(p.s[p.pos:], w) {
			p.pos += len(w)
			return w == "True", nil
		}
	}
	return false, fmt.Errorf("expected True or False at offset %d", p.pos)
}

func (p *pyLexer) tuple() ([]int64, error) {
	if err := p.expect('('); err != nil {
		return nil, err
	}
	out := []int64{}
	for {
		c := p.peek()
		if c == ')' {
			p.pos++
			return out, nil
		}
		start := p.pos
		for p.pos < len(p.s) && (p.s[p.pos] >= '0' && p.s[p.pos] <= '9' || p.s[p.pos] == 'L') {
			p.pos++
		}
		v, err := strconv.ParseInt(strings.TrimSuffix(p.s[start:p.pos], "L"), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("bad shape entry at offset %d", start)
		}
		out = append(out, v)
		if p.peek() == ',' {
			p.pos++
		} else if p.peek() != ')' {
			return nil, fmt.Errorf("expected ',' or ')' at offset %d", p.pos)
		}
	}
}
