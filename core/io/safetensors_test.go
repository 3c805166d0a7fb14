package io

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paddle/core/tensor"
)

func TestSafetensorsRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.safetensors")
	want := sampleTensors()
	meta := map[string]string{"format": "pt", "note": "ünïcode \"quoted\""}
	if err := WriteSafetensors(path, want, meta); err != nil {
		t.Fatal(err)
	}
	got, gotMeta, err := ReadSafetensors(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("read %d tensors, want %d", len(got), len(want))
	}
	for k, w := range want {
		sameTensor(t, k, got[k], w)
	}
	if len(gotMeta) != 2 || gotMeta["note"] != meta["note"] || gotMeta["format"] != "pt" {
		t.Errorf("metadata = %v, want %v", gotMeta, meta)
	}
	// The layout rules of the reference writer: header length a multiple of 8,
	// every tensor aligned to its element size.
	infos, _, err := ReadSafetensorsHeader(path)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if n := binary.LittleEndian.Uint64(raw); n%8 != 0 {
		t.Errorf("header length %d is not a multiple of 8", n)
	}
	for _, ti := range infos {
		if sz := stDTypes[ti.DType].size; ti.Begin%int64(sz) != 0 {
			t.Errorf("%s: offset %d not aligned to %d", ti.Name, ti.Begin, sz)
		}
	}
}

func TestSafetensorsNamedKeepsOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "o.safetensors")
	in := []Named{
		{"z", tensor.FromSlice([]float32{1, 2})},
		{"a", tensor.FromSlice([]float32{3})},
		{"m", tensor.FromSlice([]int64{4})},
	}
	if err := WriteSafetensorsNamed(path, in, nil); err != nil {
		t.Fatal(err)
	}
	got, meta, err := ReadSafetensorsNamed(path)
	if err != nil {
		t.Fatal(err)
	}
	if meta != nil {
		t.Errorf("meta = %v, want nil", meta)
	}
	for i := range in {
		if got[i].Name != in[i].Name {
			t.Fatalf("order: got %q at %d, want %q", got[i].Name, i, in[i].Name)
		}
		sameTensor(t, in[i].Name, got[i].T, in[i].T)
	}
}

// handFile builds a safetensors file from a header string and data bytes, exactly as the spec reads.
func handFile(header string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(header)))
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}

func le32(v ...float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// TestSafetensorsHandWritten reads a file whose bytes follow the published
// format directly: 8-byte LE length, JSON header (unpadded, keys in any
// order, metadata last), raw little-endian data.
func TestSafetensorsHandWritten(t *testing.T) {
	hdr := `{"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},` +
		`"step":{"dtype":"I64","shape":[],"data_offsets":[16,24]},` +
		`"mask":{"dtype":"BOOL","shape":[3],"data_offsets":[24,27]},` +
		`"h":{"dtype":"F16","shape":[3],"data_offsets":[28,34]},` +
		`"bf":{"dtype":"BF16","shape":[2],"data_offsets":[34,38]},` +
		`"__metadata__":{"format":"pt"}}`
	data := le32(1.5, -2, 0.25, 1e-3)
	data = binary.LittleEndian.AppendUint64(data, uint64(1<<40+3))
	data = append(data, 1, 0, 1, 0xAA) // mask + one unused padding byte
	// float16: 1.0 = 0x3C00, -2.5 = 0xC100, smallest subnormal 2^-24 = 0x0001
	data = binary.LittleEndian.AppendUint16(data, 0x3C00)
	data = binary.LittleEndian.AppendUint16(data, 0xC100)
	data = binary.LittleEndian.AppendUint16(data, 0x0001)
	// bfloat16: the top half of float32 3.0 (0x40400000) and -0.5 (0xBF000000)
	data = binary.LittleEndian.AppendUint16(data, 0x4040)
	data = binary.LittleEndian.AppendUint16(data, 0xBF00)

	path := filepath.Join(t.TempDir(), "hand.safetensors")
	if err := os.WriteFile(path, handFile(hdr, data), 0o644); err != nil {
		t.Fatal(err)
	}
	got, meta, err := ReadSafetensors(path)
	if err != nil {
		t.Fatal(err)
	}
	if meta["format"] != "pt" {
		t.Errorf("meta = %v", meta)
	}
	sameTensor(t, "w", got["w"], tensor.FromSlice([]float32{1.5, -2, 0.25, 1e-3}, 2, 2))
	sameTensor(t, "step", got["step"], tensor.Scalar(int64(1<<40+3)))
	sameTensor(t, "mask", got["mask"], tensor.FromSlice([]bool{true, false, true}))
	sameTensor(t, "h", got["h"], tensor.FromSlice([]float32{1, -2.5, float32(math.Ldexp(1, -24))}))
	sameTensor(t, "bf", got["bf"], tensor.FromSlice([]float32{3, -0.5}))
}

// TestSafetensorsWriterBytes pins the exact bytes we write for a small file.
func TestSafetensorsWriterBytes(t *testing.T) {
	var b bytes.Buffer
	err := EncodeSafetensors(&b, []Named{{"x", tensor.FromSlice([]float32{1, 2}, 1, 2)}}, map[string]string{"k": "v"})
	if err != nil {
		t.Fatal(err)
	}
	hdr := `{"__metadata__":{"k":"v"},"x":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]}}`
	hdr += strings.Repeat(" ", (8-len(hdr)%8)%8)
	want := handFile(hdr, le32(1, 2))
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("bytes:\n got %q\nwant %q", b.Bytes(), want)
	}
}

func TestSafetensorsInvalid(t *testing.T) {
	ok := `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`
	tests := []struct {
		name, hdr string
		data      []byte
		want      string
	}{
		{"overlap", `{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, make([]byte, 8), "overlap"},
		{"out of range", ok, make([]byte, 4), "run past"},
		{"size mismatch", `{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, make([]byte, 8), `tensor "a": shape (3) of F32 needs 12 bytes`},
		{"reversed offsets", `{"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}`, make([]byte, 8), "bad data_offsets"},
		{"negative dim", `{"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}`, make([]byte, 8), "negative dimension"},
		{"huge dims", `{"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,8]}}`, make([]byte, 8), "too large"},
		{"unsupported dtype", `{"a":{"dtype":"C64","shape":[1],"data_offsets":[0,8]}}`, make([]byte, 8), `unsupported dtype "C64"`},
		{"bad json", `{"a":`, nil, "header JSON"},
		{"not an object", `[1, 2]   `, nil, "start with '{'"},
		{"bad metadata", `{"__metadata__":{"k":1}}`, nil, "__metadata__"},
		{"missing offsets", `{"a":{"dtype":"F32","shape":[2]}}`, make([]byte, 8), "data_offsets"},
		{"bad bool", `{"a":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}}`, []byte{1, 7}, "byte value 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.safetensors")
			os.WriteFile(path, handFile(tt.hdr, tt.data), 0o644)
			_, _, err := ReadSafetensors(path)
			if err == nil {
				t.Fatalf("no error")
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %q should name the file and contain %q", err, tt.want)
			}
		})
	}
	t.Run("header too large", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "big.safetensors")
		b := binary.LittleEndian.AppendUint64(nil, 1<<40)
		os.WriteFile(path, append(b, "{}"...), 0o644)
		if _, _, err := ReadSafetensors(path); err == nil || !strings.Contains(err.Error(), "exceeds") {
			t.Errorf("err = %v", err)
		}
	})
}

// TestSafetensorsCorrupt: every truncation and many byte flips of a valid
// file give an error or a value, never a panic.
func TestSafetensorsCorrupt(t *testing.T) {
	var b bytes.Buffer
	named := []Named{
		{"a", tensor.FromSlice([]float32{1, 2, 3})},
		{"b", tensor.FromSlice([]bool{true, false})},
		{"c", tensor.FromSlice([]int64{5}, 1, 1)},
	}
	if err := EncodeSafetensors(&b, named, map[string]string{"x": "y"}); err != nil {
		t.Fatal(err)
	}
	full := b.Bytes()
	for n := range len(full) {
		if _, _, err := DecodeSafetensors(bytes.NewReader(full[:n]), int64(n), "trunc"); err == nil {
			t.Errorf("truncated to %d of %d bytes: no error", n, len(full))
		}
	}
	for i := range len(full) {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			c := bytes.Clone(full)
			c[i] ^= x
			DecodeSafetensors(bytes.NewReader(c), int64(len(c)), "flip") // must not panic
		}
	}
}

func TestSafetensorsWriteErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		in   []Named
	}{
		{"duplicate", []Named{{"a", tensor.Scalar(float32(1))}, {"a", tensor.Scalar(float32(2))}}},
		{"reserved", []Named{{"__metadata__", tensor.Scalar(float32(1))}}},
		{"nil", []Named{{"a", nil}}},
	} {
		p := filepath.Join(dir, tt.name)
		if err := WriteSafetensorsNamed(p, tt.in, nil); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s: a failed write left %s behind", tt.name, p)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("failed writes left temp files: %v", ents)
	}
}
